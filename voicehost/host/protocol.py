"""The game's protocol: roles, each day and night, fouls and the winner, as JSON and a table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from voicehost.errors import VoicehostError
from voicehost.game.state import GameState
from voicehost.host import storage

ROLE_NAMES = {
    "civilian": "civilian",
    "mafia": "MAFIA",
    "commissar": "commissar",
    "doctor": "doctor",
}


def build(state: GameState) -> dict[str, Any]:
    """The protocol as plain data (stable keys, JSON-ready)."""
    record = state.record
    seats = []
    for seat, player in sorted(state.players.items()):
        seats.append(
            {
                "seat": seat,
                "role": player.role.value if player.role else None,
                "fouls": player.fouls,
                "at_table": player.alive,
                "left": player.left_how,
            }
        )
    return {
        "players": record["players"],
        "mafia_count": record["mafia_count"],
        "seats": seats,
        "days": record["days"],
        "nights": record["nights"],
        "fouls": record["fouls"],
        "departures": record["departures"],
        "winner": record["winner"],
    }


def to_json(protocol: dict[str, Any]) -> str:
    return json.dumps(protocol, ensure_ascii=False, indent=2)


def _seats(values: Any) -> str:
    return ", ".join(str(v) for v in values) if values else "—"


def to_table(protocol: dict[str, Any]) -> str:
    """A readable protocol for a club's records."""
    lines = [f"Protocol: {protocol['players']} players, {protocol['mafia_count']} mafia"]
    lines.append("")
    lines.append("Seat  Role        Fouls  Result")
    for seat in protocol["seats"]:
        role = ROLE_NAMES.get(seat["role"] or "", "?")
        result = "at the table" if seat["at_table"] else f"left ({seat['left']})"
        lines.append(f"{seat['seat']:>4}  {role:<10}  {seat['fouls']:>5}  {result}")
    nights = {night["night"]: night for night in protocol["nights"]}
    days = {day["day"]: day for day in protocol["days"]}
    for number in range(0, max([*nights, *days, 0]) + 1):
        if number in days:
            lines.extend(_day_lines(days[number]))
        if number in nights:  # night N follows day N (night 0 comes first)
            lines.extend(_night_lines(nights[number]))
    if protocol["fouls"]:
        lines.append("")
        lines.append("Fouls")
        for foul in protocol["fouls"]:
            when = (
                f"night {foul['night']}"
                if foul["phase"].startswith("night")
                else f"day {foul['day']}"
            )
            extra = ", disqualified" if foul["disqualified"] else ""
            lines.append(f"  seat {foul['seat']}: foul {foul['count']} ({when}){extra}")
    lines.append("")
    winner = protocol["winner"]
    lines.append(
        f"Winner: {'red (town)' if winner == 'red' else 'black (mafia)' if winner else '—'}"
    )
    return "\n".join(lines)


def _night_lines(night: dict[str, Any]) -> list[str]:
    lines = ["", f"Night {night['night']}"]
    if night["night"] == 0:
        lines.append("  roles registered")
    else:
        shot = night.get("shot")
        lines.append(f"  shot: {shot if shot is not None else 'miss'}")
        check = night.get("check")
        if check is not None:
            verdict = "mafia" if night.get("check_found_mafia") else "not mafia"
            lines.append(f"  check: {check} ({verdict})")
        else:
            lines.append("  check: —")
        lines.append(f"  heal: {night.get('heal') if night.get('heal') is not None else '—'}")
        if night.get("saved"):
            lines.append("  the Doctor saved the target")
        if night.get("killed") is not None:
            lines.append(f"  killed: {night['killed']}")
    if night.get("disqualified"):
        lines.append(f"  disqualified: {_seats(night['disqualified'])}")
    return lines


def _day_lines(day: dict[str, Any]) -> list[str]:
    lines = ["", f"Day {day['day']}"]
    for nominator, nominees in sorted(day["nominations"].items(), key=lambda i: int(i[0])):
        lines.append(f"  {nominator} nominates {_seats(nominees)}")
    lines.append(f"  candidates: {_seats(day['candidates'])}")
    for vote in day["votes"]:
        counts = ", ".join(f"{seat}: {count}" for seat, count in vote["counts"].items())
        label = "vote" if vote["round"] == 1 else "revote"
        lines.append(f"  {label}: {counts}")
    third = day.get("third_vote")
    if third:
        if third.get("four_players"):
            lines.append("  third vote skipped (4 players): all stay")
        else:
            lines.append(
                f"  third vote: {third['votes_for']} of {third['voters']} for 'all leave' -> "
                f"{third['outcome'].replace('_', ' ')}"
            )
    lines.append(f"  left by vote: {_seats(day['left'])}")
    return lines


class ProtocolError(VoicehostError):
    """The protocol cannot be written; the text says where and why."""


def write(protocol: dict[str, Any], directory: Path, stem: str) -> tuple[Path, Path]:
    """Write ``stem.json`` and ``stem.txt`` (owner-only, in an owner-only folder: they hold the
    roles). A folder that is read-only, missing or full raises ProtocolError saying so."""
    json_path = directory / f"{stem}.json"
    text_path = directory / f"{stem}.txt"
    try:
        storage.private_folder(directory)
        for path, text in ((json_path, to_json(protocol)), (text_path, to_table(protocol))):
            storage.write_private(path, (text + "\n").encode("utf-8"))
    except OSError as exc:
        raise ProtocolError(
            f"cannot write the protocol to {directory}: {storage.reason(exc)}; free some space "
            "or fix the folder and write it again (`protocol`, or `voicehost protocol JOURNAL`)"
        ) from exc
    return json_path, text_path
