"""What every part of the engine reads: the club's settings, the rule set and its values,
the night's steps, timers and seats; and the other parts, wired together by ``Engine``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from voicehost.game.effects import CancelTimer, Effect, Say, StartTimer
from voicehost.game.errors import RuleViolation
from voicehost.game.model import Phase, Role, Seat, Team, TimerKind
from voicehost.game.rules import GameRules
from voicehost.game.ruleset import NightStep, RoleSpec, RuleSet
from voicehost.game.state import GameState, Timer

if TYPE_CHECKING:
    from voicehost.game.day import Day
    from voicehost.game.end import End
    from voicehost.game.fouls import Fouls
    from voicehost.game.morning import Morning
    from voicehost.game.night import Night
    from voicehost.game.vote import Vote


class Table:
    """The settings and the rule set one table plays by, and the parts of its engine."""

    night: Night
    morning: Morning
    day: Day
    vote: Vote
    fouls: Fouls
    end: End

    def __init__(self, settings: GameRules, ruleset: RuleSet) -> None:
        self.settings = settings
        self.ruleset = ruleset
        self.rules = settings.rules
        self.timers = settings.timers
        self.card_rule = CARDS[self.cards]

    def value(self, setting: Any) -> Any:
        """A rule set value: a constant, or ``section.key`` read from the game's settings."""
        if isinstance(setting, str) and "." in setting:
            found: Any = self.settings
            for part in setting.split("."):  # timers.warning_seconds.nomination: one deeper
                found = getattr(found, part)
            return found
        return setting

    def action(self, spec: RoleSpec) -> str:
        """What a role does at night (a constant, or a setting such as the city's Commissar's)."""
        return str(self.value(spec.action))

    @property
    def cards(self) -> str:
        """What the table hears of a card that leaves: open, closed or half_closed."""
        return str(self.value(self.ruleset.cards))

    @property
    def calls_departed(self) -> bool:
        """Every night step is called, even when its holder has left: as the rule set says
        (``night.call_departed``), and always when a card that leaves is not told (closed or
        half-closed cards), since a step no longer called would tell the table who had left."""
        return self.ruleset.call_departed or not self.card_rule.shows_card

    @property
    def black_count(self) -> int:
        """How many black players sit at this table."""
        table = self.value(self.ruleset.black)
        return int(table[self.settings.players])

    def enabled(self, role: Role) -> bool:
        spec = self.ruleset.roles.get(role)
        return spec is not None and bool(self.value(spec.enabled))

    def team_of(self, role: Role | None) -> Team:
        return self.ruleset.team(role)

    def living_of(self, state: GameState, team: Team) -> int:
        """How many players of a team are still at the table."""
        return sum(
            1
            for player in state.players.values()
            if player.alive and player.role is not None and self.team_of(player.role) is team
        )

    def _steps(self, night0: bool) -> tuple[NightStep, ...]:
        return self.ruleset.night0_steps if night0 else self.ruleset.night_steps

    @staticmethod
    def phase_of(step: NightStep, night0: bool) -> Phase:
        return Phase(("night0_" if night0 else "night_") + step.role.value)

    def _step(self, phase: Phase) -> tuple[NightStep, bool] | None:
        """The night step ``phase`` is, and whether it is night 0's."""
        for night0 in (True, False):
            for step in self._steps(night0):
                if self.phase_of(step, night0) is phase:
                    return step, night0
        return None

    def _registering(self, phase: Phase) -> bool:
        found = self._step(phase)
        return found is not None and found[1]

    def _night_step(self, phase: Phase) -> bool:
        found = self._step(phase)
        return found is not None and not found[1]

    def deck(self) -> list[Role]:
        """The cards of this table, to deal: the black team (its head first, where the black
        team's step of night 0 names one), one of each other card in play, civilians."""
        first = self.ruleset.night0_steps[0]
        heads = [role for role in first.registers if role is not first.role and self.enabled(role)]
        cards = heads[:1] + [first.role] * (self.black_count - len(heads[:1]))
        for step in self.ruleset.night0_steps[1:]:
            if step.role not in first.registers and self.enabled(step.role):
                cards.append(step.role)
        return cards + [Role.CIVILIAN] * (self.settings.players - len(cards))

    def registers(self, role: str) -> tuple[Role, ...]:
        """The cards a night-0 question for ``role`` names (the black team's: all of them)."""
        for step in self.ruleset.night0_steps:
            if step.role.value == role:
                return step.registers or (step.role,)
        return ()

    def _registered_count(self, step: NightStep) -> int:
        """How many seats a night-0 step registers: the black team's count for its step."""
        if step.role is Role.MAFIA:
            return self.black_count
        return 1

    def _start_timer(
        self,
        state: GameState,
        out: list[Effect],
        kind: TimerKind,
        seconds: float,
        warn_before: float | None,
        speaker: Seat | None = None,
    ) -> None:
        state.timer_seq += 1
        state.timer = Timer(state.timer_seq, kind, seconds, warn_before, kind.is_speech, speaker)
        out.append(self.timer_effect(state.timer))

    @staticmethod
    def timer_effect(timer: Timer) -> StartTimer:
        """The StartTimer effect that (re)starts ``timer`` at full length."""
        return StartTimer(
            timer.timer_id,
            timer.kind,
            timer.seconds,
            timer.warn_before,
            timer.listen,
            timer.speaker,
        )

    def _stop_timer(self, state: GameState, out: list[Effect]) -> None:
        if state.timer is not None:
            state.timer = None
            out.append(CancelTimer())
        state.speech_running = False

    def _speech_warning(self, setting: str, seconds: float) -> float | None:
        """The warning of a speech of ``seconds`` (``setting`` names it, by speech kind); none
        when it is 0 or would not sound before the speech ends."""
        warning = float(self.value(setting))
        return warning if 0 < warning < seconds else None

    def _check_timer(self, state: GameState, timer_id: int) -> None:
        if state.timer is None or state.timer.timer_id != timer_id:
            raise RuleViolation("timer_stale")

    def _validate_seat(self, state: GameState, seat: Seat, *, alive: bool = True) -> None:
        if seat not in state.players:
            raise RuleViolation("no_such_seat", seat=seat, players=len(state.players))
        if alive and not state.players[seat].alive:
            raise RuleViolation("seat_left", seat=seat)

    @staticmethod
    def _distinct(seats: tuple[Seat, ...]) -> list[Seat]:
        seen: list[Seat] = []
        for seat in seats:
            if seat not in seen:
                seen.append(seat)
        return seen

    @staticmethod
    def _exactly(seats: tuple[Seat, ...], expected: int) -> None:
        if len(seats) != expected:
            raise RuleViolation("wrong_seat_count", expected=expected, given=len(seats))

    def _team_step(self, role: Role) -> bool:
        """Whether ``role`` was named already on the black team's step of night 0."""
        return role in self.ruleset.night0_steps[0].registers

    def _black_seats(self, state: GameState) -> list[Seat]:
        return [
            seat
            for seat in state.living()
            if self.team_of(state.players[seat].role) is Team.BLACK
            and state.players[seat].role is not None
        ]

    @staticmethod
    def _role_value(role: Role | None) -> str:
        return (role or Role.CIVILIAN).value

    def black_known(self, state: GameState) -> int:
        """How many black players the table knows to be at the table, as the one-black-left
        rule counts them: with open or half-closed cards every card that leaves tells its team,
        so the count is the true one; closed cards tell nothing, so the table knows only the
        black cards dealt (docs/RULES.md, the nominations)."""
        return self.card_rule.black_known(self, state)


@dataclass(frozen=True)
class Cards:
    """What the table learns of a card when its player leaves (``cards``)."""

    shows_card: bool  # the card is said (open): a step of a departed role may go uncalled,
    # a card may leave in silence (with closed cards the silence would name it)
    hides_black: bool  # night 0 keeps the black cards hidden even from a wrong entry
    black_known: Callable[[Table, GameState], int]  # the black players the table counts
    left_at_night: Callable[[Table, GameState, Seat], Say]  # the morning's word of a departure
    departure: Callable[[Table, GameState, Seat, str, list[Effect]], None]  # its word by day


def _living_black(table: Table, state: GameState) -> int:
    return table.living_of(state, Team.BLACK)


def _black_dealt(table: Table, state: GameState) -> int:
    return table.black_count


def _left_open(table: Table, state: GameState, seat: Seat) -> Say:
    role = table._role_value(state.players[seat].role)
    return Say("morning.disqualified", {"seat": seat, "role": role})


def _left_half_closed(table: Table, state: GameState, seat: Seat) -> Say:
    role = state.players[seat].role
    if role is None:
        return _left_closed(table, state, seat)
    team = table.team_of(role).value  # the team, as by day
    return Say("city.disqualified_team", {"seat": seat, "team": team})


def _left_closed(table: Table, state: GameState, seat: Seat) -> Say:
    return Say("fiim.removed", {"seat": seat})


def _untold(state: GameState, seat: Seat, how: str, out: list[Effect]) -> bool:
    """What every told card shares: nothing is said of a disqualification at night (the
    morning tells), nor of a card the host has not learnt (the acquaintance round)."""
    if how == "disqualified" and state.phase.is_night:
        return True  # announced in the morning: at night the host never speaks a seat number
    if state.players[seat].role is None:
        out.append(Say("foul.disqualified_card", {"seat": seat}))
        return True
    return False


def _departure_open(
    table: Table, state: GameState, seat: Seat, how: str, out: list[Effect]
) -> None:
    if _untold(state, seat, how, out):
        return
    key = "foul.disqualified" if how == "disqualified" else "day.leaves"
    out.append(Say(key, {"seat": seat, "role": table._role_value(state.players[seat].role)}))


def _departure_half_closed(
    table: Table, state: GameState, seat: Seat, how: str, out: list[Effect]
) -> None:
    """The team is told, not the card."""
    if _untold(state, seat, how, out):
        return
    team = table.team_of(state.players[seat].role).value
    key = "city.disqualified_team" if how == "disqualified" else "city.leaves_team"
    out.append(Say(key, {"seat": seat, "team": team}))


def _departure_closed(
    table: Table, state: GameState, seat: Seat, how: str, out: list[Effect]
) -> None:
    """The card stays hidden (MR 7.24, 8.5)."""
    if how == "vote":
        out.append(Say("fiim.leaves", {"seat": seat}))
    elif how != "kill" and not state.phase.is_night:  # the morning tells of these
        out.append(Say("fiim.removed", {"seat": seat}))
    if seat in state.speech_lost:
        state.speech_lost = [s for s in state.speech_lost if s != seat]


#: ``cards``: what the table learns of a card when its player leaves.
CARDS: dict[str, Cards] = {
    "open": Cards(True, False, _living_black, _left_open, _departure_open),
    "closed": Cards(False, True, _black_dealt, _left_closed, _departure_closed),
    "half_closed": Cards(False, False, _living_black, _left_half_closed, _departure_half_closed),
}
