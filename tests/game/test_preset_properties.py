"""Random games of every preset (club, FIIM, city), driven only by the engine's generic prompts
(the way the keypad and the keyboard drive it): every game ends with a winner the cards agree
with, nobody who has left acts, speaks (but for last words) or is counted, and a refused entry
changes nothing."""

from __future__ import annotations

import dataclasses
import os

import pytest
from gamekit import make_settings
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from voicehost.config import with_preset
from voicehost.game.effects import Effect, PromptKind, StartTimer
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
from voicehost.game.model import Phase, Role, Seat, Team, TimerKind
from voicehost.game.state import GameState
from voicehost.rulesets import engine_for

EXAMPLES = int(os.environ.get("VOICEHOST_PROPERTY_EXAMPLES", "25"))
MAX_STEPS = 4000
PRESSING_DAY = 3  # from this day on the random players play to end the game


class Game:
    """One random game on one engine, with the invariants checked after every step."""

    def __init__(self, engine: Engine, draw: st.DataObject) -> None:
        self.engine = engine
        self.draw = draw
        self.state, effects = engine.new_game()
        self.steps = 0
        self.fouls = 0
        self.deal = list(draw.draw(st.permutations(sorted(self.state.players))))
        self.check(self.state, effects)

    # ---- stepping

    def step(self, event: Input) -> bool:
        """Offer ``event``; False (and nothing changed) when the rules refuse it."""
        before = self.state
        try:
            new, effects = self.engine.step(before, event)
        except RuleViolation:
            assert self.state is before
            return False
        self.steps += 1
        assert self.steps < MAX_STEPS, "the game does not end"
        self.check(new, effects)
        self.state = new
        return True

    def check(self, state: GameState, effects: list[Effect]) -> None:
        for effect in effects:
            if not isinstance(effect, StartTimer) or effect.speaker is None:
                continue
            if effect.timer is not TimerKind.LAST_WORDS:  # only last words are theirs
                assert state.players[effect.speaker].alive, f"{effect.speaker} left, yet speaks"
        for day in state.record["days"]:
            for vote in day["votes"]:
                for key in vote["counts"]:
                    assert int(key) in day["candidates"] or day.get("vote_cancelled")
        if state.phase is Phase.GAME_OVER:
            self.check_winner(state)

    def check_winner(self, state: GameState) -> None:
        count = {team: self.engine.living_of(state, team) for team in Team}
        if "team_loss" in state.record or state.record["winner"] == "draw":
            return
        winner = state.winner
        if winner is Team.RED:
            assert count[Team.BLACK] == 0 and count[Team.MANIAC] == 0
        elif winner is Team.BLACK:
            assert count[Team.MANIAC] == 0 and count[Team.BLACK] >= count[Team.RED]
        else:
            assert winner is Team.MANIAC
            assert count[Team.MANIAC] >= 1 and count[Team.BLACK] + count[Team.RED] <= 1

    # ---- choosing

    def pick(self, options: list[object]) -> object:
        return self.draw.draw(st.sampled_from(options))

    def pressing(self) -> bool:
        return self.state.day >= PRESSING_DAY

    def run_out(self) -> None:
        timer = self.state.timer
        if timer is None:
            return
        if timer.warn_before is not None and self.draw.draw(st.booleans()):
            self.step(TimerWarning(timer.timer_id))
        if self.state.timer is not None and self.state.timer.timer_id == timer.timer_id:
            self.step(TimeUp(timer.timer_id))

    def end_speech(self) -> None:
        if not self.draw.draw(st.booleans()) or not self.step(EndSpeech()):
            self.run_out()

    def play(self) -> None:
        while self.state.phase is not Phase.GAME_OVER:
            if self.fouls < 4 and self.draw.draw(st.integers(0, 40)) == 0:
                self.fouls += 1
                self.step(Foul(self.pick(self.state.living())))  # type: ignore[arg-type]
                continue
            prompt = self.engine.prompt(self.state)
            if self.state.phase is Phase.NIGHT0_DEAL:  # the cards are dealt (no timer runs)
                assert self.step(EndSpeech())
            elif prompt.action == "register":
                self.register(prompt.seats_max, prompt.role)
            elif prompt.kind is PromptKind.SEATS and prompt.night:
                self.night_entry(prompt.role, prompt.may_miss)
            elif prompt.kind is PromptKind.SEATS:
                self.seats_by_day(prompt.seats_min, prompt.seats_max)
            elif prompt.kind in (PromptKind.VOTE_COUNT, PromptKind.THIRD_VOTE_COUNT):
                room = prompt.max_count or 0
                count = room if self.pressing() else self.draw.draw(st.integers(0, room))
                if not self.step(VoteCount(count)):
                    assert self.step(VoteCount(0))
            elif prompt.kind is PromptKind.CONFIRM_VOTE or self.state.speech_running:
                self.end_speech()
            else:
                assert self.state.timer is not None, f"stuck in {self.state.phase}"
                self.run_out()

    def register(self, count: int, role: str | None) -> None:
        state = self.state
        taken = {seat for seat, p in state.players.items() if p.role is not None}
        if count > 1 or role == Role.MAFIA.value:
            seats = tuple(self.deal[:count])
        elif self.engine.team_of(Role(str(role))) is Team.BLACK:
            black = [s for s, p in state.players.items() if p.role is Role.MAFIA]
            seats = (self.pick(sorted(black)),)  # type: ignore[assignment]
        else:
            seats = (next(s for s in self.deal if s not in taken),)
        if self.draw.draw(st.booleans()):
            self.run_out()  # the window first: night 0 waits for the entry
        if self.engine.prompt(self.state).action == "register":
            assert self.step(EnterSeats(tuple(Seat(s) for s in seats)))
        self.run_out()

    def night_entry(self, role: str | None, may_miss: bool) -> None:
        state = self.state
        living = state.living()
        holder_left = (
            role is not None and role != Role.MAFIA.value and not state.role_alive(Role(role))
        )
        black_left = role == Role.MAFIA.value and not self.engine.living_of(state, Team.BLACK)
        if holder_left or black_left:
            # A fair night calls the step, and takes an entry there as a living role's step
            # would (the same feedback), but drops it: nobody who has left acts. (The club skips
            # the step of a role that has left; one whose holder left during it runs out.)
            if self.engine.ruleset.call_departed and self.draw.draw(st.booleans()):
                before = dataclasses.replace(state.night_actions)
                assert self.step(EnterSeats((living[0],)))
                after = self.state.night_actions
                assert (after.shot, after.checks, after.blocks, after.heal, after.other_kills) == (
                    before.shot, before.checks, before.blocks, before.heal, before.other_kills
                )  # fmt: skip
                event("a departed role's step took an entry")
        else:
            gone = [s for s, p in state.players.items() if not p.alive]
            options: list[object] = ["none", *living, *(["miss"] if may_miss else [])]
            choice = self.pick(options)
            if choice == "miss":
                self.step(Miss())
            elif choice != "none":
                self.step(EnterSeats((Seat(choice),)))  # type: ignore[arg-type]
            prompt = self.engine.prompt(self.state)
            if gone and prompt.action in ("kill", "heal", "block"):
                assert not self.step(EnterSeats((self.pick(gone),)))  # type: ignore[arg-type]
        self.run_out()

    def seats_by_day(self, least: int, most: int) -> None:
        living = self.state.living()
        speaker = self.state.current_speaker
        others = [s for s in living if s != speaker]
        if least == 0 and not self.pressing() and self.draw.draw(st.booleans()):
            self.end_speech()
            return
        count = self.draw.draw(st.integers(max(1, least), most))
        chosen = self.draw.draw(st.lists(st.sampled_from(others), min_size=count, max_size=count))
        if not self.step(EnterSeats(tuple(chosen))) and not self.step(
            EnterSeats(tuple(chosen[:1]))
        ):
            fallback = [s for s in others if self.step(EnterSeats((s,)))]
            assert fallback or self.state.speech_running or least == 0
        if self.state.speech_running and self.engine.prompt(self.state).action != "best_move":
            self.end_speech()


PRESETS = {
    "club": st.integers(8, 13),
    "fiim": st.just(10),
    "city": st.integers(6, 20),
}


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_games_of_every_preset_end_and_nobody_who_left_acts(
    preset: str, data: st.DataObject
) -> None:
    players = data.draw(PRESETS[preset])
    settings_ = with_preset(make_settings(players if preset != "fiim" else 10), preset)
    if preset == "city":
        city = {
            key: data.draw(st.booleans())
            for key in ("maniac", "putana", "immortal", "doctor", "commissar")
        }
        action = data.draw(st.sampled_from(["check", "kill"]))
        cards = data.draw(st.sampled_from(["open", "closed", "half_closed"]))
        settings_ = dataclasses.replace(
            settings_,
            city=dataclasses.replace(settings_.city, **city, commissar_action=action, cards=cards),
        )
    game = Game(engine_for(settings_.game), data)
    game.play()
    assert game.state.phase is Phase.GAME_OVER
    assert game.state.record["winner"] is not None
