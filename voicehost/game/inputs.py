"""Inputs: everything that can happen to a game. A game is its list of inputs.

Each input is a frozen dataclass with a ``kind`` tag, so that the journal can write it as one
JSON object and read it back (``to_json`` / ``from_json``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from voicehost.game.errors import BadRecord
from voicehost.game.model import Seat


@dataclass(frozen=True)
class EnterSeats:
    """Seats entered for the current question: role registration, nominations, a night choice."""

    seats: tuple[Seat, ...]
    kind: ClassVar[str] = "seats"


@dataclass(frozen=True)
class Miss:
    """The mafia's entry for "no shot" (an explicit miss)."""

    kind: ClassVar[str] = "miss"


@dataclass(frozen=True)
class VoteCount:
    """The number of raised masks in the current vote."""

    count: int
    kind: ClassVar[str] = "votes"


@dataclass(frozen=True)
class EndSpeech:
    """The speaker said «спасибо» / «пас», or the host ended the speech from a key."""

    kind: ClassVar[str] = "end_speech"


@dataclass(frozen=True)
class TimerWarning:
    """A running timer reached its warning moment."""

    timer_id: int
    kind: ClassVar[str] = "timer_warning"


@dataclass(frozen=True)
class TimeUp:
    """A running timer ran out."""

    timer_id: int
    kind: ClassVar[str] = "time_up"


@dataclass(frozen=True)
class Foul:
    """The host records a foul (a warning) against a seat."""

    seat: Seat
    kind: ClassVar[str] = "foul"


@dataclass(frozen=True)
class Remove:
    """The referee removes a player at once for one of the gravest faults (FIIM, MR 10.11 to
    10.20), without the fouls that lead up to it."""

    seat: Seat
    kind: ClassVar[str] = "remove"


@dataclass(frozen=True)
class TeamLoss:
    """The referee gives the team of ``seat`` the loss for one of the faults that cost a whole
    team the game (FIIM, MR 10.21 to 10.24): the game ends at once. It ends the evening's game,
    so the referee confirms it in the same entry (``confirmed``); unconfirmed, it is refused
    with a message saying how to confirm."""

    seat: Seat
    confirmed: bool = False
    kind: ClassVar[str] = "team_loss"


Input = EnterSeats | Miss | VoteCount | EndSpeech | TimerWarning | TimeUp | Foul | Remove | TeamLoss

INPUT_TYPES: dict[str, type[Any]] = {
    cls.kind: cls
    for cls in (
        EnterSeats, Miss, VoteCount, EndSpeech, TimerWarning, TimeUp, Foul, Remove, TeamLoss
    )
}  # fmt: skip

#: Inputs a person typed; ``undo`` takes back the last of these.
UNDOABLE = (EnterSeats, Miss, VoteCount, Foul, Remove, TeamLoss)


def drop_last_undoable(items: list[Any], event_of: Callable[[Any], Input | None]) -> None:
    """Remove the last item whose input ``undo`` takes back (the live host and the journal's
    replay both use this, so an undo means the same thing in both)."""
    for index in range(len(items) - 1, -1, -1):
        if isinstance(event_of(items[index]), UNDOABLE):
            del items[index]
            return


def to_json(event: Input) -> dict[str, Any]:
    """The journal's form of an input."""
    data = asdict(event)
    if isinstance(event, EnterSeats):
        data["seats"] = list(event.seats)
    return {"kind": event.kind, **data}


def from_json(data: Any) -> Input:
    """Read an input back from its journal form; raises BadRecord saying what is wrong."""
    if not isinstance(data, dict):
        raise BadRecord(f"the input is {data!r}, not a record with a kind")
    fields = dict(data)
    kind = fields.pop("kind", None)
    cls = INPUT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise BadRecord(f"unknown input kind {kind!r}")
    if cls is EndSpeech:
        fields.pop("source", None)  # earlier versions said here who ended it; the line says now
    if cls is EnterSeats:
        seats = fields.get("seats", ())
        if not isinstance(seats, list) or not all(_whole(seat) for seat in seats):
            raise BadRecord(f"seats is {seats!r}; it must be a list of seat numbers")
        fields["seats"] = tuple(seats)
    known = {spec.name for spec in dataclasses.fields(cls)}
    for name, value in fields.items():
        if name not in known:
            raise BadRecord(f"a {kind} input has no field {name!r} (a newer voicehost's journal?)")
        expected = _FIELD_KINDS.get(name)
        if expected is int and not _whole(value):
            raise BadRecord(f"{kind}.{name} is {value!r}; it must be a whole number")
        if expected is str and not isinstance(value, str):
            raise BadRecord(f"{kind}.{name} is {value!r}; it must be text")
        if expected is bool and not isinstance(value, bool):
            raise BadRecord(f"{kind}.{name} is {value!r}; it must be true or false")
    try:
        event: Input = cls(**fields)
    except TypeError as exc:
        raise BadRecord(f"a {kind} input lacks a field: {exc}") from exc
    return event


#: The type each recorded field must have (EnterSeats.seats is checked on its own).
_FIELD_KINDS: dict[str, type] = {
    "count": int, "timer_id": int, "seat": int, "source": str, "confirmed": bool
}  # fmt: skip


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
