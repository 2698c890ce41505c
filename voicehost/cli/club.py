"""`voicehost club standings|import|sync`: the season's rating across evenings and tables (a
terminal table, CSV, a PNG chart), earlier games from a folder, the outbox sent now."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from voicehost.cli.evening import invocation


def register(subparsers: Any) -> None:
    from voicehost.cli.texts import text

    parser = subparsers.add_parser("club", help=text("club"), description=text("club.description"))
    actions = parser.add_subparsers(dest="club_action", metavar="ACTION", required=True)
    standings = actions.add_parser("standings", help=text("club.standings"))
    standings.add_argument("--season", help=text("club.season"))
    standings.add_argument("--csv", type=Path, help=text("club.csv"))
    standings.add_argument("--chart", type=Path, help=text("club.chart"))
    standings.add_argument("--player", help=text("club.player"))
    standings.set_defaults(func=run_standings)
    importing = actions.add_parser("import", help=text("club.import"))
    importing.add_argument("folder", type=Path, help=text("club.folder"))
    importing.set_defaults(func=run_import)
    sync = actions.add_parser("sync", help=text("club.sync"))
    sync.set_defaults(func=run_sync)
    rename = actions.add_parser("rename", help=text("club.rename"))
    rename.add_argument("old", help=text("club.rename_old"))
    rename.add_argument("new", help=text("club.rename_new"))
    rename.add_argument("--merge", action="store_true", help=text("club.rename_merge"))
    rename.set_defaults(func=run_rename)


def _book(settings: Any) -> Any:
    from voicehost.phrases import PhraseBook

    return PhraseBook.load(settings.language)


def run_standings(args: argparse.Namespace) -> int:
    from voicehost.club import records, standings
    from voicehost.club.outbox import why
    from voicehost.config import load

    settings = load(args.config)
    book = _book(settings)

    def say(key: str, **params: Any) -> str:
        return str(book.screen(f"club_{key}", params))

    records.catch_up(settings)
    sent = records.send_outbox(settings)
    if sent.waiting:
        print(
            book.screen(
                "club_outbox_waiting",
                {"count": sent.waiting, "reason": why(book, sent), "command": invocation(settings)},
            )
        )
    database = records.connect(settings)
    try:
        rows = database.standings(args.season)
        games = database.count_games(args.season)
        player = _player(rows, args.player, database.person_name)
        series = database.series(player, args.season) if player and args.chart else []
    finally:
        database.close()
    season = args.season or book.screen("club_all_seasons")
    print(book.screen("club_standings_heading", {"season": season, "games": games}))
    if not rows:  # the rating is by name: games of numbered seats count, nobody is ranked
        print(book.screen("club_no_named_players" if games else "club_no_games"))
    else:
        print(standings.table(rows, say, book.word))
    if args.csv is not None:
        text = standings.to_csv(rows, standings.csv_headers(say, book.word))
        if str(args.csv) == "-":
            sys.stdout.write(text)
        else:
            _write(args.csv, text)
            print(book.screen("club_csv_written", {"path": args.csv}))
    if args.chart is not None:
        if player is not None and args.player and not series:
            print(book.screen("club_player_unknown", {"name": player}))
        standings.chart(rows, series, player, args.chart, say)
        print(book.screen("club_chart_written", {"path": args.chart}))
    return 0


def _player(rows: list[Any], asked: str | None, shown: Any) -> str | None:
    """The player the chart follows, under the name the club shows them by (asked by any name
    they played under; the leader when none is asked for)."""
    if asked is None:
        return rows[0].name if rows else None
    return str(shown(asked) or asked)


def _write(path: Path, text: str) -> None:
    from voicehost.errors import VoicehostError

    try:
        path.write_text(text, encoding="utf-8-sig")  # a spreadsheet reads Cyrillic right
    except OSError as exc:
        raise VoicehostError(f"cannot write {path}: {exc.strerror}") from exc


def run_import(args: argparse.Namespace) -> int:
    from voicehost.club.importer import import_folder
    from voicehost.club.outbox import why
    from voicehost.config import load

    settings = load(args.config)
    book = _book(settings)
    result = import_folder(settings, args.folder)
    for line in result.skipped:
        print(f"  ✗ {line}")
    print(
        book.screen(
            "club_imported",
            {
                "found": result.found,
                "new": len(result.sent.recorded),
                "already": len(result.sent.already),
            },
        )
    )
    if result.sent.waiting:
        print(
            book.screen(
                "club_outbox_waiting",
                {
                    "count": result.sent.waiting,
                    "reason": why(book, result.sent),
                    "command": invocation(settings),
                },
            )
        )
    return 0


def run_sync(args: argparse.Namespace) -> int:
    from voicehost.club import records
    from voicehost.club.outbox import why
    from voicehost.config import load

    settings = load(args.config)
    book = _book(settings)
    records.catch_up(settings)
    sent = records.send_outbox(settings)
    print(
        book.screen(
            "club_synced",
            {"new": len(sent.recorded), "already": len(sent.already), "waiting": sent.waiting},
        )
    )
    if sent.waiting:
        print(
            book.screen(
                "club_outbox_waiting",
                {"count": sent.waiting, "reason": why(book, sent), "command": invocation(settings)},
            )
        )
        return 1
    return 0


def run_rename(args: argparse.Namespace) -> int:
    """A person of the club shown under another name from now on (the old one kept as theirs);
    with ``--merge``, two people of the club made one."""
    from shlex import quote

    from voicehost.club import records
    from voicehost.club.db import RenameRefused
    from voicehost.config import load
    from voicehost.host.names import clean

    settings = load(args.config)
    book = _book(settings)
    old, new = clean(args.old), clean(args.new)
    if not old or not new:
        print(book.screen("club_rename_empty"))
        return 1
    records.catch_up(settings)
    records.send_outbox(settings)  # the games waiting are renamed with the rest
    database = records.connect(settings)
    try:
        renamed = database.rename(old, new, merge=args.merge)
    except RenameRefused as refused:
        if refused.code == "other":
            command = f"{invocation(settings)} club rename {quote(old)} {quote(new)} --merge"
        else:
            command = f"{invocation(settings)} club standings"
        print(book.screen(f"club_rename_{refused.code}", {**refused.params, "command": command}))
        return 1
    aliases = ", ".join(renamed.aliases) or "—"
    params = {"old": old, "name": renamed.name, "games": renamed.games, "aliases": aliases}
    print(book.screen("club_renamed", params))
    return 0
