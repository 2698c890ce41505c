"""The command line: entry points, wiring (settings -> adapters), one module per subcommand."""

#: The subcommands, one module of this package each, with the line ``voicehost --help`` shows
#: for it. A module has ``register(subparsers)`` (its parser: description, options and their
#: help) and is imported only when its subcommand is the one run, so ``voicehost --help``
#: imports none of them (tests/house/test_fast_start.py).
SUBCOMMANDS = {
    "demo": "play a whole scripted 10-player game into demo.wav",
    "doctor": "check sound, microphone, voice, model, keypad and disk; say what to fix",
    "listen": "print what the listener hears and decides (a recording, or the microphone)",
    "models": "fetch, install (from a zip) or list the Vosk speech models",
    "phrases": "prepare the announcements' audio, or check a voice pack",
    "play": "host a game (keyboard, voice, keypad), or play a script",
    "protocol": "print and write the protocol of a game from its journal",
    "rehearse": "speak the announcements one by one (or list them, or render them to files)",
    "resume": "carry on an unfinished game from its journal",
    "service": "start the host at boot (systemd): install, uninstall, status",
}
