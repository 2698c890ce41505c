"""The command line: entry points, wiring (settings -> adapters), one module per subcommand."""

#: The subcommands, one module of this package each; each has ``register(subparsers)``.
SUBCOMMANDS = (
    "club",
    "demo",
    "doctor",
    "evening",
    "listen",
    "models",
    "phrases",
    "play",
    "protocol",
    "rehearse",
    "rules",
    "resume",
    "service",
)
