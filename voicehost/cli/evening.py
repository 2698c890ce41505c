"""`voicehost evening start|status|end`: the games played in a row at this table belong to the
evening; its table (points, games, wins per player) is shown after each game and here."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    from voicehost.cli.texts import text

    parser = subparsers.add_parser(
        "evening", help=text("evening"), description=text("evening.description")
    )
    parser.add_argument("action", choices=("start", "status", "end"), help=text("evening.action"))
    parser.add_argument("--new", action="store_true", help=text("evening.new"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from voicehost.club import records
    from voicehost.club.outbox import why
    from voicehost.config import load
    from voicehost.phrases import PhraseBook

    settings = load(args.config)
    book = PhraseBook.load(settings.language)
    records.catch_up(settings)
    ok, text = evening_action(settings, book, args.action, new=args.new)
    print(text)
    if not ok:
        return 0 if args.action == "status" else 1
    if args.action != "start":
        sent = records.send_outbox(settings)
        if sent.waiting:
            print(
                book.screen(
                    "club_outbox_waiting", {"count": sent.waiting, "reason": why(book, sent)}
                )
            )
    return 0


def evening_action(settings: Any, book: Any, action: str, *, new: bool = False) -> tuple[bool, str]:
    """Start, show or end the evening (``start``, ``status``, ``end``): whether there was an
    evening to show or end (or, to start, whether one was started), and what to tell the host.
    An evening started today with games in it is not closed by another start unless ``new``
    (a second «start» typed by mistake would split the evening's table in two). The CLI and the
    host's remote both ask this; it reads and writes the evening's file only (a server is never
    waited for here)."""
    from voicehost.club import evening, records

    folder = records.data_dir(settings)
    if action == "start":
        lines = []
        before = evening.current(folder)
        games = len(before.get("games", [])) if before is not None else 0
        if before is not None and games and not new and evening.started_today(before):
            return False, str(book.screen("evening_still_on", {"id": before["id"], "games": games}))
        if before is not None:
            lines.append(book.screen("evening_closed_before", {"id": before["id"]}))
        started = evening.start(
            folder, records.table_name(settings), settings.club.season or started_year()
        )
        lines.append(
            book.screen("evening_started", {"id": started["id"], "table": started["table"]})
        )
        return True, "\n".join(lines)
    current = evening.current(folder)
    if current is None:
        return False, str(book.screen("evening_none"))
    if action == "end":
        current = evening.end(folder) or current
    return True, evening_report(current, book, ended=action == "end")


def started_year() -> str:
    import time

    return time.strftime("%Y")


def evening_report(current: dict[str, Any], book: Any, *, ended: bool = False) -> str:
    """The evening's heading and table, in the game's language."""
    from voicehost.club import evening, standings

    def say(key: str, **params: Any) -> str:
        return str(book.screen(f"club_{key}", params))

    games = current.get("games", [])
    key = "evening_ended" if ended else "evening_heading"
    lines = [book.screen(key, {"id": current["id"], "games": len(games)})]
    rows = evening.table_of(current)
    if rows:
        lines.append(standings.evening_table(rows, say))
    elif games:
        lines.append(book.screen("evening_no_names"))
    return "\n".join(lines)
