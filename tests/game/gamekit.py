"""A small kit for the game tests: a table driven through the pure engine, and what it said.

``Table`` keeps the engine's state and every effect, and has one verb per thing a person (or a
timer) does at the table. Tests then assert what a player would notice: the phrases said (keys
and params), who left, the winner and the prompt.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from voicehost import config
from voicehost.config import Settings
from voicehost.game.effects import Effect, PlayCue, Private, PrivateKind, Prompt, Say, StartTimer
from voicehost.game.engine import Engine
from voicehost.game.errors import RuleViolation
from voicehost.game.inputs import (
    EndSpeech,
    EnterSeats,
    Foul,
    Input,
    Miss,
    TimerWarning,
    TimeUp,
    VoteCount,
)
from voicehost.game.model import Cue, Phase, Seat, Team
from voicehost.phrases import PhraseBook
from voicehost.rulesets import engine_for

REPO = Path(__file__).resolve().parents[2]

#: The roles of the standard 10-player table used across the tests.
MAFIA = (2, 5, 9)
COMMISSAR = 4
DOCTOR = 7


def make_settings(
    players: int = 10,
    *,
    rules: Mapping[str, Any] | None = None,
    timers: Mapping[str, Any] | None = None,
    night: Mapping[str, Any] | None = None,
) -> Settings:
    """The default settings of an empty config.yaml, with some fields replaced."""
    base = config.loads("")
    return dataclasses.replace(
        base,
        players=players,
        rules=dataclasses.replace(base.rules, **dict(rules or {})),
        timers=dataclasses.replace(base.timers, **dict(timers or {})),
        night=dataclasses.replace(base.night, **dict(night or {})),
    )


def keys(effects: Iterable[Effect]) -> list[str]:
    """The phrase keys said, in order."""
    return [effect.key for effect in effects if isinstance(effect, Say)]


def until_cards(said: list[str]) -> list[str]:
    """The phrase keys ``said`` up to the cards the host opens at the end of a game."""
    return said[: said.index("game.cards")] if "game.cards" in said else said


def params_of(effects: Iterable[Effect], key: str) -> list[dict[str, Any]]:
    """The params of every ``key`` said, in order."""
    return [dict(e.params) for e in effects if isinstance(e, Say) and e.key == key]


def cues(effects: Iterable[Effect]) -> list[Cue]:
    return [effect.cue for effect in effects if isinstance(effect, PlayCue)]


def timers(effects: Iterable[Effect]) -> list[StartTimer]:
    return [effect for effect in effects if isinstance(effect, StartTimer)]


def privates(effects: Iterable[Effect]) -> list[Private]:
    return [effect for effect in effects if isinstance(effect, Private)]


def commissar_answers(effects: Iterable[Effect]) -> list[bool | None]:
    return [p.found for p in privates(effects) if p.kind is PrivateKind.ANSWER]


def spoken_seats(effects: Iterable[Effect]) -> list[Any]:
    """Every seat number (or list of seats) a Say would speak aloud."""
    found: list[Any] = []
    for effect in effects:
        if isinstance(effect, Say):
            found.extend(v for k, v in effect.params.items() if k in ("seat", "seats"))
    return found


def books() -> dict[str, PhraseBook]:
    return {language: PhraseBook.load(language) for language in ("ru", "en")}


Plan = Mapping[Seat, tuple[Seat, ...]] | Callable[[Seat], tuple[Seat, ...]]


class Table:
    """One game driven through ``Engine``: the state, the last step's effects and all of them."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or make_settings()
        self.engine: Engine = engine_for(self.settings.game)
        self.state, self.effects = self.engine.new_game()
        self.log: list[Effect] = list(self.effects)

    # ---- one input

    def do(self, event: Input) -> list[Effect]:
        """Apply an input the rules must accept; returns its effects."""
        self.state, self.effects = self.engine.step(self.state, event)
        self.log.extend(self.effects)
        return self.effects

    def reject(self, event: Input) -> RuleViolation:
        """Apply an input the rules must refuse; checks that it changed nothing."""
        before = copy.deepcopy(self.state)
        with pytest.raises(RuleViolation) as caught:
            self.engine.step(self.state, event)
        assert self.state == before, f"{event} was rejected but changed the state"
        return caught.value

    def enter(self, *seats: Seat) -> list[Effect]:
        return self.do(EnterSeats(tuple(seats)))

    def votes(self, count: int, *, settle: bool = True) -> list[Effect]:
        """Enter a count; when it was the last one, let the pause for corrections run out."""
        effects = self.do(VoteCount(count))
        if settle and self.state.vote_settling is not None:
            assert self.state.timer is not None
            effects += self.do(TimeUp(self.state.timer.timer_id))
        return effects

    def miss(self) -> list[Effect]:
        return self.do(Miss())

    def foul(self, seat: Seat) -> list[Effect]:
        return self.do(Foul(seat))

    def end(self) -> list[Effect]:
        return self.do(EndSpeech())

    def warning(self) -> list[Effect]:
        assert self.state.timer is not None, "no timer is running"
        return self.do(TimerWarning(self.state.timer.timer_id))

    def time_up(self) -> list[Effect]:
        """Let the running timer run out (its warning first, as the host does)."""
        timer = self.state.timer
        assert timer is not None, "no timer is running"
        out: list[Effect] = []
        if timer.warn_before is not None:
            out += self.do(TimerWarning(timer.timer_id))
        out += self.do(TimeUp(timer.timer_id))
        self.effects = out
        return out

    # ---- views

    @property
    def phase(self) -> Phase:
        return self.state.phase

    @property
    def prompt(self) -> Prompt:
        return self.engine.prompt(self.state)

    def living(self) -> list[Seat]:
        return self.state.living()

    @property
    def winner(self) -> Team | None:
        return self.state.winner

    def said(self) -> list[str]:
        """Every phrase key said so far."""
        return keys(self.log)

    def mark(self) -> int:
        """A bookmark in the log, for ``since``."""
        return len(self.log)

    def since(self, mark: int) -> list[Effect]:
        return self.log[mark:]

    # ---- whole steps

    def register(
        self,
        mafia: tuple[Seat, ...] = MAFIA,
        commissar: Seat | None = COMMISSAR,
        doctor: Seat | None = DOCTOR,
    ) -> None:
        """Night 0: each role enters its seats, and each window runs out."""
        entries = {
            Phase.NIGHT0_MAFIA: mafia,
            Phase.NIGHT0_COMMISSAR: (commissar,) if commissar else (),
            Phase.NIGHT0_DOCTOR: (doctor,) if doctor else (),
        }
        while self.phase in entries:
            self.enter(*entries[self.phase])
            self.time_up()

    def nominate(self, plan: Plan) -> None:
        """Nomination speeches: each speaker enters ``plan[speaker]`` and says «спасибо»."""
        while self.phase is Phase.NOMINATION:
            speaker = self.state.current_speaker
            assert speaker is not None
            seats = plan(speaker) if callable(plan) else plan[speaker]
            self.enter(*seats)
            if self.state.speech_running and self.state.current_speaker == speaker:
                self.end()

    def defend(self) -> None:
        """Every defence speech ends with «спасибо»."""
        while self.phase is Phase.DEFENCE:
            self.end()

    def day(self, plan: Plan, *counts: int) -> None:
        """Discussion, nominations, defence, then the vote counts (all but the last candidate)."""
        assert self.phase is Phase.DISCUSSION, self.phase
        self.end()
        self.nominate(plan)
        self.defend()
        for count in counts:
            self.votes(count)

    def last_words(self) -> None:
        while self.phase is Phase.LAST_WORDS:
            self.end()

    def night(
        self,
        shot: Seat | str | None = None,
        check: Seat | None = None,
        heal: Seat | None = None,
    ) -> None:
        """One night: the mafia shoot (a seat, "miss", or None: no entry), the Commissar checks,
        the Doctor heals; every window runs out."""
        assert self.phase is Phase.NIGHT_MAFIA, self.phase
        if shot == "miss":
            self.miss()
        elif isinstance(shot, int):
            self.enter(shot)
        self.time_up()
        if self.phase is Phase.NIGHT_COMMISSAR:
            if check is not None:
                self.enter(check)
            self.time_up()
        if self.phase is Phase.NIGHT_DOCTOR:
            if heal is not None:
                self.enter(heal)
            self.time_up()


def everyone_names(target: Seat, fallback: Seat) -> Callable[[Seat], tuple[Seat, ...]]:
    """A nomination plan: everyone nominates ``target``; ``target`` nominates ``fallback``."""
    return lambda speaker: (fallback,) if speaker == target else (target,)


def at_day_one(settings: Settings | None = None, **roles: Any) -> Table:
    """A table registered on night 0, now in day 1's discussion."""
    table = Table(settings)
    table.register(**roles)
    assert table.phase is Phase.DISCUSSION
    return table


def plan_for(*candidates: Seat) -> Callable[[Seat], tuple[Seat, ...]]:
    """A nomination plan whose candidates are exactly ``candidates`` (in a 10-seat day 1).

    Speakers name the candidates in turn (never themselves), so their tallies differ by at
    most one, which makes every one of them a candidate (a tie for first, or first plus second).
    """
    turn = [0]

    def plan(speaker: Seat) -> tuple[Seat, ...]:
        for _ in candidates:
            seat = candidates[turn[0] % len(candidates)]
            turn[0] += 1
            if seat != speaker:
                return (seat,)
        raise AssertionError("no candidate to nominate")

    return plan


def at_vote(*candidates: Seat, settings: Settings | None = None) -> Table:
    """A 10-seat table in day 1's vote, with exactly these candidates, after their defence."""
    table = at_day_one(settings)
    table.end()
    table.nominate(plan_for(*candidates))
    assert table.state.candidates == list(candidates)
    table.defend()
    assert table.phase is Phase.VOTE
    return table
