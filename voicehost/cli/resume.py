"""`voicehost resume [JOURNAL]`: carry on a game after a crash or a power cut."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from voicehost.cli import session
from voicehost.cli.play import run_script_file, settings_for
from voicehost.cli.texts import text
from voicehost.errors import VoicehostError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "resume",
        help=text("resume"),
        description=text("resume.description"),
    )
    parser.add_argument("journal", nargs="?", help=text("resume.journal"))
    parser.add_argument("--script", type=Path, help=text("resume.script"))
    parser.add_argument("--text", action="store_true", help=text("resume.text"))
    parser.add_argument("--plain", action="store_true", help=text("resume.plain"))
    parser.add_argument("--web", action="store_true", help=text("resume.web"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    settings = settings_for(args, journal=True)
    journal = session.find_journal(settings, args.journal)
    if journal is None:
        folder = settings.path(settings.storage.journal_dir)
        raise VoicehostError(
            f"no unfinished game in {folder}; start one with `voicehost play`",
            phrase="resume_nothing",
            folder=folder,
        )
    # A journal that is not there is said at once, before the sound card, the speech model and
    # the keypad are looked for (and their notices printed).
    from voicehost.host.journal import read

    read(journal)
    if args.script is not None:
        return run_script_file(args.script, settings, journal, None, resume=True)
    return session.play(
        settings,
        journal_path=journal,
        resume=True,
        text_only=args.text,
        plain=args.plain,
        web=args.web or settings.web.enabled,
        web_required=args.web,
    )
