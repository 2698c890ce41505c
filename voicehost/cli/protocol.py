"""`voicehost protocol [JOURNAL]`: the protocol of a game (finished or not) from its journal;
without JOURNAL, of the last game played."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from voicehost.cli.play import settings_for
from voicehost.errors import VoicehostError
from voicehost.host import protocol
from voicehost.host.journal import newest_game
from voicehost.host.replay import replay_journal
from voicehost.phrases import PhraseBook


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "protocol",
        help="print and write the protocol of a game from its journal",
    )
    parser.add_argument(
        "journal", nargs="?", help="journal file (default: the last game, finished or not)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    settings = settings_for(args)
    folder = settings.path(settings.storage.journal_dir)
    path = Path(args.journal) if args.journal else newest_game(folder)
    if path is None:
        raise VoicehostError(f"no game has been played yet: {folder} holds no journal")
    replayed = replay_journal(settings, path)
    data = protocol.build(replayed.state)
    book = PhraseBook.load(replayed.settings.language)
    print(protocol.to_json(data) if args.json else protocol.to_table(data, book))
    folder = settings.path(settings.storage.protocol_dir)
    try:
        json_path, text_path = protocol.write(data, folder, path.stem, book)
    except protocol.ProtocolError as exc:
        print(f"\nvoicehost: {exc}", file=sys.stderr)
        return 1
    print(f"\nWritten: {text_path} and {json_path}")
    return 0
