"""`voicehost resume [JOURNAL]`: carry on a game after a crash or a power cut."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from voicehost import cli
from voicehost.cli import session
from voicehost.cli.play import run_script_file, settings_for
from voicehost.errors import VoicehostError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "resume",
        help=cli.SUBCOMMANDS["resume"],
        description="Rebuild the exact state of a game from its journal and carry on. "
        "Without JOURNAL, the newest unfinished game is resumed.",
    )
    parser.add_argument("journal", nargs="?", help="journal file (default: the newest unfinished)")
    parser.add_argument("--script", type=Path, help="continue with this command file")
    parser.add_argument("--text", action="store_true", help="announcements as text only")
    parser.add_argument("--plain", action="store_true", help="line mode instead of full screen")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    settings = settings_for(args)
    journal = session.find_journal(settings, args.journal)
    if journal is None:
        folder = settings.path(settings.storage.journal_dir)
        raise VoicehostError(f"no unfinished game in {folder}; start one with `voicehost play`")
    if args.script is not None:
        return run_script_file(args.script, settings, journal, None, resume=True)
    return session.play(
        settings, journal_path=journal, resume=True, text_only=args.text, plain=args.plain
    )
