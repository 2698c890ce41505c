"""The command line: entry points, wiring (settings -> adapters), one module per subcommand."""

#: The subcommands, one module of this package each; each has ``register(subparsers)`` (its
#: parser: description, options and their help, from the book's ``cli`` section). A module is
#: imported only when its subcommand is the one run: the others are registered by name with
#: their line of help, ``text(name)``, so ``voicehost --help`` imports none of them.
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
