"""The game's record as typed data: what the protocol is built from, kept in ``GameState``.

These are the JSON shapes of the protocol file too. JSON objects have string keys, so a map keyed
by seat (``roles``, ``nominations``, ``counts``) spells the seat as digits there, and only there:
``seat_key`` writes such a key and ``seat_of_key`` reads it back.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from voicehost.game.model import Seat


def seat_key(seat: Seat) -> str:
    """The key of ``seat`` in a JSON object keyed by seat."""
    return str(seat)


def seat_of_key(key: str) -> Seat:
    """The seat a JSON key written by ``seat_key`` names."""
    return Seat(int(key))


class Departure(TypedDict):
    seat: Seat
    role: str | None
    how: str  # "vote", "kill", "disqualified" or (FIIM) "removed"
    day: int
    night: int
    phase: str


class FoulRecord(TypedDict):
    seat: Seat
    day: int
    night: int
    phase: str
    count: int
    disqualified: bool


class VoteRound(TypedDict):
    round: int
    counts: dict[str, int]  # seat_key -> masks raised
    # the seat whose disqualification stopped this count and started the vote again
    interrupted_by: NotRequired[Seat]


class ThirdVote(TypedDict):
    candidates: list[Seat]
    votes_for: int | None
    voters: int | None
    outcome: str  # "all_leave" or "all_stay"
    four_players: bool


class DayRecord(TypedDict):
    day: int
    nominations: dict[str, list[Seat]]  # seat_key of the speaker -> the seats they nominated
    candidates: list[Seat]
    votes: list[VoteRound]
    third_vote: ThirdVote | None
    left: list[Seat]
    vote_cancelled: NotRequired[bool]  # FIIM: a removal cancelled this day's vote (MR 9.8)


class NightRecord(TypedDict):
    night: int
    disqualified: list[Seat]
    shot: NotRequired[Seat | None]
    check: NotRequired[Seat | None]
    check_found_mafia: NotRequired[bool | None]
    check_announced: NotRequired[bool]
    heal: NotRequired[Seat | None]
    saved: NotRequired[bool]
    killed: NotRequired[Seat | None]
    ended_by_win: NotRequired[bool]
    # FIIM: each black player's shot (seat_key of the shooter -> the seat, None: no shot)
    shots: NotRequired[dict[str, Seat | None]]
    don_check: NotRequired[Seat | None]
    don_found_sheriff: NotRequired[bool | None]
    sheriff_check: NotRequired[Seat | None]
    sheriff_found_black: NotRequired[bool | None]
    # city Mafia: each role's visit, check and kill (role -> seat; None: no shot) and every death
    blocks: NotRequired[dict[str, Seat]]
    checks: NotRequired[dict[str, Seat]]
    kills: NotRequired[dict[str, Seat | None]]
    killed_all: NotRequired[list[Seat]]


class BestMove(TypedDict):
    """FIIM (MR 8.17.1): the first night's victim names three seats they believe black."""

    seat: Seat
    seats: list[Seat]
    black: int  # how many of the three are black


class TeamLossRecord(TypedDict):
    """FIIM (MR 10.21 to 10.24): the referee gave the team of ``seat`` the loss."""

    seat: Seat
    team: str  # the team that lost: "red" or "black"
    day: int
    night: int
    phase: str


class ScoreLine(TypedDict):
    """FIIM: one seat's points by line (docs/RULES-FIIM.md section 11); extra comes later."""

    seat: Seat
    win: float
    best_move: float
    penalty: float


class GameRecord(TypedDict):
    players: int
    mafia_count: int
    roles: dict[str, str]  # seat_key -> role, once night 0 is over
    days: list[DayRecord]
    nights: list[NightRecord]
    fouls: list[FoulRecord]
    departures: list[Departure]
    winner: str | None  # "red", "black", or (FIIM) "draw"
    # FIIM only, so that a club game's protocol stays as it was
    preset: NotRequired[str]
    best_move: NotRequired[BestMove | None]
    team_loss: NotRequired[TeamLossRecord]
    scores: NotRequired[list[ScoreLine]]
    # a game by a club's own rule set file: the file's text, so that whoever reads the finished
    # game (the protocol, the club's scores) knows each card's team by the rules it was played by
    ruleset: NotRequired[str]


def new_record(players: int, mafia_count: int) -> GameRecord:
    """The record of a game that has just begun."""
    return GameRecord(
        players=players,
        mafia_count=mafia_count,
        roles={},
        days=[],
        nights=[],
        fouls=[],
        departures=[],
        winner=None,
    )
