"""Hypothesis: random FIIM games (docs/RULES-FIIM.md) end in a win or a draw, nobody who has left
speaks, shoots, checks, is voted on or gets a foul, the votes of every round add up to the table
and the scores add up line by line.

Each step picks among the inputs the rules allow: nominations or none, fouls (up to a removal)
during speeches and last words, counts, lift answers, shots that agree or not, checks of any
seat, a best move or none. After ``FREE_DAYS`` days the black team always agrees on a red seat,
so the game must end within ``FREE_DAYS + 10`` days even when the draw rule (§10) is off.
"""

from __future__ import annotations

import copy
import os

import pytest
from fiimkit import fiim_settings
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from voicehost.game.effects import Effect, StartTimer
from voicehost.game.engine import Engine
from voicehost.game.errors import RuleViolation
from voicehost.game.inputs import (
    EndSpeech,
    EnterSeats,
    Foul,
    Input,
    Miss,
    TeamLoss,
    TimeUp,
    VoteCount,
)
from voicehost.game.model import Phase, Role, Seat, Team, TimerKind
from voicehost.game.rules import FiimSettings
from voicehost.game.state import GameState
from voicehost.rulesets import engine_for

FREE_DAYS = 3
EXAMPLES = int(os.environ.get("VOICEHOST_PROPERTY_EXAMPLES", "60"))
MAX_STEPS = 3000


class FiimGame:
    def __init__(self, engine: Engine, draw: st.DataObject) -> None:
        self.engine = engine
        self.draw = draw
        self.state, effects = engine.new_game()
        self.steps = 0
        self.decided: Team | None = None  # the winner, from the departure that decided it
        self.check_effects(self.state, effects)

    def step(self, event: Input) -> None:
        before = self.state
        new, effects = self.engine.step(before, event)
        self.steps += 1
        assert self.steps < MAX_STEPS, "the game does not end"
        self.check_votes(before, new)
        self.check_effects(new, effects)
        self.check_night(new)
        self.check_winner(new)
        self.state = new

    def check_effects(self, state: GameState, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, StartTimer) and effect.speaker is not None:
                alive = state.players[effect.speaker].alive
                assert alive is (effect.timer is not TimerKind.LAST_WORDS), effect

    def check_votes(self, before: GameState, after: GameState) -> None:
        left_now = after.record["departures"][len(before.record["departures"]) :]
        voters = len(after.living()) + sum(1 for d in left_now if d["how"] == "vote")
        for index, day in enumerate(after.record["days"]):
            old = (
                before.record["days"][index]["votes"] if index < len(before.record["days"]) else []
            )
            for vote in day["votes"][len(old) :]:
                assert sum(vote["counts"].values()) == voters, (vote, voters)  # MR 7.12, 7.13
                assert all(n >= 0 for n in vote["counts"].values())
                gone = {d["seat"] for d in before.record["departures"]}
                assert not gone & {int(seat) for seat in vote["counts"]}
            third = day["third_vote"]
            if third and third["votes_for"] is not None:
                assert 0 <= third["votes_for"] <= third["voters"]

    def check_night(self, state: GameState) -> None:
        for night in state.record["nights"][1:]:
            shooters = [int(seat) for seat in night.get("shots", {})]
            for seat in shooters:  # only living black players shoot (MR 8.4)
                player = state.players[Seat(seat)]
                assert player.role in (Role.MAFIA, Role.DON)
                left = [d for d in state.record["departures"] if d["seat"] == seat]
                assert not left or left[0]["night"] >= night["night"]
            for role, key in ((Role.DON, "don_check"), (Role.SHERIFF, "sheriff_check")):
                if night.get(key) is None:
                    continue
                holder = next(s for s, p in state.players.items() if p.role is role)
                left = [d for d in state.record["departures"] if d["seat"] == holder]
                assert not left or left[0]["night"] >= night["night"], "a departed role checked"

    def check_winner(self, state: GameState) -> None:
        if state.phase.value.startswith("night0"):
            return
        black, red = (
            self.engine.living_of(state, Team.BLACK),
            self.engine.living_of(state, Team.RED),
        )
        loss = state.record.get("team_loss")
        if state.phase is Phase.GAME_OVER and loss is not None:  # MR 10.21 to 10.24
            loser = state.players[loss["seat"]].role
            assert loser is not None and state.winner is not self.engine.team_of(loser)
            assert loss["team"] == self.engine.team_of(loser).value
        elif state.phase is Phase.GAME_OVER and state.record["winner"] == "draw":
            assert state.winner is None and 0 < black < red  # MR 1.5
        elif state.phase is Phase.GAME_OVER and self.decided is not None:
            assert state.winner is self.decided  # a removal in the final minute changes nothing
        elif state.phase is Phase.GAME_OVER:
            assert state.winner is (Team.RED if black == 0 else Team.BLACK)
        elif state.after_last_words == "end":  # the final minute (MR 8.19.1)
            assert state.phase is Phase.LAST_WORDS and state.pending_winner is not None
            if self.decided is None:  # decided at the vote or the kill (docs/RULES-FIIM.md §10)
                assert state.pending_winner is (Team.RED if black == 0 else Team.BLACK)
                self.decided = state.pending_winner
        elif not state.phase.is_night:
            assert 0 < black < red, "the game goes on after a win"

    def pick(self, options: list[object]) -> object:
        return self.draw.draw(st.sampled_from(options))

    def run_out(self) -> None:
        timer = self.state.timer
        assert timer is not None
        self.step(TimeUp(timer.timer_id))

    def end_speech(self) -> None:
        if self.draw.draw(st.booleans()):
            self.step(EndSpeech())
        else:
            self.run_out()

    def maybe_foul(self) -> None:
        """Now and then a foul for a random living seat (MR 9.5 to 9.7); a seat that has left
        gets none."""
        if self.draw.draw(st.integers(0, 5)) != 0:
            return
        gone = [seat for seat, p in self.state.players.items() if not p.alive]
        if gone:
            self.refused(Foul(self.pick(gone)), "seat_left")  # type: ignore[arg-type]
        if self.draw.draw(st.integers(0, 200)) == 100:  # MR 10.21 to 10.24, rarely
            seat = self.pick(list(self.state.players))
            self.refused(TeamLoss(seat), "team_loss_confirm")  # type: ignore[arg-type]
            self.step(TeamLoss(seat, confirmed=True))  # type: ignore[arg-type]
            return
        self.step(Foul(self.pick(self.state.living())))  # type: ignore[arg-type]

    def refused(self, event: Input, *codes: str) -> None:
        before = copy.deepcopy(self.state)
        with pytest.raises(RuleViolation) as caught:
            self.engine.step(self.state, event)
        assert caught.value.code in codes
        assert self.state == before

    def play(self, roles: list[Seat]) -> None:
        entries = {
            Phase.NIGHT0_MAFIA: tuple(roles[:3]),
            Phase.NIGHT0_DON: (roles[0],),
            Phase.NIGHT0_SHERIFF: (roles[3],),
        }
        while self.state.phase is not Phase.GAME_OVER:
            phase = self.state.phase
            gone = [seat for seat, p in self.state.players.items() if not p.alive]
            if phase in entries:
                self.step(EnterSeats(entries[phase]))
                self.run_out()
            elif phase is Phase.NIGHT0_SEATING:
                self.run_out()
            elif phase is Phase.NIGHT0_DEAL:  # the cards are dealt, or typed at once
                if self.draw.draw(st.booleans()):
                    self.step(EndSpeech())
                else:
                    self.step(EnterSeats(entries[Phase.NIGHT0_MAFIA]))
                    self.run_out()
            elif phase is Phase.NOMINATION:
                prompt = self.engine.prompt(self.state)
                if gone and prompt.action == "nominate":
                    self.refused(EnterSeats((self.pick(gone),)), "seat_left")  # type: ignore[arg-type]
                if prompt.action == "nominate" and self.draw.draw(st.booleans()):
                    seat = self.pick(self.state.living())
                    try:
                        self.step(EnterSeats((seat,)))  # type: ignore[arg-type]
                    except RuleViolation as violation:
                        assert violation.code == "fiim_already_nominated"
                self.maybe_foul()
                if self.state.phase is Phase.NOMINATION and self.state.speech_running:
                    self.end_speech()
            elif phase is Phase.LAST_WORDS:
                best_move = self.engine.prompt(self.state).action == "best_move"
                if best_move and self.draw.draw(st.booleans()):
                    others = [s for s in self.state.players if s != self.state.best_move_by]
                    three = self.draw.draw(st.permutations(others))[:3]
                    self.step(EnterSeats(tuple(three)))
                self.maybe_foul()
                if self.state.phase is Phase.LAST_WORDS:
                    self.end_speech()
            elif phase is Phase.DEFENCE or self.state.vote_settling is not None:
                self.end_speech()
            elif phase in (Phase.VOTE, Phase.THIRD_VOTE):
                room = self.engine.prompt(self.state).max_count
                assert room is not None and room <= len(self.state.living())
                self.step(VoteCount(self.draw.draw(st.integers(0, room))))
            else:
                self.night_step(phase)

    def night_step(self, phase: Phase) -> None:
        state = self.state
        living = state.living()
        if phase is Phase.NIGHT_MAFIA:
            black = [s for s in living if state.players[s].role in (Role.MAFIA, Role.DON)]
            if state.day > FREE_DAYS:
                red = [s for s in living if s not in black]
                target = self.pick(red)
                for _ in black:
                    self.step(EnterSeats((target,)))  # type: ignore[arg-type]
            else:
                for _ in range(self.draw.draw(st.integers(0, len(black)))):
                    choice = self.pick(["miss", *living])
                    self.step(Miss() if choice == "miss" else EnterSeats((choice,)))  # type: ignore[arg-type]
            actions = self.state.night_actions
            if black and len(actions.shots) == len(black):
                dealt = [s for s, p in state.players.items() if p.role in (Role.MAFIA, Role.DON)]
                for _ in range(len(dealt) - len(black) - len(actions.dropped_shots)):
                    self.step(Miss())  # a departed black player's turn: taken, dropped
                self.refused(EnterSeats((living[0],)), "fiim_shots_entered")  # MR 8.4
        else:
            role = Role.DON if phase is Phase.NIGHT_DON else Role.SHERIFF
            seat = self.pick(list(state.players))
            if not state.role_alive(role):
                # A fair night: the step of a role that has left takes an entry as a living
                # role's would (the same feedback), once, and drops it: nobody checks.
                if self.draw.draw(st.booleans()):
                    self.step(EnterSeats((seat,)))  # type: ignore[arg-type]
                    assert role not in self.state.night_actions.checks
                    event("a departed role's step took an entry")
                    self.refused(EnterSeats((seat,)), "fiim_already_checked")  # type: ignore[arg-type]
            elif self.draw.draw(st.booleans()):
                self.step(EnterSeats((seat,)))  # type: ignore[arg-type]
        self.run_out()


@pytest.mark.slow  # a few seconds: each step copies the whole game state
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_fiim_games_end_and_nobody_who_left_acts(data: st.DataObject) -> None:
    roles = data.draw(st.permutations(range(1, 11)))
    rules = fiim_settings().game
    game = FiimGame(engine_for(rules), data)
    game.play([Seat(seat) for seat in roles])
    state = game.state
    assert state.phase is Phase.GAME_OVER
    assert state.day <= FREE_DAYS + 10
    winner = state.record["winner"]
    assert winner == (state.winner.value if state.winner is not None else "draw")
    assert sorted(state.record["roles"].values()).count("mafia") == 2
    check_scores(state, rules.fiim)
    event(f"ends: {winner}")
    event("a best move" if state.record["best_move"] else "no best move")
    event("a removal" if any(p.left_how == "removed" for p in state.players.values()) else "none")
    event("a team loss" if "team_loss" in state.record else "no team loss")


#: The teams of the FIIM cards (docs/RULES-FIIM.md), written out: the test does not ask the
#: engine what it is testing.
TEAMS = {
    Role.MAFIA: Team.BLACK,
    Role.DON: Team.BLACK,
    Role.SHERIFF: Team.RED,
    Role.CIVILIAN: Team.RED,
}


def check_scores(state: GameState, fiim: FiimSettings) -> None:
    """§11: every seat has one line; the winners have the win, the rest the loss; only the
    first night's red victim has a best move, scored by how many of the three are black; only
    the removed have the penalty."""
    lines = state.record["scores"]
    assert [line["seat"] for line in lines] == list(range(1, 11))
    winner = state.record["winner"]
    wins = sum(line["win"] for line in lines)
    winners = sum(1 for p in state.players.values() if p.role and TEAMS[p.role].value == winner)
    assert wins == pytest.approx(winners * fiim.score_win + (10 - winners) * fiim.score_loss)
    best = state.record["best_move"]
    for line in lines:
        player = state.players[line["seat"]]
        expected = 0.0
        if best is not None and best["seat"] == line["seat"] and TEAMS[player.role] is Team.RED:
            points = {3: fiim.score_best_move_3, 2: fiim.score_best_move_2}
            expected = points.get(best["black"], 0.0)
        assert line["best_move"] == expected
        penalty = fiim.score_removal if player.left_how == "removed" else 0.0
        loss = state.record.get("team_loss")
        if loss is not None and loss["seat"] == line["seat"]:
            penalty += fiim.score_team_loss
        assert line["penalty"] == pytest.approx(penalty)
    if best is not None:
        assert best["black"] == sum(
            1 for s in best["seats"] if state.players[s].role in (Role.MAFIA, Role.DON)
        )
