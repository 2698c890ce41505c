"""The game kit for FIIM tables (docs/RULES-FIIM.md): a ``Table`` with the FIIM verbs.

The standard FIIM table of the tests: black 2, 5, 9 with the Don on 5; the Sheriff on 4.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from gamekit import Table, make_settings

from voicehost.config import Settings, with_preset
from voicehost.game.effects import Effect, Private, PrivateKind
from voicehost.game.model import Phase, Seat

BLACK = (2, 5, 9)
DON = 5
SHERIFF = 4


def fiim_settings(**fiim: Any) -> Settings:
    """The FIIM preset with some ``fiim.*`` settings replaced."""
    settings = with_preset(make_settings(), "fiim")
    return dataclasses.replace(settings, fiim=dataclasses.replace(settings.fiim, **fiim))


def answers(effects: list[Effect], kind: PrivateKind) -> list[bool | None]:
    return [e.found for e in effects if isinstance(e, Private) and e.kind is kind]


class FiimTable(Table):
    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings or fiim_settings())

    def agree(
        self,
        black: tuple[Seat, ...] = BLACK,
        don: Seat = DON,
        sheriff: Seat = SHERIFF,
    ) -> None:
        """Night 0: the black team, the Don and the Sheriff enter their seats; every window
        and the free seating run out. The cards are dealt first (MR 4.3, 4.4)."""
        if self.phase is Phase.NIGHT0_DEAL:
            self.end()  # «the cards are dealt»
        for phase, seats in (
            (Phase.NIGHT0_MAFIA, black),
            (Phase.NIGHT0_DON, (don,)),
            (Phase.NIGHT0_SHERIFF, (sheriff,)),
        ):
            assert self.phase is phase, self.phase
            self.enter(*seats)
            self.time_up()
        assert self.phase is Phase.NIGHT0_SEATING
        self.time_up()

    def speeches(self, plan: Mapping[int, int] | None = None) -> list[Seat]:
        """Every speech of the day: the speaker nominates ``plan[speaker]`` (if any) and says
        «спасибо». Returns the speakers in order."""
        plan = plan or {}
        spoken: list[Seat] = []
        while self.phase is Phase.NOMINATION:
            speaker = self.state.current_speaker
            assert speaker is not None
            spoken.append(speaker)
            if speaker in plan:
                self.enter(Seat(plan[speaker]))
            self.end()
        return spoken

    def tie_speeches(self) -> None:
        while self.phase is Phase.DEFENCE:
            self.end()

    def shoot(self, *shots: Seat | None) -> None:
        """The black players' shots in turn (None: the miss key)."""
        for shot in shots:
            if shot is None:
                self.miss()
            else:
                self.enter(shot)

    def fiim_night(
        self,
        shots: tuple[Seat | None, ...] = (),
        don: Seat | None = None,
        sheriff: Seat | None = None,
    ) -> None:
        assert self.phase is Phase.NIGHT_MAFIA, self.phase
        self.shoot(*shots)
        self.time_up()
        assert self.phase is Phase.NIGHT_DON
        if don is not None:
            self.enter(don)
        self.time_up()
        assert self.phase is Phase.NIGHT_SHERIFF
        if sheriff is not None:
            self.enter(sheriff)
        self.time_up()
