"""Who raised their mask against whom, as clubs record it (`3: 1 4 6 9`).

The count is the rules' business (the engine takes ``VoteCount``); the voters are the host's:
the host checks them against the table (each voter is at the table, votes once a round, and
never against themselves) and, once the count the list makes is accepted, journals a
``{"voters": {...}}`` line right after it. An undo takes the count back and its voters with it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicehost.game.errors import BadRecord
from voicehost.game.inputs import UNDOABLE, from_json


@dataclass(frozen=True)
class VoterList:
    """The seats that voted against ``candidate`` in round ``round`` of day ``day``."""

    day: int
    round: int
    candidate: int
    voters: tuple[int, ...]

    def record(self) -> dict[str, Any]:
        return {
            "day": self.day,
            "round": self.round,
            "candidate": self.candidate,
            "seats": list(self.voters),
        }


def from_record(data: Any) -> VoterList | None:
    """A journal's voters line back as a VoterList (None when it is not one)."""
    if not isinstance(data, dict):
        return None
    try:
        values = [data["day"], data["round"], data["candidate"]]
        seats = data["seats"]
    except KeyError:
        return None
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v in [*values, *seats])
    if not isinstance(seats, list) or not whole:
        return None
    return VoterList(values[0], values[1], values[2], tuple(seats))


def voters_in(path: Path) -> list[VoterList]:
    """The voter lists that stand in a journal (undone counts take theirs with them)."""
    return [voters for _, voters in standing(path)]


def standing(path: Path) -> list[tuple[int, VoterList]]:
    """(ordinal, voters) of the voter lists that stand: ``ordinal`` counts the undoable inputs
    before the count the list belongs to (what an undo after a resume needs)."""
    try:
        lines = path.read_bytes().split(b"\n")
    except OSError:
        return []
    stack: list[tuple[bool, VoterList | None]] = []  # (undoable input, its voters)
    for raw in lines[1:]:
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            continue
        if not isinstance(record, dict):
            continue
        if "input" in record:
            try:
                event = from_json(record["input"])
            except BadRecord:
                continue
            stack.append((isinstance(event, UNDOABLE), None))
        elif record.get("undo") is True:
            for index in range(len(stack) - 1, -1, -1):
                if stack[index][0]:
                    del stack[index]
                    break
        elif "voters" in record and stack:
            stack[-1] = (stack[-1][0], from_record(record["voters"]))
    found: list[tuple[int, VoterList]] = []
    ordinal = 0
    for undoable, voters in stack:
        if voters is not None:
            found.append((ordinal, voters))
        ordinal += 1 if undoable else 0
    return found


def voter_lines(path: Path) -> list[tuple[int, int, int, int]]:
    """(day, round, candidate, voter) for every recorded voter of a journal's game."""
    return [
        (item.day, item.round, item.candidate, voter)
        for item in voters_in(path)
        for voter in item.voters
    ]
