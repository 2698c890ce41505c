"""The night: night 0's registration, each wake and its entry, the order of the steps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from voicehost.game.effects import Effect, Private, PrivateKind, Prompt, PromptKind, Say
from voicehost.game.errors import RuleViolation
from voicehost.game.inputs import Miss
from voicehost.game.model import Phase, Role, Seat, Team, TimerKind
from voicehost.game.rules import GameRules
from voicehost.game.ruleset import NightStep, RoleSpec, RuleSet
from voicehost.game.state import GameState, NightActions
from voicehost.game.table import Table


class Night(Table):
    """The night's steps: who is woken, what they enter, when the night ends."""

    def __init__(self, settings: GameRules, ruleset: RuleSet) -> None:
        super().__init__(settings, ruleset)
        #: what each role does at night (an action a setting chooses is read once, here)
        self.acts = {role: ACTIONS[self.action(spec)] for role, spec in ruleset.roles.items()}
        self.learns = {role: LEARNS[spec.learns] for role, spec in ruleset.roles.items()}
        self.agreement = AGREEMENT[ruleset.agreement]

    def answers_privately(self, phase: Phase) -> bool:
        """A night step whose entry is answered to its role alone: once seen, never undone."""
        found = self._step(phase)
        if found is None or found[1]:
            return False
        spec = self.ruleset.roles[found[0].role]
        return spec.private and self.acts[spec.name].asks

    def start_night0(self, state: GameState, out: list[Effect]) -> None:
        if self.ruleset.deal and (not self.rules.acquaintance or self.ruleset.deal_opens_night):
            # «Наступает ночь. Раздача карт.» (MR 4.3, 4.4): the host waits for the cards
            state.phase = Phase.NIGHT0_DEAL
            out.append(Say(self.ruleset.deal))
            return
        out.append(Say(self.ruleset.night0_opening))
        self._wake(state, out, self.phase_of(self.ruleset.night0_steps[0], True))

    def cards_dealt(self, state: GameState, out: list[Effect]) -> None:
        """The cards are dealt (`.`, or the black team typing its seats): the first wake."""
        if self.ruleset.deal_opens_night:
            out.append(Say(self.ruleset.night0_opening))
        self._wake(state, out, self.phase_of(self.ruleset.night0_steps[0], True))

    def shot_turns(self, state: GameState, spec: RoleSpec) -> Prompt | None:
        """The black team's step when each black player shoots (MR 8.4): the host calls the
        living black seats in seat order, as the protocol credits the shots, so the question
        names whose shot is next and its place («1 из 3»); once every shot is in, it says so (an
        entry still reaches the rules, which tell the one awake why it is refused). It follows
        the seats alone, never what was entered."""
        if spec.team is not Team.BLACK or not self.acts[spec.name].kills:
            return None
        return self.agreement.turns(self, state, spec)

    def _no_turns(self, state: GameState, spec: RoleSpec) -> Prompt | None:
        return None  # one entry for the black team: no turns

    def _turn_prompt(self, state: GameState, spec: RoleSpec) -> Prompt | None:
        if not self._black_seats(state):
            return None
        living, waiting = self._shot_turns_left(state)
        turns = len(self._shot_order(state))
        question = "prompt_shots_in"
        if waiting:
            question = "prompt_shot_turn" if waiting[0] in living else "prompt_shot_turn_departed"
        return Prompt(
            PromptKind.SEATS,
            1,
            1,
            subject=waiting[0] if waiting else None,
            night=True,
            role=spec.name.value,
            action="kill",
            may_miss=True,
            question=question,
            turn=turns - len(waiting) + 1 if waiting else turns,
            turns=turns,
        )

    def _shot_order(self, state: GameState) -> list[Seat]:
        """The turns of a night's shot when each black player shoots: the living black players
        in seat order, then those who have left. A turn for every black card dealt, so the table
        hears as many entries whoever has left, its cards closed; a departed player's turn takes
        an entry and drops it."""
        living = self._black_seats(state)
        departed = [
            seat
            for seat, player in sorted(state.players.items())
            if not player.alive and player.role is not None
            and self.team_of(player.role) is Team.BLACK
        ]  # fmt: skip
        return living + departed

    def _shot_turns_left(self, state: GameState) -> tuple[list[Seat], list[Seat]]:
        """The living black seats, and the turns still to be entered tonight."""
        actions = state.night_actions
        taken = {shooter for shooter, _ in actions.shots} | set(actions.dropped_shots)
        waiting = [seat for seat in self._shot_order(state) if seat not in taken]
        return self._black_seats(state), waiting

    def register(
        self, state: GameState, step: NightStep, seats: tuple[Seat, ...], out: list[Effect]
    ) -> None:
        """Night 0: a role's holders show themselves; the host learns the cards, the table
        hears nothing of them. A corrected entry replaces the earlier one."""
        self._exactly(seats, self._registered_count(step))
        for index, seat in enumerate(seats):
            self._validate_seat(state, seat, alive=False)
            if seat in seats[:index]:
                raise RuleViolation("duplicate_seats", seat=seat)
        players = state.players
        role = step.role
        if len(step.registers) > 1:  # the black team's step names the whole team
            team = set(step.registers)
            for player in players.values():
                if player.role in team:
                    player.role = None
            for seat in seats:
                players[seat].role = role
        elif self.team_of(role) is Team.BLACK and role is not Role.MAFIA and self._team_step(role):
            seat = seats[0]  # a black card among the seats the black team gave (FIIM's Don)
            if players[seat].role not in self.ruleset.black_roles():
                raise RuleViolation("fiim_don_not_black", seat=seat)
            for player in players.values():
                if player.role is role:
                    player.role = Role.MAFIA
            players[seat].role = role
        else:
            for seat in seats:
                taken = players[seat].role
                if taken is not None and taken is not role:
                    if self.card_rule.hides_black and self.team_of(taken) is Team.BLACK:
                        raise RuleViolation("fiim_sheriff_is_black", seat=seat)
                    raise RuleViolation("role_taken", seat=seat, role=taken.value)
            for player in players.values():
                if player.role is role:
                    player.role = None
            for seat in seats:
                players[seat].role = role
        state.step_entered = True
        out.append(Private(PrivateKind.ENTRY_CONFIRMED, seats=tuple(sorted(seats))))
        self.maybe_finish_night_step(state, out)

    def night_choice(
        self, state: GameState, step: NightStep, seats: tuple[Seat, ...], out: list[Effect]
    ) -> None:
        spec = self.ruleset.roles[step.role]
        act = self.acts[spec.name]
        self._exactly(seats, 1)
        seat = seats[0]
        if act.asks and spec.any_seat:
            self._validate_seat(state, seat, alive=False)  # any seat: a departed one is wasted
        else:
            self._validate_seat(state, seat)
        if self._nobody_acts(state, spec):  # the step is called, but nobody can act
            self._drop(state, spec, seat, out)
        else:
            act.enter(self, state, spec, seat, out)
        self.maybe_finish_night_step(state, out)

    def _no_action(self, state: GameState, spec: RoleSpec, seat: Seat, out: list[Effect]) -> None:
        raise RuleViolation("not_now", phase=state.phase.value)

    def _drop(self, state: GameState, spec: RoleSpec, seat: Seat | None, out: list[Effect]) -> None:
        """An entry at the step of a role that has left (fair nights): accepted as a living
        role's entry would be, with the same feedback, and dropped. Refusing it would tell the
        table, by the keypad's cue and the screen, that the role has left. A check is taken once
        a night, as a living role's; its answer is no answer (the keypad's LED stays dark as
        long as an answer would take), so whoever stands at the keypad learns no card."""
        actions = state.night_actions
        act = self.acts[spec.name]
        if act.asks:
            if spec.name in actions.dropped:
                raise RuleViolation(spec.already)
            actions.dropped = (*actions.dropped, spec.name)
            out.append(Private(PrivateKind.ANSWER, answer="private_no_check"))
            return
        if act.kills:
            actions.shot_entered = True  # a warning of no shot depends on the entry alone
        out.append(Private(PrivateKind.ENTRY_CONFIRMED, seats=() if seat is None else (seat,)))

    def _nobody_acts(self, state: GameState, spec: RoleSpec) -> bool:
        """A step called (fair nights) though its role has left the table."""
        if not self.calls_departed:
            return False
        if spec.name is Role.MAFIA:  # the black team's step: any black player shoots
            return not self._black_seats(state)
        return not state.role_alive(spec.name)

    def _shoot(
        self, state: GameState, spec: RoleSpec, target: Seat | None, out: list[Effect]
    ) -> None:
        actions = state.night_actions
        if spec.team is not Team.BLACK:  # a kill of its own (the Maniac's, the Commissar's)
            actions.other_kills[spec.name] = target
        else:
            self.agreement.shoot(self, state, target)
        actions.shot_entered = True
        state.step_entered = True
        out.append(Private(PrivateKind.ENTRY_CONFIRMED, seats=() if target is None else (target,)))

    def _check(self, state: GameState, spec: RoleSpec, seat: Seat, out: list[Effect]) -> None:
        """One check a night; the answer goes to the one who asked alone."""
        actions = state.night_actions
        if spec.name in actions.checks:
            raise RuleViolation(spec.already)
        holder = state.holder(spec.name)
        if seat == holder and not self.value(spec.self_target):
            raise RuleViolation("commissar_self_check")
        actions.checks[spec.name] = seat
        state.step_entered = True
        if holder is not None and holder in actions.blocks.values():
            # the «путана»'s client: no check tonight; he alone is told so
            out.append(Private(PrivateKind.ANSWER, answer="private_blocked"))
            return
        found = self.finds(spec, state.players[seat].role)
        yes, no = spec.answer
        out.append(Private(PrivateKind.ANSWER, found=found, answer=yes if found else no))

    def finds(self, spec: RoleSpec, card: Role | None) -> bool:
        """Whether a check of ``card`` answers yes, by what the role learns."""
        return self.learns[spec.name](self, spec, card)

    def _heal(self, state: GameState, spec: RoleSpec, seat: Seat, out: list[Effect]) -> None:
        self._may_protect(state, spec, seat)
        state.night_actions.heal = seat
        state.step_entered = True
        out.append(Private(PrivateKind.ENTRY_CONFIRMED, seats=(seat,)))

    def _block(self, state: GameState, spec: RoleSpec, seat: Seat, out: list[Effect]) -> None:
        self._may_protect(state, spec, seat)
        state.night_actions.blocks[spec.name] = seat
        state.step_entered = True
        out.append(Private(PrivateKind.ENTRY_CONFIRMED, seats=(seat,)))

    def _may_protect(self, state: GameState, spec: RoleSpec, seat: Seat) -> None:
        """The limits of a heal or a block: oneself (if at all, maybe once), not the same seat
        two nights running where the rules say so."""
        holder = state.holder(spec.name)
        if seat == holder:
            if not self.value(spec.self_target):
                raise RuleViolation("doctor_self_heal_off")
            if spec.self_once and spec.name in state.used_once:
                raise RuleViolation("doctor_self_heal_used")
            if spec.self_once:
                state.used_once = (*state.used_once, spec.name)
        previous = state.previous.get(spec.name)
        if seat == previous and not self.value(spec.same_twice):
            raise RuleViolation("doctor_same_patient", seat=seat)

    def on_miss(self, state: GameState, event: Miss, out: list[Effect]) -> None:
        found = self._step(state.phase)
        if found is None or found[1]:
            raise RuleViolation("not_now", phase=state.phase.value)
        spec = self.ruleset.roles[found[0].role]
        if not self.acts[spec.name].kills:
            raise RuleViolation("not_now", phase=state.phase.value)
        if self._nobody_acts(state, spec):
            self._drop(state, spec, None, out)
        else:
            self._shoot(state, spec, None, out)
        self.maybe_finish_night_step(state, out)

    def maybe_finish_night_step(self, state: GameState, out: list[Effect]) -> None:
        """A night step ends when its fixed window is over; on night 0 only once the role has
        entered, so that the host knows every card."""
        if not state.window_over:
            return
        found = self._step(state.phase)
        assert found is not None  # only night steps have windows
        step, night0 = found
        if night0 and not state.step_entered:
            return  # the host must learn the roles: the step waits for the entry
        out.append(Say(step.sleep))
        following = self._next_night_step(state, step, night0)
        if following is not None:
            self._wake(state, out, following)
        elif night0 and self.ruleset.seating is not None:
            self._free_seating(state, out)
        elif night0:
            self.morning.first_morning(state, out)
        else:
            self.morning.resolve_night(state, out)

    def _next_night_step(self, state: GameState, current: NightStep, night0: bool) -> Phase | None:
        order: list[NightStep] = []
        for step in self._steps(night0):
            if not self.enabled(step.role):
                continue
            # Unless every step is called whoever has left (fair nights), a role whose holder
            # has left is not called; the step under way still has its place in the order.
            called = (
                night0
                or self.calls_departed
                or step is current
                or step.role is Role.MAFIA
                or state.role_alive(step.role)
            )
            if called:
                order.append(step)
        position = order.index(current)
        if position + 1 < len(order):
            return self.phase_of(order[position + 1], night0)
        return None

    def _wake(self, state: GameState, out: list[Effect], phase: Phase) -> None:
        found = self._step(phase)
        assert found is not None
        step, _ = found
        state.phase = phase
        state.step_entered = False
        state.window_over = False
        out.append(Say(step.wake))
        seconds = self.value(step.window)
        warn = None
        if step.warn_after is not None:
            warn = seconds - self.value(step.warn_after)
        self._start_timer(state, out, TimerKind.NIGHT_WINDOW, seconds, warn)

    def _free_seating(self, state: GameState, out: list[Effect]) -> None:
        """MR 5.3: the players may sit more comfortably before the first morning."""
        state.phase = Phase.NIGHT0_SEATING
        state.window_over = False
        seconds = self.value(self.ruleset.seating)
        if seconds <= 0:
            self.morning.first_morning(state, out)
            return
        out.append(Say("fiim.free_seating"))
        self._start_timer(state, out, TimerKind.NIGHT_WINDOW, seconds, None)

    def begin_night(self, state: GameState, out: list[Effect]) -> None:
        waiting = [
            seat for seat in state.disqualified_to_speak if seat not in state.last_words_queue
        ]
        state.disqualified_to_speak = []
        if waiting:  # the day's disqualified players speak before the town falls asleep
            state.after_last_words = "night"
            state.last_words_queue = waiting
            self.day.next_last_words(state, out)
            return
        state.departures_at_dusk = len(state.record["departures"])
        state.night += 1
        state.night_actions = NightActions()
        state.candidates = []
        state.vote_counts = {}  # tomorrow's candidates show no count of today's until entered
        out.append(Say(self.ruleset.night_opening))
        first = next(step for step in self.ruleset.night_steps if self.enabled(step.role))
        self._wake(state, out, self.phase_of(first, False))

    def agreed_shot(self, state: GameState) -> Seat | None:
        """The black team's shot, as the rule set's agreement counts it; else a miss."""
        return self.agreement.agreed(self, state)

    def _shot_entered(self, state: GameState) -> Seat | None:
        return state.night_actions.shot

    def _shot_by_all(self, state: GameState) -> Seat | None:
        """The seat every living black player shot; anything else is a miss."""
        actions = state.night_actions
        shooters = self._black_seats(state)
        targets = [target for shooter, target in actions.shots if shooter in shooters]
        agreed = (
            bool(shooters)
            and len(targets) == len(shooters)
            and len(set(targets)) == 1
            and targets[0] is not None
            and state.players[targets[0]].alive
        )
        return targets[0] if agreed else None

    def _one_shot(self, state: GameState, target: Seat | None) -> None:
        state.night_actions.shot = target

    def _shot_in_turn(self, state: GameState, target: Seat | None) -> None:
        """MR 8.4: each black player in seat order."""
        actions = state.night_actions
        living, waiting = self._shot_turns_left(state)
        if not waiting:
            raise RuleViolation("fiim_shots_entered")
        if waiting[0] in living:
            actions.shots.append((waiting[0], target))
        else:  # the turn of a black player who has left: taken as any, and dropped
            actions.dropped_shots = (*actions.dropped_shots, waiting[0])


@dataclass(frozen=True)
class Action:
    """What a role does at night (``roles.*.action``)."""

    enter: Callable[[Night, GameState, RoleSpec, Seat, list[Effect]], None]  # a seat entered
    kills: bool = False  # may be missed; the black team's takes the agreement's turns
    asks: bool = False  # answered: privately where the role is private; any seat if any_seat
    heals: bool = False  # the heal the morning's kills respect
    keeps: Callable[[NightActions, Role], Seat | None] | None = None  # for «not twice running»


def _healed(actions: NightActions, role: Role) -> Seat | None:
    return actions.heal


def _blocked(actions: NightActions, role: Role) -> Seat | None:
    return actions.blocks.get(role)


#: ``roles.*.action``: what a role does at night.
ACTIONS: dict[str, Action] = {
    "none": Action(Night._no_action),
    "kill": Action(Night._shoot, kills=True),
    "check": Action(Night._check, asks=True),
    "heal": Action(Night._heal, heals=True, keeps=_healed),
    "block": Action(Night._block, keeps=_blocked),
    "protect": Action(Night._block, keeps=_blocked),
    "check_or_kill": Action(Night._check, asks=True),
}


def _finds_black(night: Table, spec: RoleSpec, card: Role | None) -> bool:
    return card is not None and night.team_of(card) is Team.BLACK


def _finds_role(night: Table, spec: RoleSpec, card: Role | None) -> bool:
    return card in spec.finds


#: ``roles.*.learns``: what a check's answer says (yes: a black card, or one of ``finds``).
LEARNS: dict[str, Callable[[Table, RoleSpec, Role | None], bool]] = {
    "black": _finds_black,
    "role": _finds_role,
    "none": _finds_black,
}


@dataclass(frozen=True)
class Agreement:
    """How the black team agrees on its shot (``night.agreement``)."""

    turns: Callable[[Night, GameState, RoleSpec], Prompt | None]  # whose turn the screen names
    shoot: Callable[[Night, GameState, Seat | None], None]  # an entry (None: a miss)
    agreed: Callable[[Night, GameState], Seat | None]  # the shot the morning resolves


#: ``night.agreement``: how the black team agrees on its shot.
AGREEMENT: dict[str, Agreement] = {
    "one_entry": Agreement(Night._no_turns, Night._one_shot, Night._shot_entered),
    "unanimous": Agreement(Night._turn_prompt, Night._shot_in_turn, Night._shot_by_all),
}
