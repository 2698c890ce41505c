"""The voicehost command line: wiring only.

Each subcommand lives in ``voicehost/cli/<name>.py`` (listed, with its one-line help, in
``voicehost.cli.SUBCOMMANDS``) and exposes ``register(subparsers) -> None``; the parser it adds
sets ``func(args) -> int``. Only the subcommand being run is imported and registered in full;
the others are names with their line of help, so ``voicehost --help`` imports no
implementation (numpy, yaml, curses, the rules) at all.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from voicehost import __version__, cli
from voicehost.errors import VoicehostError


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for ``argv``: the chosen subcommand in full, the others by name and help."""
    parser = argparse.ArgumentParser(
        prog="voicehost",
        description="Offline voice host for the party game Mafia.",
    )
    parser.add_argument("--version", action="version", version=f"voicehost {__version__}")
    parser.add_argument(
        "--config",
        default=None,
        help="settings file (default: config.yaml beside the package)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = chosen_subcommand(sys.argv[1:] if argv is None else argv)
    for name, line in cli.SUBCOMMANDS.items():
        if name == chosen:
            importlib.import_module(f"{cli.__name__}.{name}").register(subparsers)
        else:
            subparsers.add_parser(name, help=line)
    return parser


def chosen_subcommand(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` runs (the first word that is not an option), or None."""
    words = iter(argv)
    for word in words:
        if len(word) > 2 and "--config".startswith(word):  # argparse takes `--conf` too
            next(words, None)  # its value, which may be any word
        elif word == "--":
            word = next(words, "")
            return word if word in cli.SUBCOMMANDS else None
        elif not word.startswith("-"):
            return word if word in cli.SUBCOMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except VoicehostError as exc:
        print(f"voicehost: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nvoicehost: stopped. The journal keeps the game: `voicehost resume`.")
        return 130
    except BrokenPipeError:
        # `voicehost protocol | head`: the reader has all it wanted. Nothing more can be said on
        # stdout, not even by the interpreter flushing it at exit.
        _silence_stdout()
        return 0


def _silence_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass  # stdout is not a real file: nothing will be flushed to a closed pipe
    finally:
        os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
