"""The voicehost command line: wiring only.

Each subcommand lives in ``voicehost/cli/<name>.py`` (listed in ``voicehost.cli.SUBCOMMANDS``)
and exposes ``register(subparsers) -> None``; the parser it adds sets ``func(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from voicehost import __version__, cli
from voicehost.errors import VoicehostError


def build_parser() -> argparse.ArgumentParser:
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
    for name in cli.SUBCOMMANDS:
        importlib.import_module(f"{cli.__name__}.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
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


if __name__ == "__main__":
    sys.exit(main())
