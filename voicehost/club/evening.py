"""The evening: games played in a row at one table, with their running table of points.

Kept in ``evening.json`` in the club's data folder (owner-only, written whole): the evening's
id, when it began, and a summary of each game recorded in it (who sat where, who won, the
points), so that the evening's table needs no server. The names of its last game carry over
to the next one.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicehost.club.facts import GameFacts
from voicehost.club.files import write_whole
from voicehost.host.names import key as name_key

FILE = "evening.json"


@dataclass(frozen=True)
class EveningLine:
    """One player's line of the evening's table."""

    name: str
    games: int
    wins: int
    points: float
    best_player: int


def path_in(folder: Path) -> Path:
    return folder / FILE


def current(folder: Path) -> dict[str, Any] | None:
    """The open evening, or None."""
    try:
        data = json.loads(path_in(folder).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("open") else None


def _save(folder: Path, data: dict[str, Any]) -> None:
    write_whole(path_in(folder), json.dumps(data, ensure_ascii=False, indent=1).encode())


def start(folder: Path, table: str, season: str) -> dict[str, Any]:
    """Open a new evening (an open one is closed first)."""
    now = time.strftime("%Y-%m-%dT%H:%M:%S")
    data = {
        "open": True,
        "id": f"{now[:10]}-{uuid.uuid4().hex[:8]}",
        "started": now,
        "table": table,
        "season": season,
        "games": [],
        "names": {},
    }
    _save(folder, data)
    return data


def started_today(data: dict[str, Any]) -> bool:
    """Whether the evening was started today (its id begins with the day: :func:`start`)."""
    return str(data["id"]).startswith(time.strftime("%Y-%m-%d"))


def end(folder: Path) -> dict[str, Any] | None:
    """Close the open evening; returns it (None when none was open)."""
    data = current(folder)
    if data is None:
        return None
    data["open"] = False
    data["ended"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    _save(folder, data)
    return data


def add_game(folder: Path, facts: GameFacts) -> None:
    """Note a recorded game in the open evening (once: its id is checked)."""
    data = current(folder)
    if data is None or data.get("id") != facts["evening"]:
        return
    if any(game.get("id") == facts["id"] for game in data["games"]):
        return
    summary: dict[str, Any] = {
        "id": facts["id"],
        "finished": facts["finished"],
        "winner": facts["winner"],
        "preset": facts["preset"],
        "seats": facts["seats"],
    }
    data["games"].append(summary)
    data["names"] = {str(s["seat"]): s["name"] for s in facts["seats"] if s["name"]}
    _save(folder, data)


def carried_names(folder: Path) -> dict[str, str]:
    """The names of the open evening's last game (seat key -> name)."""
    data = current(folder)
    names = data.get("names") if data else None
    return dict(names) if isinstance(names, dict) else {}


def person_of(known: dict[str, int], name: str, aliases: list[str], finals: set[str]) -> int:
    """The person a seat's name is, by the names seen so far (name key -> person, updated): the
    name's own person; else, for a player renamed in the game, the person of an earlier name
    (the latest first); else a new one. An earlier name becomes theirs only then, and never
    when it is another seat's name in the game (``finals``): a rename never joins two people
    already known, nor two names swapped."""
    person = known.get(name_key(name))
    if person is not None:
        return person
    aliases = [alias for alias in aliases if name_key(alias) not in finals]
    earlier = (known.get(name_key(alias)) for alias in reversed(aliases))
    person = next((found for found in earlier if found is not None), None)
    if person is None:
        person = len(set(known.values()))
    known[name_key(name)] = person
    for alias in aliases:
        known.setdefault(name_key(alias), person)
    return person


def table_of(data: dict[str, Any]) -> list[EveningLine]:
    """The evening's table: per person (a player renamed in a game is one), points, games,
    wins, best-player marks, under the name first written or the one a rename gave; best
    first."""
    known: dict[str, int] = {}
    totals: dict[int, dict[str, Any]] = {}
    for game in data.get("games", []):
        named = [seat for seat in game.get("seats", []) if seat.get("name")]
        finals = {name_key(seat["name"]) for seat in named}
        for seat in named:
            aliases = [alias for alias in seat.get("aliases") or [] if isinstance(alias, str)]
            line = totals.setdefault(
                person_of(known, seat["name"], aliases, finals),
                {"name": seat["name"], "games": 0, "wins": 0, "points": 0.0, "best": 0},
            )
            if aliases:  # renamed in this game: shown under the new name from now on
                line["name"] = seat["name"]
            line["games"] += 1
            line["wins"] += 1 if seat.get("won") else 0
            line["points"] += float(seat.get("points", 0.0))
            line["best"] += 1 if seat.get("best_player") else 0
    lines = [
        EveningLine(t["name"], t["games"], t["wins"], round(t["points"], 4), t["best"])
        for t in totals.values()
    ]
    lines.sort(key=lambda line: (-line.points, -line.wins, line.name.casefold()))
    return lines
