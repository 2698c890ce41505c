"""`voicehost protocol [JOURNAL]`: the protocol of a game (finished or not) from its journal."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from voicehost.cli import session
from voicehost.cli.play import settings_for
from voicehost.errors import VoicehostError
from voicehost.host import protocol
from voicehost.host.replay import replay_journal


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "protocol",
        help="print and write the protocol of a game from its journal",
    )
    parser.add_argument("journal", nargs="?", help="journal file (default: the newest unfinished)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    settings = settings_for(args)
    path = session.find_journal(settings, args.journal)
    if path is None:
        raise VoicehostError("no journal given and no unfinished game found")
    data = protocol.build(replay_journal(settings, path).state)
    print(protocol.to_json(data) if args.json else protocol.to_table(data))
    folder = settings.path(settings.storage.protocol_dir)
    try:
        json_path, text_path = protocol.write(data, folder, path.stem)
    except protocol.ProtocolError as exc:
        print(f"\nvoicehost: {exc}", file=sys.stderr)
        return 1
    print(f"\nWritten: {text_path} and {json_path}")
    return 0
