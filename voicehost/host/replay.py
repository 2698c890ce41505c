"""A game is its list of inputs: replaying them through the engine rebuilds the state exactly.

One replay serves the live host (after an undo, and on resume), `voicehost protocol` and the
tests, so none of them can disagree about what a journal holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from voicehost.config import Settings
from voicehost.game.engine import Engine
from voicehost.game.errors import RuleViolation
from voicehost.game.inputs import Input
from voicehost.game.model import Phase
from voicehost.game.state import GameState
from voicehost.host.commands import Source
from voicehost.host.journal import JournalError, effective_entries, read, settings_from_record
from voicehost.phrases import PhraseBook
from voicehost.rulesets import engine_for


@dataclass(frozen=True)
class Accepted:
    """An input the game took, where it came from, and what it did to the table."""

    event: Input
    source: Source
    phase_before: Phase = Phase.GAME_OVER
    revealed: bool = False  # a player left and the table heard their role: no taking it back
    # The state the input was entered in: undo goes back to it without replaying the game
    # (states share what a step does not change, so keeping each costs little).
    before: GameState | None = field(default=None, compare=False, repr=False)


def revealed(before: GameState, after: GameState) -> bool:
    """Did this step send a player away or end the game (and so tell the table a role or the
    winner)?"""
    ended = after.over and not before.over
    return ended or len(after.record["departures"]) > len(before.record["departures"])


class Refused(Exception):
    """Input number ``index`` of a replay is one the rules refuse (a journal changed by hand)."""

    def __init__(self, index: int, violation: RuleViolation) -> None:
        super().__init__(index, violation)
        self.index = index
        self.violation = violation


def replay(
    engine: Engine, inputs: Iterable[tuple[Input, Source]]
) -> tuple[GameState, list[Accepted]]:
    """The state after ``inputs``, each noted with the phase it was entered in; raises Refused
    for an input the rules do not take."""
    state, _ = engine.new_game()
    accepted: list[Accepted] = []
    for index, (event, source) in enumerate(inputs):
        try:
            after, _ = engine.step(state, event)
        except RuleViolation as violation:
            raise Refused(index, violation) from violation
        accepted.append(Accepted(event, source, state.phase, revealed(state, after), state))
        state = after
    return state, accepted


@dataclass(frozen=True)
class Replayed:
    """A journal read back: the rules it was played by, and the game as it stands."""

    settings: Settings
    engine: Engine
    state: GameState
    accepted: list[Accepted]


def replay_journal(settings: Settings, path: Path) -> Replayed:
    """Read the journal at ``path`` and replay it by the rules its header recorded.

    A recorded input the rules refuse raises JournalError naming the file, the line and, in the
    game's words, why the game refuses it.
    """
    header, entries = read(path)
    recorded = settings_from_record(settings, header["game"], path)
    engine = engine_for(recorded.game, dealt_by_device=header.get("deal") == "device")
    kept = [entry for entry in effective_entries(entries) if entry.event is not None]
    try:
        state, accepted = replay(
            engine, [(entry.event, Source.named(entry.source)) for entry in kept if entry.event]
        )
    except Refused as refused:
        words = PhraseBook.load(recorded.language).error(
            refused.violation.code, refused.violation.params
        )
        raise JournalError(
            f"{path}, line {kept[refused.index].line}: the game refuses this recorded input "
            f"({words}); the journal was changed by hand or written by two hosts at once"
        ) from refused
    return Replayed(recorded, engine, state, accepted)
