"""A finished game as the club records it: who sat where, their roles, who won, the marks, the
points by the club's scoring, and who voted for whom. Pure data, JSON-ready: the outbox keeps
it as a file and the database as rows; the same game always has the same ``id``.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from voicehost.config import Settings
from voicehost.errors import VoicehostError
from voicehost.game.model import Role, Team
from voicehost.game.ruleset import RuleSet
from voicehost.game.state import GameState
from voicehost.host import protocol as protocol_module
from voicehost.host.journal import effective_entries, names_in, read, renames_in
from voicehost.host.names import clean, from_record
from voicehost.host.replay import replay_journal
from voicehost.host.votes import voter_lines, voters_in
from voicehost.rulesets import recorded_ruleset

#: The teams a game can be won by: the town, the mafia, and the city's Maniac, who plays alone.
TEAMS = tuple(team.value for team in Team)


class Mark(TypedDict):
    """Points the host gives a player after a game (extra: the referee's; penalty: a fine)."""

    seat: int
    points: float
    comment: str


class Marks(TypedDict):
    """The end-of-game marks (``club.marks``)."""

    best_player: int | None
    best_move: int | None
    extra: list[Mark]
    penalty: list[Mark]


def no_marks() -> Marks:
    return Marks(best_player=None, best_move=None, extra=[], penalty=[])


class SeatFacts(TypedDict):
    seat: int
    name: str | None
    role: str | None
    team: str | None
    won: bool
    left: str | None
    fouls: int
    best_player: bool
    best_move: bool
    extra: float
    penalty: float
    points: float
    aliases: NotRequired[list[str]]  # the player's earlier names in this game (a rename)


class VoteFact(TypedDict):
    day: int
    round: int
    candidate: int
    voter: int


class GameFacts(TypedDict):
    id: str
    table: str
    evening: str | None
    season: str
    started: str
    finished: str
    preset: str
    players: int
    winner: str | None
    seats: list[SeatFacts]
    votes: list[VoteFact]
    protocol: NotRequired[dict[str, Any]]


def team_of(role: str | None, ruleset: RuleSet) -> str | None:
    """The team of a card by the rules the game was played by (``RuleSet.team``); None for a
    card not known (no card, or a word no rule set has)."""
    if role is None:
        return None
    try:
        card = Role(role)
    except ValueError:
        return None
    return ruleset.team(card).value


def points_for(
    seat: protocol_module.SeatLine,
    winner: str | None,
    scoring: Mapping[str, float],
    marks: Marks,
    game_lines: Mapping[int, protocol_module.Score],
    ruleset: RuleSet,
) -> tuple[bool, float, float, float]:
    """(won, extra, penalty, points) of one seat by the club's scoring table; the seat's team
    is its card's in ``ruleset``, the rules the game was played by."""
    number = seat["seat"]
    team = team_of(seat["role"], ruleset)
    won = team is not None and winner == team
    total = 0.0
    if won:
        total += scoring[f"win_{team}"] + scoring.get(f"win_role_{seat['role']}", 0.0)
    elif winner in TEAMS:
        total += scoring["loss"]
    if marks["best_player"] == number:
        total += scoring["best_player"]
    if marks["best_move"] == number:
        total += scoring["best_move"]
    if seat["left"] in ("disqualified", "removed"):
        total += scoring["disqualified"]
    line = game_lines.get(number)
    if line is not None:
        total += scoring["game_score_lines"] * (line["best_move"] + line["penalty"])
    extra = sum(mark["points"] for mark in marks["extra"] if mark["seat"] == number)
    penalty = sum(
        mark["points"] if mark["points"] else scoring["penalty"]
        for mark in marks["penalty"]
        if mark["seat"] == number
    )
    return won, extra, penalty, round(total + extra + penalty, 4)


def game_id(path: Path) -> str:
    """The same game gives the same id wherever it is read (the table's journal, a copy on a USB
    stick): a hash of the journal's header and of the inputs that stand."""
    header, entries = read(path)
    kept = [
        {"input": _event_json(entry.event), "source": entry.source}
        for entry in effective_entries(entries)
        if entry.event is not None
    ]
    names = names_in(path)
    canonical = json.dumps(
        {"header": header, "inputs": kept, "names": names}, sort_keys=True, ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


def _event_json(event: Any) -> dict[str, Any]:
    from voicehost.game.inputs import to_json

    return to_json(event)


def season_of(settings: Settings, started: str) -> str:
    return settings.club.season or started[:4]


def from_journal(
    settings: Settings,
    path: Path,
    *,
    table: str,
    evening: str | None = None,
    marks: Marks | None = None,
    extra_points: list[protocol_module.ExtraPoints] | None = None,
    state: GameState | None = None,
) -> GameFacts:
    """The facts of the finished game in the journal at ``path``; raises VoicehostError for a
    game that has not ended (nothing to record yet). ``state``: the game as the live host has
    it (the same as the journal's replay, without its cost)."""
    if state is None:
        state = replay_journal(settings, path).state
    header, _ = read(path)
    players = state.record["players"]
    names = from_record(names_in(path), players)
    data = protocol_module.build(state, extra_points, names, voters_in(path))
    if data["winner"] is None:
        raise VoicehostError(f"{path}: the game has not ended; finish it first (voicehost resume)")
    started = str(header.get("started", ""))[:19] or time.strftime("%Y-%m-%dT%H:%M:%S")
    finished = _finished(path)
    votes = [
        VoteFact(day=day, round=round_, candidate=candidate, voter=voter)
        for day, round_, candidate, voter in voter_lines(path)
    ]
    return build(
        settings,
        data,
        identity=game_id(path),
        table=table,
        evening=evening,
        started=started,
        finished=finished,
        marks=marks,
        votes=votes,
        aliases={int(seat): names for seat, names in renames_in(path).items() if seat.isdigit()},
    )


def _finished(path: Path) -> str:
    try:
        stamp = path.stat().st_mtime
    except OSError:
        stamp = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(stamp))


def build(
    settings: Settings,
    data: protocol_module.ProtocolRecord,
    *,
    identity: str,
    table: str,
    evening: str | None,
    started: str,
    finished: str,
    marks: Marks | None = None,
    votes: list[VoteFact] | None = None,
    aliases: Mapping[int, list[str]] | None = None,
) -> GameFacts:
    """Facts from a protocol and what the host knows beside it; each card's team is the one of
    the rule set the protocol keeps (its preset, or a club's own file's text). ``aliases``: the
    earlier names of a seat's player renamed during the game."""
    marks = marks or no_marks()
    ruleset = recorded_ruleset(data)
    scoring = settings.scoring.table()
    lines: dict[int, protocol_module.Score] = {
        score["seat"]: score for score in data.get("scores") or []
    }
    seats: list[SeatFacts] = []
    for line in data["seats"]:
        won, extra, penalty, points = points_for(
            line, data["winner"], scoring, marks, lines, ruleset
        )
        name = clean(line.get("name", "")) or None
        seat = SeatFacts(
            seat=line["seat"], name=name, role=line["role"],
            team=team_of(line["role"], ruleset), won=won,
            left=line["left"], fouls=line["fouls"],
            best_player=marks["best_player"] == line["seat"],
            best_move=marks["best_move"] == line["seat"],
            extra=extra, penalty=penalty, points=points,
        )  # fmt: skip
        earlier = [clean(old) for old in (aliases or {}).get(line["seat"], []) if clean(old)]
        if name and earlier:
            seat["aliases"] = earlier
        seats.append(seat)
    return GameFacts(
        id=identity,
        table=clean(table) or "table",
        evening=evening,
        season=clean(season_of(settings, started)) or started[:4],
        started=started,
        finished=finished,
        preset=data.get("preset", "club"),
        players=data["players"],
        winner=data["winner"],
        seats=seats,
        votes=votes or [],
        protocol=dict(data),
    )


def protocol_identity(data: Mapping[str, Any]) -> str:
    """The id of a game known only by its protocol (imported without its journal)."""
    canonical = json.dumps(data, sort_keys=True, ensure_ascii=False)
    return "p" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:31]
