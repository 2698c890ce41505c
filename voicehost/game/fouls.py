"""Fouls and removals: a player leaving the table, and the day kept consistent after it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from voicehost.game.effects import Effect, Say
from voicehost.game.errors import RuleViolation
from voicehost.game.inputs import Foul, Remove, TeamLoss
from voicehost.game.model import Phase, Seat, Team
from voicehost.game.rules import GameRules
from voicehost.game.ruleset import RuleSet
from voicehost.game.state import GameState
from voicehost.game.table import Table


class Fouls(Table):
    """Fouls, removals, the team loss and every departure."""

    def __init__(self, settings: GameRules, ruleset: RuleSet) -> None:
        super().__init__(settings, ruleset)
        self.foul_rule = FOULS[ruleset.fouls]

    def depart(self, state: GameState, out: list[Effect], seat: Seat, how: str) -> None:
        """The player leaves the table (``how``: vote, kill, disqualified, removed): recorded
        the same way by every rule set, announced as its cards are shown."""
        player = state.players[seat]
        player.alive = False
        player.left_how = how
        state.record["departures"] = [
            *state.record["departures"],
            {"seat": seat, "role": self._role_value(player.role), "how": how, "day": state.day,
             "night": state.night, "phase": state.phase.value},
        ]  # fmt: skip
        self._announce_departure(state, out, seat, how)

    def _announce_departure(
        self, state: GameState, out: list[Effect], seat: Seat, how: str
    ) -> None:
        self.card_rule.departure(self, state, seat, how, out)

    def _count_foul(self, state: GameState, seat: Seat) -> bool:
        """One more foul for ``seat``, recorded; True when it sends the player away."""
        self._validate_seat(state, seat)
        player = state.players[seat]
        player.fouls += 1
        leaves = self._foul_sends_away(state, player.fouls)
        state.record["fouls"] = [
            *state.record["fouls"],
            {"seat": seat, "day": state.day, "night": state.night, "phase": state.phase.value,
             "count": player.fouls, "disqualified": leaves},
        ]  # fmt: skip
        return leaves

    def _foul_sends_away(self, state: GameState, fouls: int) -> bool:
        return self.foul_rule.sends_away(self, state, fouls)

    def _limit_removes(self, state: GameState, fouls: int) -> bool:
        return fouls >= self.settings.fiim.fouls_to_remove  # MR 9.7: day or night

    def _night_or_limit(self, state: GameState, fouls: int) -> bool:
        night = state.phase.is_night  # the club: a foul at night, or the last one
        return (night and self.rules.night_foul_disqualifies) or (
            fouls >= self.rules.fouls_to_disqualify
        )

    def on_foul(self, state: GameState, event: Foul, out: list[Effect]) -> None:
        seat = event.seat
        sent_away = self._count_foul(state, seat)
        self.foul_rule.counted(self, state, seat, sent_away, out)

    def _costs_speech_then_removes(
        self, state: GameState, seat: Seat, sent_away: bool, out: list[Effect]
    ) -> None:
        """MR 9.5 to 9.7: warnings; the one before the limit costs the next speech; the limit
        removes."""
        player = state.players[seat]
        night = state.phase.is_night  # at night no seat number is spoken
        if sent_away:
            self._remove(state, seat, out)
            return
        if not night:
            out.append(Say("foul.warning", {"seat": seat, "fouls": player.fouls}))
        if player.fouls == self.settings.fiim.fouls_to_remove - 1:
            state.speech_lost = [*state.speech_lost, seat]
            if not night:
                out.append(Say("fiim.speech_lost", {"seat": seat}))

    def _disqualifies(
        self, state: GameState, seat: Seat, sent_away: bool, out: list[Effect]
    ) -> None:
        """The club's: warnings, then the player is disqualified (at night, told in the
        morning)."""
        player = state.players[seat]
        night = state.phase.is_night  # at night no seat number is spoken
        if not sent_away:
            if not night:
                out.append(Say("foul.warning", {"seat": seat, "fouls": player.fouls}))
            return
        if night:
            state.night_actions.disqualified.append(seat)
            self.depart(state, out, seat, "disqualified")
            if self.end.winner(state) is not None:
                self.morning.end_night_with_win(state, out)
            return  # the table hears of it in the morning
        self.depart(state, out, seat, "disqualified")
        if self.end.announce_winner(state, out):
            return
        if self.value(self.ruleset.disqualified_speak):
            state.disqualified_to_speak.append(seat)
        self._after_day_departure(state, out, seat)

    def on_remove(self, state: GameState, event: Remove, out: list[Effect]) -> None:
        """MR 10.11 to 10.20: the gravest faults remove a player at once (where the rules
        remove; the club's disqualify by fouls only)."""
        if not self.ruleset.removal:
            raise RuleViolation("remove_not_in_club", seat=event.seat)
        self._validate_seat(state, event.seat)
        self._remove(state, event.seat, out)

    def on_team_loss(self, state: GameState, event: TeamLoss, out: list[Effect]) -> None:
        """MR 10.21 to 10.24: the gravest faults (deliberate peeking, help from the audience,
        oaths, blackmail, threats, bribes, bets) cost the player's whole team the game. It is
        the referee's decision and ends the game at once, so it must be confirmed; the player
        is penalised ``fiim.score_team_loss``. A player who has left can still cause it."""
        seat = event.seat
        if not self.ruleset.team_loss:
            raise RuleViolation("team_loss_not_in_club", seat=seat)
        self._validate_seat(state, seat, alive=False)
        role = state.players[seat].role
        if role is None or not state.record["roles"]:
            raise RuleViolation("team_loss_before_morning", seat=seat)
        if not event.confirmed:
            raise RuleViolation("team_loss_confirm", seat=seat)
        loser = self.team_of(role)
        state.record["team_loss"] = {
            "seat": seat, "team": loser.value, "day": state.day, "night": state.night,
            "phase": state.phase.value,
        }  # fmt: skip
        out.append(Say("fiim.team_loss", {"seat": seat}))
        self.end.declare(state, out, Team.RED if loser is Team.BLACK else Team.BLACK)

    def _remove(self, state: GameState, seat: Seat, out: list[Effect]) -> None:
        """The player leaves at once without a last word (MR 9.7); at night the morning says
        so; by day the vote is cancelled as MR 9.8 says."""
        decided = self._vote_decided(state)
        leaving = seat in self._leaving(state) if decided else False
        self.depart(state, out, seat, "removed")
        if state.phase.is_night:
            state.night_actions.disqualified.append(seat)
            if self.end.winner(state) is not None:
                self.morning.end_night_with_win(state, out)
            return
        if self.end.announce_winner(state, out):
            return
        if seat in state.candidates and not decided:
            state.candidates.remove(seat)
        if not self.settings.fiim.removal_cancels_vote:
            self._after_day_departure(state, out, seat)
            return
        if decided:
            if not leaving:
                state.vote_cancelled_day = state.day + 1
            return
        state.vote_cancelled_day = state.day
        phase = state.phase
        if phase is Phase.NOMINATION:
            if state.current_speaker == seat:
                self._stop_timer(state, out)
                self.day.next_nomination_speaker(state, out)
        elif phase in (Phase.DEFENCE, Phase.VOTE, Phase.THIRD_VOTE):
            self._stop_timer(state, out)
            self.cancel_vote(state, out)

    @staticmethod
    def _vote_decided(state: GameState) -> bool:
        """The day's result is known: counted and pausing, or its last words (MR 9.8). The
        morning's last words open a day whose vote is still to come."""
        evening = state.phase is Phase.LAST_WORDS and state.after_last_words != "day"
        return state.vote_settling is not None or evening

    @staticmethod
    def _leaving(state: GameState) -> list[Seat]:
        """Who the counted vote sends away (empty when it ties or keeps them)."""
        if state.vote_settling == "third":
            return list(state.candidates) if 2 * state.third_vote_for > len(state.living()) else []
        if state.vote_settling == "vote" and state.vote_counts:
            top = max(state.vote_counts.values())
            leaders = [seat for seat, count in state.vote_counts.items() if count == top]
            return leaders if len(leaders) == 1 else []
        return []

    def cancel_vote(self, state: GameState, out: list[Effect]) -> None:
        state.vote_settling = None
        state.vote_cancelled_day = None
        self.day.day_record(state)["vote_cancelled"] = True
        out.append(Say("fiim.vote_cancelled"))
        self.night.begin_night(state, out)

    def _after_day_departure(self, state: GameState, out: list[Effect], seat: Seat) -> None:
        """Keep the day consistent after a disqualification."""
        phase = state.phase
        if seat in state.candidates:
            state.candidates.remove(seat)
        if phase is Phase.ACQUAINTANCE and state.current_speaker == seat:
            self._stop_timer(state, out)
            self.day.next_acquaintance(state, out)
            return
        if phase in (Phase.NOMINATION, Phase.DEFENCE) and state.current_speaker == seat:
            self._stop_timer(state, out)
            if phase is Phase.NOMINATION:
                self.day.next_nomination_speaker(state, out)
            else:
                self.day.next_defence(state, out)
        elif phase is Phase.VOTE:
            self._stop_timer(state, out)
            if state.vote_counts:  # what the table had counted stays in the record
                self.vote.record_count(state, interrupted_by=seat)
            state.vote_starts += 1
            self.vote.start_vote(state, out)  # the voters changed: the vote starts again
        elif phase is Phase.THIRD_VOTE:
            self._stop_timer(state, out)
            state.vote_settling = None
            if not state.candidates:
                self.night.begin_night(state, out)
            else:
                out.append(Say("day.third_vote"))  # the voters changed: the vote starts again


@dataclass(frozen=True)
class FoulRule:
    """What fouls do (``day.fouls``)."""

    sends_away: Callable[[Fouls, GameState, int], bool]  # this count of fouls: the player leaves
    counted: Callable[[Fouls, GameState, Seat, bool, list[Effect]], None]  # what a foul does


#: ``day.fouls``: what fouls do.
FOULS: dict[str, FoulRule] = {
    "night_foul_or_limit_disqualifies": FoulRule(Fouls._night_or_limit, Fouls._disqualifies),
    "third_costs_speech_limit_removes": FoulRule(
        Fouls._limit_removes, Fouls._costs_speech_then_removes
    ),
}
