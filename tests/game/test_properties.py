"""Hypothesis: random valid games always end in a win, nobody who has left acts or votes, and the
votes of every round add up to the voters.

A game is driven by choosing, at each step, among the inputs the prompt allows (seats, counts,
misses, a count confirmed by key or by time), plus speeches ended by key or by time, timer
warnings, and fouls. The mafia may miss
and the Doctor may save every night, and a third vote may keep everyone, so a game could go on
for ever; after ``FREE_DAYS`` days the mafia therefore always shoot and the Doctor stays home,
and from then on every night removes a player. The game must then end within
``FREE_DAYS + players`` days.
"""

from __future__ import annotations

import copy
import os

import pytest
from gamekit import make_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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

FREE_DAYS = 3
#: VOICEHOST_PROPERTY_EXAMPLES=5000 searches harder (minutes) after a change to the rules.
EXAMPLES = int(os.environ.get("VOICEHOST_PROPERTY_EXAMPLES", "100"))
MAX_STEPS = 3000
MAX_FOULS = 4  # enough for any disqualification; more would empty the table

SEAT_ACTIONS = ("nominate", "kill", "check", "heal")


class Game:
    """One random game: the engine, its state, and the invariants checked after each step."""

    def __init__(self, engine: Engine, draw: st.DataObject) -> None:
        self.engine = engine
        self.draw = draw
        self.state, effects = engine.new_game()
        self.check_effects(self.state, effects)
        self.steps = 0
        self.fouls = 0
        self.checked_at: tuple[object, ...] = ()

    # ---- stepping with invariants

    def step(self, event: Input) -> None:
        before = self.state
        new, effects = self.engine.step(before, event)
        self.steps += 1
        assert self.steps < MAX_STEPS, "the game does not end"
        self.check_votes(before, new)
        if new.vote_settling is not None:  # counted, not yet settled: nobody has left for it
            assert len(new.record["departures"]) == len(before.record["departures"])
        self.check_effects(new, effects)
        self.check_winner(new)
        self.state = new

    def check_effects(self, state: GameState, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, StartTimer) and effect.speaker is not None:
                # only last words belong to a player who has just left
                alive = state.players[effect.speaker].alive
                assert alive is (effect.timer is not TimerKind.LAST_WORDS), effect
        if state.current_speaker is not None and state.phase is not Phase.GAME_OVER:
            alive = state.players[state.current_speaker].alive
            assert alive is (state.phase is not Phase.LAST_WORDS)

    def check_votes(self, before: GameState, after: GameState) -> None:
        for index, day in enumerate(after.record["days"]):
            days_before = before.record["days"]
            old = days_before[index]["votes"] if index < len(days_before) else []
            for vote in day["votes"][len(old) :]:
                counts = vote["counts"]
                left_now = after.record["departures"][len(before.record["departures"]) :]
                voters = len(after.living()) + sum(1 for d in left_now if d["how"] == "vote")
                if "interrupted_by" in vote:  # counted, maybe in part, before a removal
                    assert vote["interrupted_by"] not in after.living()
                    assert sum(counts.values()) <= voters + 1, (vote, voters)
                    continue
                # a lone candidate cannot vote against themselves: everyone else's vote
                expected = voters - 1 if len(counts) == 1 else voters
                assert sum(counts.values()) == expected, (vote, voters)
                assert all(n >= 0 for n in counts.values())
            third = day["third_vote"]
            if third and third["votes_for"] is not None:
                assert 0 <= third["votes_for"] <= third["voters"]

    def check_winner(self, state: GameState) -> None:
        if state.phase in (Phase.NIGHT0_MAFIA, Phase.NIGHT0_COMMISSAR, Phase.NIGHT0_DOCTOR):
            return
        black, red = (
            self.engine.living_of(state, Team.BLACK),
            self.engine.living_of(state, Team.RED),
        )
        if state.phase is Phase.GAME_OVER:
            assert state.winner is (Team.RED if black == 0 else Team.BLACK)
            assert black == 0 or black >= red
        elif not state.phase.is_night:
            assert 0 < black < red, "the game goes on after a win"

    def check_departed_are_refused(self) -> None:
        """Entries and fouls naming a seat that has left are refused and change nothing.

        Checked once in each phase the game enters (each check copies the whole state).
        """
        where = (self.state.day, self.state.night, self.state.phase, self.state.current_speaker)
        gone = [seat for seat, p in self.state.players.items() if not p.alive]
        if not gone or where == self.checked_at:
            return
        self.checked_at = where
        seat = self.draw.draw(st.sampled_from(gone))
        events: list[Input] = [Foul(seat)]
        if self.engine.prompt(self.state).action in SEAT_ACTIONS:
            events.append(EnterSeats((seat,)))
        for event in events:
            before = copy.deepcopy(self.state)
            with pytest.raises(RuleViolation) as caught:
                self.engine.step(self.state, event)
            assert caught.value.code in ("seat_left", "already_checked")
            assert self.state == before

    # ---- choosing inputs

    def pick(self, options: list[object]) -> object:
        return self.draw.draw(st.sampled_from(options))

    def living(self) -> list[Seat]:
        return self.state.living()

    def pressing(self) -> bool:
        return self.state.day > FREE_DAYS

    def run_out(self) -> None:
        """Let the running timer run out, its warning first (unless it already fired)."""
        timer = self.state.timer
        assert timer is not None
        if timer.warn_before is not None and self.draw.draw(st.booleans()):
            self.step(TimerWarning(timer.timer_id))
        if self.state.timer is not None and self.state.timer.timer_id == timer.timer_id:
            self.step(TimeUp(timer.timer_id))

    def end_speech(self) -> None:
        if self.draw.draw(st.booleans()):
            self.step(EndSpeech())
        else:
            self.run_out()

    def maybe_foul(self) -> bool:
        if self.fouls >= MAX_FOULS or self.draw.draw(st.integers(0, 29)) != 0:
            return False
        self.fouls += 1
        self.step(Foul(self.pick(self.living())))  # type: ignore[arg-type]
        return True

    def play(self, roles: list[Seat]) -> None:
        mafia_count = self.engine.settings.mafia_count
        registration = {
            Phase.NIGHT0_MAFIA: tuple(roles[:mafia_count]),
            Phase.NIGHT0_COMMISSAR: (roles[mafia_count],),
            Phase.NIGHT0_DOCTOR: (roles[mafia_count + 1],),
        }
        while self.state.phase is not Phase.GAME_OVER:
            self.check_departed_are_refused()
            if self.maybe_foul():
                continue
            phase = self.state.phase
            if phase in registration:
                self.register(registration[phase])
            elif phase in (Phase.DISCUSSION, Phase.DEFENCE, Phase.LAST_WORDS):
                self.end_speech()
            elif phase is Phase.NOMINATION:
                self.nominate()
            elif self.state.vote_settling is not None:
                self.confirm_counts()
            elif phase in (Phase.VOTE, Phase.THIRD_VOTE):
                room = self.engine.prompt(self.state).max_count
                assert room is not None and room <= len(self.living())
                self.step(VoteCount(self.draw.draw(st.integers(0, room))))
            else:
                self.night_step(phase)

    def confirm_counts(self) -> None:
        """The pause after the last count: another count is refused; `.` or the timer goes on."""
        assert self.engine.prompt(self.state).kind is PromptKind.CONFIRM_VOTE
        before = copy.deepcopy(self.state)
        with pytest.raises(RuleViolation) as caught:
            self.engine.step(self.state, VoteCount(0))
        assert caught.value.code == "vote_counted"
        assert self.state == before
        if self.draw.draw(st.booleans()):
            self.step(EndSpeech())
        else:
            self.run_out()

    def register(self, seats: tuple[Seat, ...]) -> None:
        if self.state.timer is not None and self.draw.draw(st.booleans()):
            self.run_out()  # the window runs out first: the step waits for the entry
            if self.state.phase.value.startswith("night0") and self.state.timer is None:
                self.step(EnterSeats(seats))
            return
        self.step(EnterSeats(seats))
        if self.state.timer is not None:
            self.run_out()

    def nominate(self) -> None:
        prompt = self.engine.prompt(self.state)
        speaker = self.state.current_speaker
        assert speaker is not None and self.state.players[speaker].alive
        if prompt.action == "nominate" and (prompt.seats_min > 0 or self.draw.draw(st.booleans())):
            others = [seat for seat in self.living() if seat != speaker]
            count = self.draw.draw(st.integers(max(1, prompt.seats_min), prompt.seats_max))
            chosen = self.draw.draw(st.lists(st.sampled_from(others), min_size=count,
                                             max_size=count))  # fmt: skip
            try:
                self.step(EnterSeats(tuple(chosen)))
            except RuleViolation as violation:
                # naming one seat twice is fine; a third distinct one is refused
                assert violation.code in ("too_many_nominations", "one_nomination_only")
                self.step(EnterSeats((chosen[0],)))
            return
        if self.state.speech_running:
            self.end_speech()

    def night_step(self, phase: Phase) -> None:
        state = self.state
        living = self.living()
        if phase is Phase.NIGHT_MAFIA:
            options: list[object] = ["none", "miss", *living]
            choice = self.pick(living if self.pressing() else options)
            if choice == "miss":
                self.step(Miss())
            elif choice != "none":
                self.step(EnterSeats((choice,)))  # type: ignore[arg-type]
        elif phase is Phase.NIGHT_COMMISSAR:
            commissar = state.holder(Role.COMMISSAR)
            choice = self.pick(["none", *[s for s in living if s != commissar]])
            if choice != "none":
                self.step(EnterSeats((choice,)))  # type: ignore[arg-type]
        elif phase is Phase.NIGHT_DOCTOR and not self.pressing():
            allowed = [s for s in living if s != state.previous.get(Role.DOCTOR)]
            choice = self.pick(["none", *allowed])
            if choice != "none":
                self.step(EnterSeats((choice,)))  # type: ignore[arg-type]
        if self.state.phase is phase:
            self.run_out()


@pytest.mark.slow  # about 10 s: each step copies the whole game state
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), players=st.integers(8, 13), rotate=st.booleans())
def test_random_valid_games_end_in_a_win(data: st.DataObject, players: int, rotate: bool) -> None:
    engine = engine_for(make_settings(players, rules={"rotate_first_speaker": rotate}).game)
    roles = data.draw(st.permutations(range(1, players + 1)))
    game = Game(engine, data)
    game.play(list(roles))
    state = game.state
    assert state.phase is Phase.GAME_OVER and state.winner is not None
    assert state.day <= FREE_DAYS + players
    assert state.record["winner"] == state.winner.value
