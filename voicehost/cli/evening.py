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
                    "club_outbox_waiting",
                    {
                        "count": sent.waiting,
                        "reason": why(book, sent),
                        "command": invocation(settings),
                    },
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
    command = invocation(settings)
    if action == "start":
        lines = []
        before = evening.current(folder)
        games = len(before.get("games", [])) if before is not None else 0
        if before is not None and games and not new and evening.started_today(before):
            still_on = {"id": before["id"], "games": games, "command": command}
            return False, str(book.screen("evening_still_on", still_on))
        if before is not None:
            lines.append(book.screen("evening_closed_before", {"id": before["id"]}))
        started = evening.start(
            folder, records.table_name(settings), settings.club.season or started_year()
        )
        lines.append(
            book.screen(
                "evening_started",
                {"id": started["id"], "table": started["table"], "command": command},
            )
        )
        elsewhere = _open_elsewhere(settings, book)
        if elsewhere:
            lines.append(elsewhere)
        return True, "\n".join(lines)
    current = evening.current(folder)
    if current is None:
        return False, _open_elsewhere(settings, book) or str(
            book.screen("evening_none", {"command": command})
        )
    if action == "end":
        current = evening.end(folder) or current
    return True, evening_report(current, book, ended=action == "end")


def invocation(settings: Any) -> str:
    """``voicehost`` with the options every command of this table needs (``--config FILE`` when
    the settings are not voicehost's own config.yaml): the start of each hint's command."""
    import shlex

    if settings.config_file:
        return f"voicehost --config {shlex.quote(settings.config_file)}"
    return "voicehost"


def _open_elsewhere(settings: Any, book: Any) -> str:
    """When ``settings`` keep a club apart (``club.data_dir``) and the club's shared folder has
    an evening open: that its games do not go there, and what to change; else ""."""
    from voicehost.club import evening, home, records

    if not home.separate(settings):
        return ""
    shared = evening.current(home.shared())
    if shared is None:
        return ""
    params = {
        "id": shared["id"],
        "shared": home.shared(),
        "folder": records.data_dir(settings),
        "config": settings.config_file or "config.yaml",
    }
    return str(book.screen("evening_elsewhere", params))


def game_word(settings: Any, book: Any, evening_id: str | None) -> str:
    """What the screen says as a game starts: the evening it counts in, or why it counts in
    none (no evening open; one open in the club's shared folder while these settings keep a
    club apart)."""
    from voicehost.club import evening, records

    current = evening.current(records.data_dir(settings))
    if evening_id is not None and current is not None and current.get("id") == evening_id:
        games = len(current.get("games", []))
        return str(book.screen("evening_game_counts", {"id": evening_id, "games": games}))
    elsewhere = _open_elsewhere(settings, book)
    if elsewhere:
        return elsewhere
    if current is not None:  # begun before this evening was started
        return str(book.screen("evening_game_before", {"id": current["id"]}))
    return str(book.screen("evening_game_outside", {"command": invocation(settings)}))


def script_word(settings: Any, book: Any) -> str:
    """After a scripted game while an evening is open: that the game is not counted, and why;
    else ""."""
    from voicehost.club import evening, records

    current = evening.current(records.data_dir(settings))
    if current is None:
        return ""
    params = {"id": current["id"], "command": invocation(settings)}
    return str(book.screen("evening_script_not_counted", params))


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


def carried_to(
    settings: Any, book: Any, players: int, stdin: Any, out: Any = None
) -> dict[Any, str]:
    """The names the open evening's last game carries to a new game at a table of ``players``.
    When that game had seats this table has not, the host is asked at the terminal who is not
    here (nobody is dropped unasked); without a terminal the game starts without them and the
    screen says why and how to give names."""
    import sys

    from voicehost.club import evening, records
    from voicehost.host.names import NameRefused, at_smaller_table, beyond, from_record

    out = out or sys.stdout
    last = from_record(evening.carried_names(records.data_dir(settings)), MAX_SEATS)
    if not beyond(last, players):
        return dict(last)
    listed = ", ".join(f"{seat} {name}" for seat, name in sorted(last.items()))
    more = len(last) - players
    params = {"count": len(last), "names": listed, "players": players, "more": more}
    print(book.screen("roster_smaller", params), file=out)
    if more <= 0:  # everyone has a seat: the free ones take the players of the seats gone
        return _seated(book, at_smaller_table(last, players, []), out)
    if not stdin.isatty():
        print(book.screen("roster_smaller_no_terminal", params), file=out)
        return {}
    while True:
        print(book.screen("roster_smaller_question", params), end="", file=out, flush=True)
        line = stdin.readline()
        if not line.strip():  # Enter, or the terminal closed: no one is guessed at
            print(book.screen("roster_smaller_none"), file=out)
            return {}
        away, wrong = _seats_in(line, last)
        problem = None
        if wrong is not None:
            seats = " ".join(str(seat) for seat in sorted(last))
            problem = book.screen("roster_smaller_not_listed", {"word": wrong, "seats": seats})
        else:
            try:
                seated = at_smaller_table(last, players, away)
            except NameRefused as refused:
                problem = refused.in_words(book)
            else:
                return _seated(book, seated, out)
        print(f"✗ {problem}", file=out)


def _seated(book: Any, seated: dict[Any, str], out: Any) -> dict[Any, str]:
    """The new game's seating, shown before it starts."""
    shown = ", ".join(f"{seat} {name}" for seat, name in seated.items())
    print(book.screen("roster_smaller_seated", {"names": shown or "—"}), file=out)
    return dict(seated)


#: The most seats a table of any rule set has (names read back from an evening's last game).
MAX_SEATS = 99


def _seats_in(line: str, last: Any) -> tuple[list[int], str | None]:
    """The seats a host typed as not here (numbers of the last game's named seats), or the
    first word that is none of them."""
    from voicehost.host.actions import number_of

    seats: list[int] = []
    for word in line.replace(",", " ").split():
        seat = number_of(word)
        if seat is None or seat not in last:
            return [], word
        seats.append(seat)
    return seats, None
