"""The one engine: ``step(state, input) -> (state, effects)`` by a rule set given as data.

The rule set (``voicehost.game.ruleset.RuleSet``, read from ``game/presets/*.yaml`` or a club's
own file) names the roles, the night's steps, the morning's resolvers and the policies of the
day and the end; this module implements each policy once. The engine never touches a device, a
clock or a thread. Every wrong input raises ``RuleViolation`` naming the rule it breaks, and the
state it was given is left unchanged: each step works on a copy (``GameState.clone``, which
shares what a step never changes). The host journals an input only after the engine accepted it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from voicehost.game.effects import (
    CancelTimer,
    Effect,
    GameOver,
    PlayCue,
    Private,
    PrivateKind,
    Prompt,
    PromptKind,
    Say,
    StartTimer,
)
from voicehost.game.errors import RuleViolation
from voicehost.game.inputs import (
    EndSpeech,
    EnterSeats,
    Foul,
    Input,
    Miss,
    Remove,
    TeamLoss,
    TimerWarning,
    TimeUp,
    VoteCount,
)
from voicehost.game.model import Cue, Phase, Role, Seat, Team, TimerKind
from voicehost.game.record import (
    DayRecord,
    GameRecord,
    ScoreLine,
    VoteRound,
    new_record,
    seat_key,
)
from voicehost.game.rules import GameRules
from voicehost.game.ruleset import NightStep, RoleSpec, RuleSet
from voicehost.game.state import GameState, NightActions, Player, Timer

#: The speech kinds of a rule set's ``day.speeches``, by the timer that measures them.
SPEECH_KINDS = {
    TimerKind.ACQUAINTANCE_SPEECH: "acquaintance",
    TimerKind.NOMINATION_SPEECH: "nomination",
    TimerKind.DEFENCE_SPEECH: "defence",
    TimerKind.LAST_WORDS: "last_words",
}


class Engine:
    """The rules for one table: ``GameRules`` (the club's settings) and a ``RuleSet``
    (the roles and policies); stateless between calls."""

    def __init__(self, settings: GameRules, ruleset: RuleSet) -> None:
        self.settings = settings
        self.ruleset = ruleset
        self.rules = settings.rules
        self.timers = settings.timers

    # ------------------------------------------------------------------ the rule set's values

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
        return self.ruleset.call_departed or self.cards != "open"

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

    def answers_privately(self, phase: Phase) -> bool:
        """A night step whose entry is answered to its role alone: once seen, never undone."""
        found = self._step(phase)
        if found is None or found[1]:
            return False
        spec = self.ruleset.roles[found[0].role]
        return spec.private and self.action(spec) in ("check", "check_or_kill")

    # ------------------------------------------------------------------ public API

    def new_game(self) -> tuple[GameState, list[Effect]]:
        """A fresh table of ``settings.players`` seats: the acquaintance round (when the rules
        have it), then night 0."""
        players = {
            Seat(number): Player(Seat(number)) for number in range(1, self.settings.players + 1)
        }
        first = self.phase_of(self.ruleset.night0_steps[0], True)
        state = GameState(players=players, phase=first)
        state.record = new_record(self.settings.players, self.black_count)
        if self.ruleset.record_preset:
            state.record["preset"] = self.ruleset.name
            state.record["best_move"] = None
        if self.settings.ruleset_text:
            state.record["ruleset"] = self.settings.ruleset_text
        out: list[Effect] = [Say("game.start", {"players": self.settings.players})]
        if self.rules.acquaintance:
            state.phase = Phase.ACQUAINTANCE
            state.speakers = sorted(players)
            out.append(Say("acquaintance.start"))
            topic = self.rules.acquaintance_topic.strip()
            if topic:
                out.append(Say("acquaintance.topic", {"topic": topic}))
            self._next_acquaintance(state, out)
        else:
            self._start_night0(state, out)
        return state, out

    def _start_night0(self, state: GameState, out: list[Effect]) -> None:
        if self.ruleset.deal and (not self.rules.acquaintance or self.ruleset.deal_opens_night):
            # «Наступает ночь. Раздача карт.» (MR 4.3, 4.4): the host waits for the cards
            state.phase = Phase.NIGHT0_DEAL
            out.append(Say(self.ruleset.deal))
            return
        out.append(Say(self.ruleset.night0_opening))
        self._wake(state, out, self.phase_of(self.ruleset.night0_steps[0], True))

    def _cards_dealt(self, state: GameState, out: list[Effect]) -> None:
        """The cards are dealt (`.`, or the black team typing its seats): the first wake."""
        if self.ruleset.deal_opens_night:
            out.append(Say(self.ruleset.night0_opening))
        self._wake(state, out, self.phase_of(self.ruleset.night0_steps[0], True))

    def _next_acquaintance(self, state: GameState, out: list[Effect]) -> None:
        """The next player in seat order introduces themselves; after the last, night 0."""
        state.phase = Phase.ACQUAINTANCE
        while state.speakers and not state.players[state.speakers[0]].alive:
            state.speakers.pop(0)
        if not state.speakers:
            state.current_speaker = None
            self._start_night0(state, out)
            return
        self._give_floor(state, out, state.speakers.pop(0), TimerKind.ACQUAINTANCE_SPEECH)

    def step(self, state: GameState, event: Input) -> tuple[GameState, list[Effect]]:
        """Apply one input. Raises RuleViolation (state untouched) if it breaks a rule."""
        if state.phase is Phase.GAME_OVER:
            raise RuleViolation("game_over")
        new = state.clone()
        out: list[Effect] = []
        match event:
            case TimeUp():
                self._on_time_up(new, event, out)
            case TimerWarning():
                self._on_warning(new, event, out)
            case EndSpeech():
                self._on_end_speech(new, event, out)
            case EnterSeats():
                self._on_seats(new, event, out)
            case Miss():
                self._on_miss(new, event, out)
            case VoteCount():
                self._on_vote_count(new, event, out)
            case Foul():
                self._on_foul(new, event, out)
            case Remove():
                self._on_remove(new, event, out)
            case TeamLoss():
                self._on_team_loss(new, event, out)
        return new, out

    def prompt(self, state: GameState) -> Prompt:
        """What a person is asked to enter now: seats (for a role, how many, whether a miss
        may be entered), a count, a confirmation, or nothing."""
        phase = state.phase
        if self._best_move_open(state):
            return Prompt(
                PromptKind.SEATS,
                3,
                3,
                subject=state.best_move_by,
                speech_running=True,
                action="best_move",
                question="prompt_best_move",
            )
        found = self._step(phase)
        if found is not None:
            step, night0 = found
            spec = self.ruleset.roles[step.role]
            count = self._registered_count(step) if night0 else 1
            question = step.prompt
            if not night0 and spec.action != self.action(spec):  # an action a setting chooses
                question = f"{question}_{self.action(spec)}"
            if question == "prompt_register_mafia" and count == 1:
                question = "prompt_register_one_mafia"
            if not night0:
                turns = self._shot_turns(state, spec)
                if turns is not None:
                    return turns
                actions = state.night_actions
                # one check a night, made (or taken and dropped at a departed role's step, which
                # must read the same)
                if spec.name in actions.checks or spec.name in actions.dropped:
                    question = "prompt_check_done"
            return Prompt(
                PromptKind.SEATS,
                count,
                count,
                night=True,
                late=state.window_over and night0,
                role=step.role.value,
                action="register" if night0 else self.action(spec),
                may_miss=not night0 and self.action(spec) == "kill",
                question=question,
            )
        if phase is Phase.NIGHT0_SEATING:  # nothing to enter: the morning comes by the clock
            return Prompt(PromptKind.NONE, night=True, question="prompt_free_seating")
        if phase is Phase.NIGHT0_DEAL:  # `.` once dealt, or the black team's seats at once
            first = self.ruleset.night0_steps[0]
            count = self._registered_count(first)
            return Prompt(
                PromptKind.SEATS,
                count,
                count,
                speech_running=True,
                night=True,
                role=first.role.value,
                action="register",
                question="prompt_cards_dealt",
            )
        if phase is Phase.GAME_OVER:
            return Prompt(PromptKind.NONE, question="prompt_game_over")
        if phase is Phase.NOMINATION:
            nominate = self._nomination_prompt(state)
            if nominate is not None:
                return nominate
        if state.vote_settling is not None:
            return Prompt(PromptKind.CONFIRM_VOTE, question="prompt_confirm_vote")
        if phase is Phase.VOTE:
            candidate = state.candidates[state.vote_index]
            return Prompt(
                PromptKind.VOTE_COUNT,
                subject=candidate,
                max_count=self._vote_room(state),
                question="prompt_vote_count",
            )
        if phase is Phase.THIRD_VOTE:
            return Prompt(
                PromptKind.THIRD_VOTE_COUNT,
                max_count=self._third_vote_voters(state),
                question="prompt_third_vote_count",
            )
        return Prompt(PromptKind.NONE, speech_running=state.speech_running)

    def _shot_turns(self, state: GameState, spec: RoleSpec) -> Prompt | None:
        """The black team's step when each black player shoots (MR 8.4): the host calls the
        living black seats in seat order, as the protocol credits the shots, so the question
        names whose shot is next and its place («1 из 3»); once every shot is in, it says so (an
        entry still reaches the rules, which tell the one awake why it is refused). It follows
        the seats alone, never what was entered."""
        if (
            self.ruleset.agreement != "unanimous"
            or spec.team is not Team.BLACK
            or self.action(spec) != "kill"
        ):
            return None
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

    def _nomination_prompt(self, state: GameState) -> Prompt | None:
        speaker = state.current_speaker
        if speaker is None:
            return None
        if self.ruleset.nominations == "in_own_speech_one":
            if state.speech_running and not state.nominations.get(speaker):
                return Prompt(
                    PromptKind.SEATS,
                    1,
                    1,
                    subject=speaker,
                    speech_running=True,
                    action="nominate",
                    question="prompt_nominate",
                )
            return Prompt(PromptKind.NONE, speech_running=state.speech_running)
        already = len(state.nominations.get(speaker, []))
        room = self._nomination_limit(state) - already
        if room <= 0:
            return None
        owed = not state.speech_running and not already  # the speech is over, no name yet
        return Prompt(
            PromptKind.SEATS,
            0 if already or state.speech_running else 1,
            room,
            subject=speaker,
            speech_running=state.speech_running,
            action="nominate",
            question="prompt_nomination_required" if owed else "prompt_nominate",
        )

    def _registered_count(self, step: NightStep) -> int:
        """How many seats a night-0 step registers: the black team's count for its step."""
        if step.role is Role.MAFIA:
            return self.black_count
        return 1

    def resume_effects(self, state: GameState) -> list[Effect]:
        """After a restart: say so, then re-open the current step with its timer at full length."""
        out: list[Effect] = [Say("game.resumed")]
        phase = state.phase
        if phase is Phase.GAME_OVER:
            return out
        found = self._step(phase)
        if found is not None:
            out.append(Say(found[0].wake))
        elif phase is Phase.NIGHT0_SEATING:
            out.append(Say("fiim.free_seating"))
        elif phase is Phase.NIGHT0_DEAL:
            out.append(Say(self.ruleset.deal))
        elif phase is Phase.THIRD_VOTE and state.vote_settling is None:
            out.extend(self._third_vote_question(state, again=False))
        elif phase is Phase.VOTE and state.vote_settling is None:
            if len(state.candidates) > 1:  # the table is reminded whom it votes on
                out.append(Say(self._vote_start_key(state), {"seats": tuple(state.candidates)}))
            out.append(
                Say(self.ruleset.vote_question, {"seat": state.candidates[state.vote_index]})
            )
        elif phase is Phase.DISCUSSION:
            out.append(self._discussion_phrase())
        elif self._owes_nomination(state):
            out.append(Say("day.nomination_required", {"seat": state.current_speaker}))
        elif state.current_speaker is not None and state.speech_running:
            seat = state.current_speaker
            kind = state.timer.kind if state.timer is not None else TimerKind.NOMINATION_SPEECH
            if seat == state.lost_speech:  # MR 9.5.1: the table hears again it is no speech
                out.append(Say("fiim.speech_skipped", {"seat": seat}))
            elif seat == state.short_speech:
                out.append(Say("fiim.short_speech", {"seat": seat}))
            else:
                out.append(Say(self._floor(kind)[0], {"seat": seat}))
        timer = state.timer
        if timer is not None and not (self._registering(phase) and state.window_over):
            out.append(self.timer_effect(timer))
        return out

    def after_undo(self, before: GameState, after: GameState) -> list[Say]:
        """What the table hears after an undo that gave the floor back to another player (it
        had heard «Слово игроку номер два»): whose the floor is, and a nomination still owed."""
        speaker = after.current_speaker
        if after.phase.is_night or speaker is None or speaker == before.current_speaker:
            return []
        said = [Say("day.floor_back", {"seat": speaker})]
        if self._owes_nomination(after):
            said.append(Say("day.nomination_required", {"seat": speaker}))
        return said

    def _owes_nomination(self, state: GameState) -> bool:
        """The club's speaker whose speech is over has still to name a candidate."""
        speaker = state.current_speaker
        return (
            state.phase is Phase.NOMINATION
            and self.ruleset.nominations != "in_own_speech_one"
            and speaker is not None
            and not state.speech_running
            and not state.nominations.get(speaker)
        )

    def repeat_question(self, state: GameState) -> Say | None:
        """The vote's question again (after an undone count, so that hands go up again)."""
        if state.vote_settling is not None:
            return None
        if state.phase is Phase.VOTE:
            return Say(self.ruleset.vote_question, {"seat": state.candidates[state.vote_index]})
        if state.phase is Phase.THIRD_VOTE:
            return self._third_vote_question(state, again=True)[-1]
        return None

    def winner(self, state: GameState) -> Team | None:
        """The team that has won, if any (checked after every departure)."""
        if any(player.role is None for player in state.players.values()):
            return None  # night 0: the roles are not all known until the morning
        black = self.living_of(state, Team.BLACK)
        red = self.living_of(state, Team.RED)
        if self.ruleset.win == "parity_with_third_team":
            third = self.living_of(state, Team.MANIAC)
            if third and black + red <= 1:
                return Team.MANIAC  # the Maniac wins alone: one other player is left
            if black == 0 and third == 0:
                return Team.RED
            if third == 0 and black >= red:
                return Team.BLACK
            return None
        if black == 0:
            return Team.RED
        if black >= red:
            return Team.BLACK
        return None

    # ------------------------------------------------------------------ timers

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

    def _on_warning(self, state: GameState, event: TimerWarning, out: list[Effect]) -> None:
        self._check_timer(state, event.timer_id)
        found = self._step(state.phase)
        if found is not None and found[0].warn_after is not None and not found[1]:
            if not state.night_actions.shot_entered and not state.night_actions.warned:
                state.night_actions.warned = True
                out.append(Say("night.no_agreed_shot"))
        elif state.speech_running:
            out.append(PlayCue(Cue.WARNING))

    def _on_time_up(self, state: GameState, event: TimeUp, out: list[Effect]) -> None:
        self._check_timer(state, event.timer_id)
        if state.phase is Phase.NIGHT0_SEATING:
            state.timer = None
            self._first_morning(state, out)
            return
        if state.vote_settling is not None:
            state.timer = None
            self._settled(state, out)
            return
        if self._step(state.phase) is not None:
            state.timer = None
            state.window_over = True
            self._maybe_finish_night_step(state, out)
            return
        out.append(PlayCue(Cue.TIME_UP))
        self._end_speech(state, out)

    def _on_end_speech(self, state: GameState, event: EndSpeech, out: list[Effect]) -> None:
        if state.phase is Phase.NIGHT0_DEAL:  # «the cards are dealt»
            self._cards_dealt(state, out)
            return
        if state.vote_settling is not None:  # "the count is right": go on at once
            self._stop_timer(state, out)
            self._settled(state, out)
            return
        if not state.speech_running:
            raise RuleViolation("no_speech")
        out.append(PlayCue(Cue.SPEECH_ENDED))
        self._end_speech(state, out)

    def _end_speech(self, state: GameState, out: list[Effect]) -> None:
        state.timer = None
        state.speech_running = False
        out.append(CancelTimer())
        phase = state.phase
        if phase is Phase.ACQUAINTANCE:
            self._next_acquaintance(state, out)
        elif phase is Phase.DISCUSSION:
            self._start_nominations(state, out)
        elif phase is Phase.NOMINATION:
            self._nomination_speech_over(state, out)
        elif phase is Phase.DEFENCE:
            self._next_defence(state, out)
        elif phase is Phase.LAST_WORDS:
            self._next_last_words(state, out)

    def _nomination_speech_over(self, state: GameState, out: list[Effect]) -> None:
        speaker = state.current_speaker
        if self.ruleset.nominations == "in_own_speech_one":
            self._next_nomination_speaker(state, out)  # nominating is a choice, not a duty
        elif speaker is not None and state.nominations.get(speaker):
            self._next_nomination_speaker(state, out)
        elif speaker is not None:
            # The club's rules: nominating nobody is not allowed. The speech is over (time, or
            # «спасибо» before a name): the table hears that a candidate is still owed.
            out.append(Say("day.nomination_required", {"seat": speaker}))

    # ------------------------------------------------------------------ seats

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

    def _on_seats(self, state: GameState, event: EnterSeats, out: list[Effect]) -> None:
        if state.phase is Phase.NIGHT0_DEAL:  # the black team typing its seats: dealt
            self._cards_dealt(state, out)
        phase = state.phase
        found = self._step(phase)
        if found is not None:
            if found[1]:
                self._register(state, found[0], event.seats, out)
            else:
                self._night_choice(state, found[0], event.seats, out)
        elif phase is Phase.NOMINATION:
            self._nominate(state, event.seats, out)
        elif self._best_move_open(state):
            self._best_move(state, event.seats, out)
        else:
            raise RuleViolation("not_now", phase=phase.value)

    @staticmethod
    def _exactly(seats: tuple[Seat, ...], expected: int) -> None:
        if len(seats) != expected:
            raise RuleViolation("wrong_seat_count", expected=expected, given=len(seats))

    # ------------------------------------------------------------------ night 0

    def _register(
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
                    if self.cards == "closed" and self.team_of(taken) is Team.BLACK:
                        raise RuleViolation("fiim_sheriff_is_black", seat=seat)
                    raise RuleViolation("role_taken", seat=seat, role=taken.value)
            for player in players.values():
                if player.role is role:
                    player.role = None
            for seat in seats:
                players[seat].role = role
        state.step_entered = True
        out.append(Private(PrivateKind.ENTRY_CONFIRMED, seats=tuple(sorted(seats))))
        self._maybe_finish_night_step(state, out)

    def _team_step(self, role: Role) -> bool:
        """Whether ``role`` was named already on the black team's step of night 0."""
        return role in self.ruleset.night0_steps[0].registers

    # ------------------------------------------------------------------ night choices

    def _night_choice(
        self, state: GameState, step: NightStep, seats: tuple[Seat, ...], out: list[Effect]
    ) -> None:
        spec = self.ruleset.roles[step.role]
        action = self.action(spec)
        self._exactly(seats, 1)
        seat = seats[0]
        if action in ("check", "check_or_kill") and spec.any_seat:
            self._validate_seat(state, seat, alive=False)  # any seat: a departed one is wasted
        else:
            self._validate_seat(state, seat)
        if self._nobody_acts(state, spec):  # the step is called, but nobody can act
            self._drop(state, spec, seat, out)
        elif action == "kill":
            self._shoot(state, spec, seat, out)
        elif action in ("check", "check_or_kill"):
            self._check(state, spec, seat, out)
        elif action in ("heal", "protect", "block"):
            self._protect(state, spec, seat, out)
        else:
            raise RuleViolation("not_now", phase=state.phase.value)
        self._maybe_finish_night_step(state, out)

    def _drop(self, state: GameState, spec: RoleSpec, seat: Seat | None, out: list[Effect]) -> None:
        """An entry at the step of a role that has left (fair nights): accepted as a living
        role's entry would be, with the same feedback, and dropped. Refusing it would tell the
        table, by the keypad's cue and the screen, that the role has left. A check is taken once
        a night, as a living role's; its answer is no answer (the keypad's LED stays dark as
        long as an answer would take), so whoever stands at the keypad learns no card."""
        actions = state.night_actions
        if self.action(spec) in ("check", "check_or_kill"):
            if spec.name in actions.dropped:
                raise RuleViolation(spec.already)
            actions.dropped = (*actions.dropped, spec.name)
            out.append(Private(PrivateKind.ANSWER, answer="private_no_check"))
            return
        if self.action(spec) == "kill":
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
        elif self.ruleset.agreement == "unanimous":  # MR 8.4: each black player in seat order
            living, waiting = self._shot_turns_left(state)
            if not waiting:
                raise RuleViolation("fiim_shots_entered")
            if waiting[0] in living:
                actions.shots.append((waiting[0], target))
            else:  # the turn of a black player who has left: taken as any, and dropped
                actions.dropped_shots = (*actions.dropped_shots, waiting[0])
        else:
            actions.shot = target
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
        found = self._finds(spec, state.players[seat].role)
        yes, no = spec.answer
        out.append(Private(PrivateKind.ANSWER, found=found, answer=yes if found else no))

    def _finds(self, spec: RoleSpec, card: Role | None) -> bool:
        if spec.learns == "role":
            return card in spec.finds
        return card is not None and self.team_of(card) is Team.BLACK

    def _protect(self, state: GameState, spec: RoleSpec, seat: Seat, out: list[Effect]) -> None:
        holder = state.holder(spec.name)
        actions = state.night_actions
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
        if self.action(spec) == "heal":
            actions.heal = seat
        else:
            actions.blocks[spec.name] = seat
        state.step_entered = True
        out.append(Private(PrivateKind.ENTRY_CONFIRMED, seats=(seat,)))

    def _on_miss(self, state: GameState, event: Miss, out: list[Effect]) -> None:
        found = self._step(state.phase)
        if found is None or found[1]:
            raise RuleViolation("not_now", phase=state.phase.value)
        spec = self.ruleset.roles[found[0].role]
        if self.action(spec) != "kill":
            raise RuleViolation("not_now", phase=state.phase.value)
        if self._nobody_acts(state, spec):
            self._drop(state, spec, None, out)
        else:
            self._shoot(state, spec, None, out)
        self._maybe_finish_night_step(state, out)

    def _maybe_finish_night_step(self, state: GameState, out: list[Effect]) -> None:
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
            self._first_morning(state, out)
        else:
            self._morning(state, out)

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
            self._first_morning(state, out)
            return
        out.append(Say("fiim.free_seating"))
        self._start_timer(state, out, TimerKind.NIGHT_WINDOW, seconds, None)

    def _begin_night(self, state: GameState, out: list[Effect]) -> None:
        waiting = [
            seat for seat in state.disqualified_to_speak if seat not in state.last_words_queue
        ]
        state.disqualified_to_speak = []
        if waiting:  # the day's disqualified players speak before the town falls asleep
            state.after_last_words = "night"
            state.last_words_queue = waiting
            self._next_last_words(state, out)
            return
        state.departures_at_dusk = len(state.record["departures"])
        state.night += 1
        state.night_actions = NightActions()
        state.candidates = []
        state.vote_counts = {}  # tomorrow's candidates show no count of today's until entered
        out.append(Say(self.ruleset.night_opening))
        first = next(step for step in self.ruleset.night_steps if self.enabled(step.role))
        self._wake(state, out, self.phase_of(first, False))

    # ------------------------------------------------------------------ morning

    @staticmethod
    def _dawn(state: GameState) -> None:
        """The town wakes: the morning belongs to the next day. Night N lies between day N and
        day N+1; whatever happens from «Город просыпается» on (the victim's last minute, a foul
        in it, the day's speeches) is day N+1's, on the screen and in the protocol."""
        state.day += 1

    def _first_morning(self, state: GameState, out: list[Effect]) -> None:
        """After night 0: every card is known; who left during it is told; the first day."""
        state.timer = None
        self._dawn(state)
        out.append(Say(self.ruleset.morning_phrase))
        for player in state.players.values():
            if player.role is None:
                player.role = Role.CIVILIAN
        state.record["departures"] = [  # left before the cards were known
            {**departure, "role": self._role_value(state.players[departure["seat"]].role)}
            for departure in state.record["departures"]
        ]
        state.record["roles"] = {
            seat_key(seat): player.role.value
            for seat, player in sorted(state.players.items())
            if player.role is not None
        }
        actions = state.night_actions
        self._announce_left_at_night(state, out)
        speakers = list(actions.disqualified) if self.value(self.ruleset.disqualified_speak) else []
        state.record["nights"].append({"night": 0, "disqualified": list(actions.disqualified)})
        state.night_actions = NightActions()
        if self._announce_winner(state, out):
            return
        if speakers:
            state.after_last_words = "day"
            state.last_words_queue = speakers
            self._next_last_words(state, out)
            return
        self._start_day(state, out)

    def _announce_left_at_night(self, state: GameState, out: list[Effect]) -> None:
        """Who left the table during the night for a foul or a removal: the morning tells."""
        for seat in state.night_actions.disqualified:
            if self.cards == "open":
                role = self._role_value(state.players[seat].role)
                out.append(Say("morning.disqualified", {"seat": seat, "role": role}))
            elif self.cards == "half_closed" and state.players[seat].role is not None:
                team = self.team_of(state.players[seat].role).value  # the team, as by day
                out.append(Say("city.disqualified_team", {"seat": seat, "team": team}))
            else:
                out.append(Say("fiim.removed", {"seat": seat}))

    def _morning(self, state: GameState, out: list[Effect]) -> None:
        """The morning's resolvers in the rule set's order: who left for a foul, the night's
        kills (after blocks and heals), the public word of a check."""
        state.timer = None
        self._dawn(state)
        out.append(Say(self.ruleset.morning_phrase))
        actions = state.night_actions
        killed: list[Seat] = []
        for resolver in self.ruleset.morning:
            if resolver == "left_at_night":
                self._announce_left_at_night(state, out)
            elif resolver == "kills":
                killed = self._resolve_kills(state, out)
            else:
                self._announce_checks(state, out, killed)
        self._record_night(state, killed)
        speakers = list(actions.disqualified) if self.value(self.ruleset.disqualified_speak) else []
        for role, spec in self.ruleset.roles.items():  # not the same seat two nights running
            if self.action(spec) == "heal":
                state.previous[role] = actions.heal
            elif self.action(spec) in ("block", "protect"):
                state.previous[role] = actions.blocks.get(role)
        state.night_actions = NightActions()
        for seat in killed:
            self._depart(state, out, seat, "kill")
        if self._announce_winner(state, out) or self._announce_draw(state, out):
            return
        state.after_last_words = "day"
        queue: list[Seat] = []
        for seat in killed:
            card = self.ruleset.roles.get(state.players[seat].role or Role.CIVILIAN)
            # a card that leaves in silence (the club's Commissar) does so only where the
            # cards are open: with closed cards the silence would name it
            if card is not None and not self.value(card.killed_speaks) and self.cards == "open":
                if card.silent:
                    out.append(Say(card.silent))
            elif self.rules.last_words_after_kill:
                queue.append(seat)
        state.last_words_queue = queue + [seat for seat in speakers if seat not in killed]
        if not state.last_words_queue:
            self._start_day(state, out)
            return
        victim = queue[0] if len(killed) == 1 and queue else None
        best_move = victim is not None and self._best_move_due(state)
        if best_move:
            out.append(Say("fiim.best_move", {"seat": victim}))
        self._next_last_words(state, out)
        if best_move:
            state.best_move_by = victim

    def _healer(self) -> Role:
        for role, spec in self.ruleset.roles.items():
            if self.action(spec) == "heal":
                return role
        return Role.DOCTOR

    def _agreed_shot(self, state: GameState) -> Seat | None:
        """The black team's shot: the one entered, or (unanimous) the seat every living black
        player shot; anything else is a miss."""
        actions = state.night_actions
        if self.ruleset.agreement != "unanimous":
            return actions.shot
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

    def _resolve_kills(self, state: GameState, out: list[Effect]) -> list[Seat]:
        """Blocks, then heals, then the kills: who dies this night, announced."""
        actions = state.night_actions
        shot = self._agreed_shot(state)
        if self.ruleset.night_record == "shots_checks":
            out.append(Say("fiim.killed", {"seat": shot}) if shot is not None else Say("fiim.miss"))
            return [shot] if shot is not None else []
        if self.ruleset.night_record == "shot_check_heal":
            if shot is not None and shot in actions.disqualified:
                # the shot player left for a foul later that night: not a miss, nobody dies
                out.append(Say("morning.shot_disqualified", {"seat": shot}))
            elif shot is None or not state.players[shot].alive:
                out.append(Say("morning.miss"))
            elif shot == actions.heal:
                actions.saved = True
                out.append(Say("morning.saved"))
            else:
                out.append(Say("morning.killed", {"seat": shot}))
                return [shot]
            return []
        return self._resolve_city_kills(state, out, shot)

    def _resolve_city_kills(
        self, state: GameState, out: list[Effect], shot: Seat | None
    ) -> list[Seat]:
        """Several killers (docs/RULES-CITY.md): the «путана»'s client does nothing that night
        (her black client: the black team does not shoot); a heal saves its patient from every
        shot; no night kill takes the Immortal. Two deaths are told together."""
        actions = state.night_actions
        blocked = set(actions.blocks.values())
        state.vote_blocked = []
        black_blocked = any(
            self.team_of(state.players[seat].role) is Team.BLACK
            and state.players[seat].role is not None
            for seat in blocked
        )
        shots: list[Seat] = []
        if shot is not None and not black_blocked:
            shots.append(shot)
        for role, target in actions.other_kills.items():
            holder = state.holder(role)
            if target is not None and holder is not None and holder not in blocked:
                shots.append(target)
        healed = actions.heal if not self._blocked(state, self._healer(), blocked) else None
        killed: list[Seat] = []
        saved = False
        for target in shots:
            player = state.players[target]
            card = self.ruleset.roles.get(player.role or Role.CIVILIAN)
            if not player.alive or target in killed:
                continue
            if target == healed:
                saved = True
            elif card is None or not card.immortal:
                killed.append(target)
        killed.sort()
        actions.saved = saved and not killed
        actions.killed = list(killed)
        if len(killed) >= 2:
            out.append(Say("city.killed_two", {"seats": tuple(killed)}))
        elif killed:
            out.append(Say("city.killed", {"seat": killed[0]}))
        elif saved:
            out.append(Say("city.saved"))
        else:
            out.append(Say("city.nobody_killed"))
        for seat in sorted(blocked):
            if state.players[seat].alive and seat not in killed:
                state.vote_blocked.append(seat)
                out.append(Say("city.blocked", {"seat": seat}))
        return killed

    def _blocked(self, state: GameState, role: Role, blocked: set[Seat]) -> bool:
        holder = state.holder(role)
        return holder is not None and holder in blocked

    def _announce_checks(self, state: GameState, out: list[Effect], killed: list[Seat]) -> None:
        """The club's Commissar's find is told to the town (unless he was killed)."""
        actions = state.night_actions
        check = actions.checks.get(Role.COMMISSAR)
        commissar = state.holder(Role.COMMISSAR)
        heard = (
            check is not None
            and commissar is not None
            and commissar not in killed
            and state.players[commissar].alive
        )
        actions.check_announced = heard
        if heard and check is not None:
            found = state.players[check].role is Role.MAFIA
            out.append(Say("morning.commissar_found" if found else "morning.commissar_not_found"))

    def _record_night(self, state: GameState, killed: list[Seat]) -> None:
        actions = state.night_actions
        players = state.players
        if self.ruleset.night_record == "shots_checks":
            shots: dict[str, Any] = {
                "night": state.night,
                "shots": {seat_key(shooter): target for shooter, target in actions.shots},
                "shot": killed[0] if killed else None,
                "killed": killed[0] if killed else None,
            }
            for role, check_key, found_key, _, _ in self.ruleset.recorded_checks():
                spec = self.ruleset.spec(Role(role))
                checked = actions.checks.get(spec.name)
                shots[check_key] = checked
                if checked is None:
                    shots[found_key] = None
                elif spec.learns == "role":
                    shots[found_key] = players[checked].role in spec.finds
                else:
                    shots[found_key] = self.team_of(players[checked].role) is Team.BLACK
            shots["disqualified"] = list(actions.disqualified)
            state.record["nights"].append(shots)  # type: ignore[arg-type]
            return
        check = actions.checks.get(Role.COMMISSAR)
        checked_mafia = None if check is None else self.team_of(players[check].role) is Team.BLACK
        night: dict[str, Any] = {
            "night": state.night,
            "shot": self._agreed_shot(state),
            "check": check,
            "check_found_mafia": checked_mafia,
            "check_announced": actions.check_announced,
            "heal": actions.heal,
            "saved": actions.saved,
            "killed": killed[0] if killed else None,
            "disqualified": list(actions.disqualified),
        }
        if self.ruleset.night_record == "actions":
            night["kills"] = {role.value: target for role, target in actions.other_kills.items()}
            night["checks"] = {role.value: seat for role, seat in actions.checks.items()}
            night["blocks"] = {role.value: seat for role, seat in actions.blocks.items()}
            night["killed_all"] = list(killed)
        state.record["nights"].append(night)  # type: ignore[arg-type]

    def _black_seats(self, state: GameState) -> list[Seat]:
        return [
            seat
            for seat in state.living()
            if self.team_of(state.players[seat].role) is Team.BLACK
            and state.players[seat].role is not None
        ]

    # ------------------------------------------------------------------ departures

    @staticmethod
    def _role_value(role: Role | None) -> str:
        return (role or Role.CIVILIAN).value

    def _depart(self, state: GameState, out: list[Effect], seat: Seat, how: str) -> None:
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
        player = state.players[seat]
        if self.cards == "closed":  # the card stays hidden (MR 7.24, 8.5)
            if how == "vote":
                out.append(Say("fiim.leaves", {"seat": seat}))
            elif how != "kill" and not state.phase.is_night:  # the morning tells of these
                out.append(Say("fiim.removed", {"seat": seat}))
            if seat in state.speech_lost:
                state.speech_lost = [s for s in state.speech_lost if s != seat]
            return
        if how == "disqualified" and state.phase.is_night:
            return  # announced in the morning: at night the host never speaks a seat number
        if player.role is None:  # the acquaintance round: the host has not learnt the roles yet
            out.append(Say("foul.disqualified_card", {"seat": seat}))
            return
        if self.cards == "half_closed":  # the team is told, not the card
            team = self.team_of(player.role).value
            key = "city.disqualified_team" if how == "disqualified" else "city.leaves_team"
            out.append(Say(key, {"seat": seat, "team": team}))
            return
        key = "foul.disqualified" if how == "disqualified" else "day.leaves"
        out.append(Say(key, {"seat": seat, "role": self._role_value(player.role)}))

    def _announce_winner(self, state: GameState, out: list[Effect]) -> bool:
        """The result is fixed at the departure; where the rules give the last to leave their
        minute first (MR 8.19.1), the winner is announced after it."""
        if state.after_last_words == "end":
            return True  # decided already: a foul in the final minute changes nothing
        winner = self.winner(state)
        if winner is None:
            return False
        final = self._final_words(state)
        if not final:
            self._declare(state, out, winner)
            return True
        self._stop_timer(state, out)
        state.vote_settling = None
        state.pending_winner = winner
        state.after_last_words = "end"
        state.last_words_queue = final
        self._next_last_words(state, out)
        return True

    def _final_words(self, state: GameState) -> list[Seat]:
        """Who speaks before the winner is announced: those who just left by the vote or the
        night's kill; nobody after a removal (MR 8.19.1, 9.7)."""
        departures = state.record["departures"]
        if not self.value(self.ruleset.final_words) or not departures:
            return []
        last = departures[-1]
        if last["how"] not in ("vote", "kill"):
            return []
        return [
            d["seat"]
            for d in departures
            if (d["how"], d["day"], d["night"]) == (last["how"], last["day"], last["night"])
        ]

    def _declare(self, state: GameState, out: list[Effect], winner: Team) -> None:
        self._stop_timer(state, out)
        state.vote_settling = None  # a foul during the pause after a count can end the game
        state.phase = Phase.GAME_OVER
        state.winner = winner
        state.record["winner"] = winner.value
        if self.ruleset.scores == "fiim":
            state.record["scores"] = score_lines(state.record, self.settings, self.ruleset)
        key = {Team.RED: "game.red_wins", Team.BLACK: "game.black_wins"}.get(winner)
        out.append(Say(key or "city.maniac_wins"))
        self._announce_cards(state, out)
        out.append(GameOver(winner))

    def _announce_cards(self, state: GameState, out: list[Effect]) -> None:
        """The game is over: the host names the cards the rule set lists (``end.cards``), each
        with every seat that held it, as clubs open the cards at the end."""
        named: list[tuple[Role, tuple[Seat, ...]]] = []
        for role in self.cards_at_end():
            seats = tuple(s for s, p in sorted(state.players.items()) if p.role is role)
            if seats:
                named.append((role, seats))
        if not named:
            return
        out.append(Say("game.cards"))
        for role, seats in named:
            if len(seats) == 1:
                out.append(Say("game.card", {"role": role.value, "seat": seats[0]}))
            else:
                out.append(Say("game.card_many", {"role": role.value, "seats": seats}))

    def cards_at_end(self) -> tuple[Role, ...]:
        """The cards named when the game is over, in the rule set's order: those in play."""
        return tuple(role for role in self.ruleset.end_cards if self.enabled(role))

    def _announce_draw(self, state: GameState, out: list[Effect]) -> bool:
        """MR 1.5, MH 1.13: after the third night in a row, with the days between, in which
        nobody left, the game is a draw (``fiim.draw_after_nights``; 0: never)."""
        if self.ruleset.draw_after is None:
            return False
        now = len(state.record["departures"])
        quiet_night = now == state.departures_at_dusk
        quiet_day = state.departures_at_dusk == state.departures_at_morning
        state.departures_at_morning = now
        if not quiet_night:
            state.quiet_rounds = 0
            return False
        state.quiet_rounds = state.quiet_rounds + 1 if quiet_day and state.night > 1 else 1
        limit = self.value(self.ruleset.draw_after)
        if limit <= 0 or state.quiet_rounds < limit:
            return False
        self._stop_timer(state, out)
        state.phase = Phase.GAME_OVER
        state.winner = None
        state.record["winner"] = "draw"
        if self.ruleset.scores == "fiim":
            state.record["scores"] = score_lines(state.record, self.settings, self.ruleset)
        out.append(Say("fiim.draw", {"nights": limit}))
        self._announce_cards(state, out)
        out.append(GameOver(None))
        return True

    # ------------------------------------------------------------------ day

    def _open_day(self, state: GameState, phase: Phase) -> None:
        """Today (``_dawn`` counted it) opens in ``phase``: no nominations or candidates yet,
        the first vote, and its record."""
        state.phase = phase
        state.nominations = {}
        state.candidates = []
        state.vote_counts = {}  # yesterday's counts are not today's candidates'
        state.vote_index = 0
        state.vote_round = 1
        state.record["days"] = [
            *state.record["days"],
            {"day": state.day, "nominations": {}, "candidates": [], "votes": [],
             "third_vote": None, "left": []},
        ]  # fmt: skip

    def _start_day(self, state: GameState, out: list[Effect]) -> None:
        if self.ruleset.day_opening == "speeches":
            self._open_day(state, Phase.NOMINATION)  # speeches at once (MR 6.1 to 6.3.1)
            self._order_speakers(state)
            self._next_nomination_speaker(state, out)
            return
        self._open_day(state, Phase.DISCUSSION)
        seconds = self.timers.discussion_seconds
        out.append(self._discussion_phrase())
        state.speech_running = True
        warning = self._speech_warning("timers.warning_seconds.discussion", seconds)
        self._start_timer(state, out, TimerKind.DISCUSSION, seconds, warning)

    def _day_record(self, state: GameState) -> DayRecord:
        """Today's record, copied before it is changed (earlier states share the old one)."""
        days = state.record["days"]
        if not state.owns_day:
            days = [*days[:-1], dict(days[-1])]  # type: ignore[list-item]
            today = days[-1]
            today["nominations"] = dict(today["nominations"])
            today["candidates"] = list(today["candidates"])
            today["votes"] = list(today["votes"])
            today["left"] = list(today["left"])
            state.record["days"] = days
            state.owns_day = True
        return days[-1]

    def _first_speaker(self, state: GameState) -> Seat:
        living = state.living()
        previous = state.first_speaker
        if not self.value(self.ruleset.rotate_first_speaker) or previous is None:
            return living[0]
        later = [seat for seat in living if seat > previous]
        return later[0] if later else living[0]

    def _order_speakers(self, state: GameState) -> None:
        first = self._first_speaker(state)
        state.first_speaker = first
        living = state.living()
        start = living.index(first)
        state.speakers = living[start:] + living[:start]

    def _start_nominations(self, state: GameState, out: list[Effect]) -> None:
        state.phase = Phase.NOMINATION
        self._order_speakers(state)
        one_black = self.black_known(state) == 1
        out.append(Say("day.nominations_one" if one_black else "day.nominations"))
        self._next_nomination_speaker(state, out)

    def black_known(self, state: GameState) -> int:
        """How many black players the table knows to be at the table, as the one-black-left
        rule counts them: with open or half-closed cards every card that leaves tells its team,
        so the count is the true one; closed cards tell nothing, so the table knows only the
        black cards dealt (docs/RULES.md, the nominations)."""
        if self.cards == "closed":
            return self.black_count
        return self.living_of(state, Team.BLACK)

    def _nomination_limit(self, state: GameState) -> int:
        return 1 if self.black_known(state) == 1 else 2

    def _next_nomination_speaker(self, state: GameState, out: list[Effect]) -> None:
        """The next speaker; a speech a third foul took (MR 9.5.1) is said to be lost (at three
        or four players a short one instead), and a nomination is still waited for briefly."""
        state.lost_speech = state.short_speech = None
        while state.speakers and not state.players[state.speakers[0]].alive:
            state.speakers.pop(0)
        if not state.speakers:
            state.current_speaker = None
            self._announce_candidates(state, out)
            return
        if state.speakers[0] not in state.speech_lost:
            self._give_floor(state, out, state.speakers.pop(0), TimerKind.NOMINATION_SPEECH)
            return
        seat = state.speakers.pop(0)
        state.speech_lost = [s for s in state.speech_lost if s != seat]
        fiim = self.settings.fiim
        short = len(state.living()) <= 4
        key = "fiim.short_speech" if short else "fiim.speech_skipped"
        seconds = fiim.short_speech_seconds if short else fiim.skipped_speech_seconds
        state.current_speaker = seat
        state.lost_speech = None if short else seat
        state.short_speech = seat if short else None
        out.append(Say(key, {"seat": seat}))
        state.speech_running = True
        warning = (
            self._speech_warning("timers.warning_seconds.fiim_short_speech", seconds)
            if short
            else None
        )
        self._start_timer(state, out, TimerKind.NOMINATION_SPEECH, seconds, warning, seat)

    def _nominate(self, state: GameState, seats: tuple[Seat, ...], out: list[Effect]) -> None:
        speaker = state.current_speaker
        if self.ruleset.nominations == "in_own_speech_one":
            self._nominate_in_speech(state, speaker, seats, out)
            return
        if speaker is None:
            raise RuleViolation("not_now", phase=state.phase.value)
        if not seats:
            raise RuleViolation("nomination_required")
        for seat in seats:
            self._validate_seat(state, seat)
            if seat == speaker:
                raise RuleViolation("self_nomination", seat=seat)
        already = state.nominations.get(speaker, [])
        added = [seat for seat in self._distinct(seats) if seat not in already]
        limit = self._nomination_limit(state)
        if len(already) + len(added) > limit:
            if limit == 1:
                raise RuleViolation("one_nomination_only")
            raise RuleViolation("too_many_nominations", seat=speaker, count=len(already))
        state.nominations[speaker] = already + added
        self._day_record(state)["nominations"][seat_key(speaker)] = list(state.nominations[speaker])
        if self.rules.confirm_nominations:
            for seat in added:
                out.append(Say("day.nomination_accepted", {"seat": seat}))
        if not state.speech_running:
            self._next_nomination_speaker(state, out)

    def _nominate_in_speech(
        self, state: GameState, speaker: Seat | None, seats: tuple[Seat, ...], out: list[Effect]
    ) -> None:
        """MR 7.2 to 7.6: during one's own speech, at most one seat, not one already up; the
        host confirms it aloud."""
        if speaker is None or not state.speech_running:
            raise RuleViolation("fiim_nominate_in_speech")
        self._exactly(seats, 1)
        seat = seats[0]
        self._validate_seat(state, seat)
        if state.nominations.get(speaker):
            raise RuleViolation("fiim_one_nomination", seat=speaker)
        if seat in self._nominated(state):
            raise RuleViolation("fiim_already_nominated", seat=seat)
        state.nominations[speaker] = [seat]
        self._day_record(state)["nominations"][seat_key(speaker)] = [seat]
        out.append(Say("day.nomination_accepted", {"seat": seat}))

    @staticmethod
    def _nominated(state: GameState) -> list[Seat]:
        """The nominated seats in the order they were nominated."""
        return [seat for nominees in state.nominations.values() for seat in nominees]

    def _announce_candidates(self, state: GameState, out: list[Effect]) -> None:
        if self.ruleset.nominations == "in_own_speech_one":
            self._candidates_in_nomination_order(state, out)
            return
        tally: Counter[Seat] = Counter()
        for nominees in state.nominations.values():
            tally.update(seat for seat in nominees if state.players[seat].alive)
        candidates = select_candidates(tally)
        state.candidates = candidates
        self._day_record(state)["candidates"] = list(candidates)
        if not candidates:
            self._begin_night(state, out)
            return
        if len(candidates) == 1:
            out.append(Say("day.single_candidate", {"seat": candidates[0]}))
        else:
            out.append(Say("day.candidates", {"seats": tuple(candidates)}))
        state.phase = Phase.DEFENCE
        state.speakers = list(candidates)
        self._next_defence(state, out)

    def _candidates_in_nomination_order(self, state: GameState, out: list[Effect]) -> None:
        candidates = [seat for seat in self._nominated(state) if state.players[seat].alive]
        state.candidates = candidates
        self._day_record(state)["candidates"] = list(candidates)
        if state.vote_cancelled_day == state.day:  # a removal cancelled it (MR 9.8)
            self._cancel_vote(state, out)
        elif not candidates:
            out.append(Say("fiim.no_nominations"))
            self._begin_night(state, out)
        elif (
            len(candidates) == 1
            and state.day == 1
            and self.settings.fiim.first_day_single_nominee == "no_vote"
        ):
            out.append(Say("fiim.single_no_vote", {"seat": candidates[0]}))  # MR 7.16.1
            self._begin_night(state, out)
        else:
            self._start_vote(state, out)

    def _next_defence(self, state: GameState, out: list[Effect]) -> None:
        state.phase = Phase.DEFENCE
        while state.speakers and not state.players[state.speakers[0]].alive:
            state.speakers.pop(0)
        if not state.speakers:
            state.current_speaker = None
            self._start_vote(state, out)
            return
        self._give_floor(state, out, state.speakers.pop(0), TimerKind.DEFENCE_SPEECH)

    # ------------------------------------------------------------------ votes

    def _rest_to_last(self) -> bool:
        return self.ruleset.vote == "nomination_order_rest_to_last"

    def _vote_start_key(self, state: GameState) -> str:
        if not self._rest_to_last():
            return "day.vote_start"
        return "fiim.vote_start" if state.vote_round == 1 else "fiim.revote_start"

    def _voters(self, state: GameState) -> list[Seat]:
        """Who votes today: the living, less a client the «путана» blocked for the day."""
        return [seat for seat in state.living() if seat not in state.vote_blocked]

    def _start_vote(self, state: GameState, out: list[Effect]) -> None:
        state.candidates = [seat for seat in state.candidates if state.players[seat].alive]
        state.vote_counts = {}
        state.vote_index = 0
        state.vote_settling = None
        if not state.candidates:
            self._begin_night(state, out)
            return
        if len(state.candidates) == 1 and self._rest_to_last():
            # Every vote not cast goes to the last candidate (MR 7.13): the lone one leaves.
            seat = state.candidates[0]
            out.append(Say("fiim.single_leaves", {"seat": seat}))
            state.vote_counts = {seat: len(state.living())}
            self._finish_vote(state, out)
            return
        state.phase = Phase.VOTE
        if len(state.candidates) == 1:
            # A lone candidate: every other player's vote can only go against them.
            seat = state.candidates[0]
            out.append(Say("day.vote_start_single", {"seat": seat}))
            voters = self._voters(state)
            state.vote_counts = {seat: len(voters) - (1 if seat in voters else 0)}
            out.append(Say("day.vote_result", {"seat": seat, "votes": state.vote_counts[seat]}))
            self._finish_vote(state, out)
            return
        out.append(Say(self._vote_start_key(state), {"seats": tuple(state.candidates)}))
        out.append(Say(self.ruleset.vote_question, {"seat": state.candidates[0]}))

    def _vote_room(self, state: GameState) -> int:
        voters = self._voters(state)
        counted = sum(state.vote_counts.values())
        if self._rest_to_last():
            return len(voters) - counted
        return min(self._against_limit(state, voters), len(voters) - counted)

    @staticmethod
    def _against_limit(state: GameState, voters: list[Seat]) -> int:
        """The most votes the candidate being voted on can get: every voter's but their own (a
        candidate the «путана» blocked for the day has no vote to keep back)."""
        candidate = state.candidates[state.vote_index]
        return len(voters) - (1 if candidate in voters else 0)

    def _on_vote_count(self, state: GameState, event: VoteCount, out: list[Effect]) -> None:
        if state.vote_settling is not None:
            raise RuleViolation("vote_counted")
        if state.phase is Phase.THIRD_VOTE:
            self._third_vote_count(state, event.count, out)
            return
        if state.phase is not Phase.VOTE:
            raise RuleViolation("not_now", phase=state.phase.value)
        count = event.count
        voting = self._voters(state)
        voters = len(voting)
        candidate = state.candidates[state.vote_index]
        counted = sum(state.vote_counts.values())
        if count < 0:
            raise RuleViolation("negative_count")
        if count > voters and state.vote_blocked:  # the «путана»'s client has no hand today
            blocked = ", ".join(str(seat) for seat in state.vote_blocked)
            raise RuleViolation("votes_exceed_voting", count=count, voters=voters, blocked=blocked)
        if count > voters:  # more hands than people at the table: a typo, not a self-vote
            raise RuleViolation("votes_exceed_table", count=count, voters=voters)
        limit = self._against_limit(state, voting)
        if count > limit and not self._rest_to_last():
            raise RuleViolation("self_vote", seat=candidate, limit=limit)
        if counted + count > voters:
            raise RuleViolation("votes_exceed_voters", total=counted + count, voters=voters)
        state.vote_counts[candidate] = count
        out.append(Say("day.vote_result", {"seat": candidate, "votes": count}))
        state.vote_index += 1
        if state.vote_index < len(state.candidates) - 1:
            out.append(
                Say(self.ruleset.vote_question, {"seat": state.candidates[state.vote_index]})
            )
            return
        if self._rest_to_last():
            # MR 7.8 to 7.13: anyone may vote against anyone; the votes not cast go to the
            # last candidate, who is not asked
            last = state.candidates[-1]
            state.vote_counts[last] = voters - counted - count
            out.append(Say("fiim.vote_rest", {"seat": last, "votes": state.vote_counts[last]}))
            self._settle(state, out, "vote")
            return
        self._count_last_candidate(state, out)

    def _count_last_candidate(self, state: GameState, out: list[Effect]) -> None:
        """The remainder goes to the last candidate; their own lost vote goes to the one before."""
        voters = self._voters(state)
        last = state.candidates[-1]
        remainder = len(voters) - sum(state.vote_counts.values())
        moved_to: Seat | None = None
        own = 1 if last in voters else 0
        if remainder > len(voters) - own:
            moved_to = state.candidates[-2]
            state.vote_counts[moved_to] += 1
            remainder -= 1
        state.vote_counts[last] = remainder
        out.append(Say(self.ruleset.vote_question, {"seat": last}))
        out.append(Say("day.vote_result", {"seat": last, "votes": remainder}))
        if moved_to is not None:
            votes = state.vote_counts[moved_to]
            out.append(Say("day.own_vote_moved", {"seat": moved_to, "votes": votes}))
        self._settle(state, out, "vote")

    def _settle(self, state: GameState, out: list[Effect], kind: str) -> None:
        """Counts announced: a short pause lets a miscount be undone before anyone leaves."""
        state.vote_settling = kind
        seconds = self.timers.vote_result_seconds
        if seconds <= 0:
            self._settled(state, out)
            return
        self._start_timer(state, out, TimerKind.VOTE_RESULT, seconds, None)

    def _settled(self, state: GameState, out: list[Effect]) -> None:
        kind, state.vote_settling = state.vote_settling, None
        if kind == "third":
            self._finish_third_vote(state, out)
        else:
            self._finish_vote(state, out)

    def _lift_all(self) -> bool:
        return self.ruleset.ties == "revote_while_leaders_change_then_lift_all"

    def _record_count(self, state: GameState, interrupted_by: Seat | None = None) -> None:
        """Today's record keeps the round's counts (and the seat whose removal stopped them)."""
        vote: VoteRound = {
            "round": state.vote_round,
            "counts": {seat_key(s): n for s, n in state.vote_counts.items()},
        }
        if interrupted_by is not None:
            vote["interrupted_by"] = interrupted_by
        self._day_record(state)["votes"].append(vote)

    def _finish_vote(self, state: GameState, out: list[Effect]) -> None:
        counts = dict(state.vote_counts)
        self._record_count(state)
        top = max(counts.values())
        if self._lift_all():
            # MR 7.15 to 7.20: the most votes leaves; a tie speaks again and revotes, and again
            # while the number of leaders changes; the same number twice puts «поднять всех»
            leaders = [seat for seat in state.candidates if counts.get(seat) == top]
            if len(leaders) == 1:
                self._voted_out(state, out, leaders)
            elif state.vote_round == 1 or len(leaders) != len(state.candidates):
                state.vote_round += 1
                state.candidates = leaders
                out.append(Say("fiim.tie", {"seats": tuple(leaders)}))
                state.speakers = list(leaders)
                self._next_defence(state, out)
            else:
                out.append(Say("fiim.tie_again", {"seats": tuple(leaders)}))
                self._start_third_vote(state, out)
            return
        leaders = sorted(seat for seat, count in counts.items() if count == top)
        # «Голоса разделились поровну» only when every candidate has as many votes as the others;
        # at 4-4-2 the two leaders go on alone.
        split = len(leaders) == len(counts)
        if len(leaders) == 1:
            self._voted_out(state, out, leaders)
        elif state.vote_round == 1:
            state.vote_round = 2
            state.candidates = leaders
            key = "day.revote" if split else "day.revote_leaders"
            out.append(Say(key, {"seats": tuple(leaders)}))
            state.speakers = list(leaders)
            self._next_defence(state, out)
        else:
            state.candidates = leaders
            if split:
                out.append(Say("day.tie_again"))
            else:
                out.append(Say("day.tie_again_leaders", {"seats": tuple(leaders)}))
            self._start_third_vote(state, out)

    def _no_third_vote(self, state: GameState, out: list[Effect], phrase: str, four: bool) -> None:
        out.append(Say(phrase))
        self._day_record(state)["third_vote"] = {
            "candidates": list(state.candidates), "votes_for": None, "voters": None,
            "outcome": "all_stay", "four_players": four,
        }  # fmt: skip
        self._begin_night(state, out)

    def _start_third_vote(self, state: GameState, out: list[Effect]) -> None:
        living, tied = len(state.living()), len(state.candidates)
        if self._lift_all():
            # «Поднять всех» (MR 7.17), unless the rules bar it for this table (MR 7.21 to 7.23)
            fiim = self.settings.fiim
            if tied == living:
                self._no_third_vote(state, out, "fiim.lift_whole_table", False)  # MR 7.21.1
                return
            if living == 9 and tied == 3 and not fiim.lift_three_of_nine:
                self._no_third_vote(state, out, "fiim.lift_three_of_nine", False)  # MR 7.23.2
                return
            if living == 4 and tied == 2 and not fiim.lift_two_of_four:
                self._no_third_vote(state, out, "fiim.lift_two_of_four", False)  # MR 7.22.2
                return
        elif living == 4 and self.rules.four_players_skip_third_vote:
            self._no_third_vote(state, out, "day.four_players", True)
            return
        state.phase = Phase.THIRD_VOTE
        out.extend(self._third_vote_question(state, again=False))

    def _third_vote_question(self, state: GameState, *, again: bool) -> list[Say]:
        """«Кто за то, чтобы все покинули стол?» (the FIIM words: «поднять всех»)."""
        seats = {"seats": tuple(state.candidates)}
        if self._lift_all():
            return [Say("fiim.lift_question", seats)]
        if again:
            return [Say("day.third_vote")]
        return [Say("day.third_vote_start", seats), Say("day.third_vote")]

    def _third_vote_voters(self, state: GameState) -> int:
        if self._lift_all():
            return len(state.living())  # every living player answers yes or no
        return len([seat for seat in self._voters(state) if seat not in state.candidates])

    def _third_vote_count(self, state: GameState, count: int, out: list[Effect]) -> None:
        voters = self._third_vote_voters(state)
        if count < 0:
            raise RuleViolation("negative_count")
        if count > voters:
            raise RuleViolation("votes_exceed_voters", total=count, voters=voters)
        out.append(Say("day.third_vote_result", {"votes": count}))
        state.third_vote_for = count
        self._settle(state, out, "third")

    def _all_leave(self, votes_for: int, voters: int) -> bool:
        """Whether the third vote sends every candidate away: a majority, or half when the club
        settles a tie that way (rules.third_vote_tie; never under MR 7.17)."""
        return 2 * votes_for > voters or (
            2 * votes_for == voters
            and not self._lift_all()
            and self.rules.third_vote_tie == "all_leave"
        )

    def _finish_third_vote(self, state: GameState, out: list[Effect]) -> None:
        voters = self._third_vote_voters(state)
        count = state.third_vote_for
        all_leave = self._all_leave(count, voters)
        self._day_record(state)["third_vote"] = {
            "candidates": list(state.candidates), "votes_for": count, "voters": voters,
            "outcome": "all_leave" if all_leave else "all_stay", "four_players": False,
        }  # fmt: skip
        if all_leave:
            out.append(Say("day.all_leave"))
            self._voted_out(state, out, list(state.candidates))
        else:
            out.append(Say("day.all_stay"))
            self._begin_night(state, out)

    def _voted_out(self, state: GameState, out: list[Effect], seats: list[Seat]) -> None:
        # Candidates sent away by one vote leave together: one departure, one win check. A
        # player removed during the pause after the count has left already (MR 9.8).
        seats = [seat for seat in seats if state.players[seat].alive]
        for seat in seats:
            self._depart(state, out, seat, "vote")
            self._day_record(state)["left"].append(seat)
        if self._announce_winner(state, out):
            return
        state.after_last_words = "night"
        if self.rules.last_words_after_vote:
            state.last_words_queue = list(seats)
            self._next_last_words(state, out)
        else:
            self._begin_night(state, out)

    def _next_last_words(self, state: GameState, out: list[Effect]) -> None:
        state.best_move_by = None  # the victim's minute is over: no best move after it
        if state.after_last_words == "end" and not state.last_words_queue:
            state.current_speaker = None
            assert state.pending_winner is not None  # set with "end"
            self._declare(state, out, state.pending_winner)
            return
        state.phase = Phase.LAST_WORDS
        if not state.last_words_queue:
            state.current_speaker = None
            if state.after_last_words == "day":
                self._start_day(state, out)
            else:
                self._begin_night(state, out)
            return
        self._give_floor(state, out, state.last_words_queue.pop(0), TimerKind.LAST_WORDS)

    def _give_floor(
        self, state: GameState, out: list[Effect], speaker: Seat, kind: TimerKind
    ) -> None:
        """Announce a player's timed speech and start its timer (after the announcement)."""
        phrase, seconds = self._floor(kind)
        state.current_speaker = speaker
        out.append(Say(phrase, {"seat": speaker}))
        state.speech_running = True
        name = SPEECH_KINDS[kind]
        setting = self.ruleset.speech_warnings.get(name, f"timers.warning_seconds.{name}")
        warning = self._speech_warning(setting, seconds)
        self._start_timer(state, out, kind, seconds, warning, speaker)

    def _floor(self, kind: TimerKind) -> tuple[str, float]:
        """The announcement and the length of a timed speech."""
        phrase, seconds = self.ruleset.speeches[SPEECH_KINDS[kind]]
        return phrase, self.value(seconds)

    # ------------------------------------------------------------------ the best move (MR 8.17)

    def _best_move_due(self, state: GameState) -> bool:
        """The first night's victim, unless two or more left by the vote on day 1."""
        days = state.record["days"]
        return (
            bool(self.value(self.ruleset.best_move))
            and state.night == 1
            and not (days and len(days[0]["left"]) >= 2)
            and state.record.get("best_move") is None
        )

    @staticmethod
    def _best_move_open(state: GameState) -> bool:
        return (
            state.best_move_by is not None
            and state.phase is Phase.LAST_WORDS
            and state.current_speaker == state.best_move_by
            and state.speech_running
        )

    def _best_move(self, state: GameState, seats: tuple[Seat, ...], out: list[Effect]) -> None:
        """Three different seats other than the victim's own; recorded, scored, said aloud."""
        self._exactly(seats, 3)
        victim = state.best_move_by
        assert victim is not None  # _best_move_open
        for index, seat in enumerate(seats):
            self._validate_seat(state, seat, alive=False)
            if seat == victim:
                raise RuleViolation("fiim_best_move_self", seat=seat)
            if seat in seats[:index]:
                raise RuleViolation("duplicate_seats", seat=seat)
        black = sum(1 for seat in seats if self.team_of(state.players[seat].role) is Team.BLACK)
        state.record["best_move"] = {"seat": victim, "seats": list(seats), "black": black}
        state.best_move_by = None
        out.append(Say("fiim.best_move_taken", {"seat": victim, "seats": seats}))

    # ------------------------------------------------------------------ fouls, removal

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

    def _fiim_fouls(self) -> bool:
        return self.ruleset.fouls == "third_costs_speech_limit_removes"

    def _foul_sends_away(self, state: GameState, fouls: int) -> bool:
        if self._fiim_fouls():
            return fouls >= self.settings.fiim.fouls_to_remove  # MR 9.7: day or night
        night = state.phase.is_night  # the club: a foul at night, or the last one
        return (night and self.rules.night_foul_disqualifies) or (
            fouls >= self.rules.fouls_to_disqualify
        )

    def _on_foul(self, state: GameState, event: Foul, out: list[Effect]) -> None:
        seat = event.seat
        sent_away = self._count_foul(state, seat)
        player = state.players[seat]
        night = state.phase.is_night  # at night no seat number is spoken
        if self._fiim_fouls():
            # MR 9.5 to 9.7: warnings; the one before the limit costs the next speech
            if sent_away:
                self._remove(state, seat, out)
                return
            if not night:
                out.append(Say("foul.warning", {"seat": seat, "fouls": player.fouls}))
            if player.fouls == self.settings.fiim.fouls_to_remove - 1:
                state.speech_lost = [*state.speech_lost, seat]
                if not night:
                    out.append(Say("fiim.speech_lost", {"seat": seat}))
            return
        if not sent_away:
            if not night:
                out.append(Say("foul.warning", {"seat": seat, "fouls": player.fouls}))
            return
        if night:
            state.night_actions.disqualified.append(seat)
            self._depart(state, out, seat, "disqualified")
            if self.winner(state) is not None:
                self._end_night_with_win(state, out)
            return  # the table hears of it in the morning
        self._depart(state, out, seat, "disqualified")
        if self._announce_winner(state, out):
            return
        if self.value(self.ruleset.disqualified_speak):
            state.disqualified_to_speak.append(seat)
        self._after_day_departure(state, out, seat)

    def _on_remove(self, state: GameState, event: Remove, out: list[Effect]) -> None:
        """MR 10.11 to 10.20: the gravest faults remove a player at once (where the rules
        remove; the club's disqualify by fouls only)."""
        if not self.ruleset.removal:
            raise RuleViolation("remove_not_in_club", seat=event.seat)
        self._validate_seat(state, event.seat)
        self._remove(state, event.seat, out)

    def _on_team_loss(self, state: GameState, event: TeamLoss, out: list[Effect]) -> None:
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
        self._declare(state, out, Team.RED if loser is Team.BLACK else Team.BLACK)

    def _remove(self, state: GameState, seat: Seat, out: list[Effect]) -> None:
        """The player leaves at once without a last word (MR 9.7); at night the morning says
        so; by day the vote is cancelled as MR 9.8 says."""
        decided = self._vote_decided(state)
        leaving = seat in self._leaving(state) if decided else False
        self._depart(state, out, seat, "removed")
        if state.phase.is_night:
            state.night_actions.disqualified.append(seat)
            if self.winner(state) is not None:
                self._end_night_with_win(state, out)
            return
        if self._announce_winner(state, out):
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
                self._next_nomination_speaker(state, out)
        elif phase in (Phase.DEFENCE, Phase.VOTE, Phase.THIRD_VOTE):
            self._stop_timer(state, out)
            self._cancel_vote(state, out)

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

    def _cancel_vote(self, state: GameState, out: list[Effect]) -> None:
        state.vote_settling = None
        state.vote_cancelled_day = None
        self._day_record(state)["vote_cancelled"] = True
        out.append(Say("fiim.vote_cancelled"))
        self._begin_night(state, out)

    def _end_night_with_win(self, state: GameState, out: list[Effect]) -> None:
        """A departure at night decided the game: the town wakes now and hears it."""
        self._stop_timer(state, out)
        self._dawn(state)
        out.append(Say(self.ruleset.morning_phrase))
        self._announce_left_at_night(state, out)
        # the night as it was entered up to here (a shot entered is kept, not a miss); nothing
        # of it was carried out: nobody was killed, healed or told
        self._record_night(state, [])
        state.record["nights"][-1]["ended_by_win"] = True
        state.night_actions = NightActions()
        self._announce_winner(state, out)

    def _after_day_departure(self, state: GameState, out: list[Effect], seat: Seat) -> None:
        """Keep the day consistent after a disqualification."""
        phase = state.phase
        if seat in state.candidates:
            state.candidates.remove(seat)
        if phase is Phase.ACQUAINTANCE and state.current_speaker == seat:
            self._stop_timer(state, out)
            self._next_acquaintance(state, out)
            return
        if phase in (Phase.NOMINATION, Phase.DEFENCE) and state.current_speaker == seat:
            self._stop_timer(state, out)
            if phase is Phase.NOMINATION:
                self._next_nomination_speaker(state, out)
            else:
                self._next_defence(state, out)
        elif phase is Phase.VOTE:
            self._stop_timer(state, out)
            if state.vote_counts:  # what the table had counted stays in the record
                self._record_count(state, interrupted_by=seat)
            state.vote_starts += 1
            self._start_vote(state, out)  # the voters changed: the vote starts again
        elif phase is Phase.THIRD_VOTE:
            self._stop_timer(state, out)
            state.vote_settling = None
            if not state.candidates:
                self._begin_night(state, out)
            else:
                out.append(Say("day.third_vote"))  # the voters changed: the vote starts again

    def _discussion_phrase(self) -> Say:
        """«У вас три минуты» / «…две минуты тридцать секунд» / «…сорок пять секунд»."""
        minutes, seconds = divmod(int(self.timers.discussion_seconds), 60)
        if seconds == 0:
            return Say("day.discussion", {"minutes": minutes})
        if minutes == 0:
            return Say("day.discussion_seconds", {"seconds": seconds})
        return Say("day.discussion_mixed", {"minutes": minutes, "seconds": seconds})


def select_candidates(tally: Counter[Seat]) -> list[Seat]:
    """RULES.md day 3: all tied first; else first plus all at second; a lone nominee alone."""
    if not tally:
        return []
    ranked = sorted(set(tally.values()), reverse=True)
    first = [seat for seat, count in tally.items() if count == ranked[0]]
    if len(first) >= 2 or len(ranked) == 1:
        return sorted(first)
    second = [seat for seat, count in tally.items() if count == ranked[1]]
    return sorted(first + second)


def score_lines(record: GameRecord, settings: GameRules, ruleset: RuleSet) -> list[ScoreLine]:
    """Each seat's points by line (docs/RULES-FIIM.md section 11): the win or the loss, the
    best move of a red first-night victim who named two or three black seats, the penalties for
    a removal and for causing the team's loss. The referee's extra points are added to these by
    the protocol."""
    fiim = settings.fiim
    winner = record["winner"]
    best = record.get("best_move")
    removed = {d["seat"] for d in record["departures"] if d["how"] == "removed"}
    caused = record.get("team_loss")
    lines: list[ScoreLine] = []
    for key, role in sorted(record["roles"].items(), key=lambda item: int(item[0])):
        seat = Seat(int(key))
        team = ruleset.team(Role(role)).value
        win = fiim.score_win if winner == team else fiim.score_loss
        best_move = 0.0
        if best is not None and best["seat"] == seat and team == "red":
            hits = best["black"]
            if hits >= 3:
                best_move = fiim.score_best_move_3
            elif hits == 2:
                best_move = fiim.score_best_move_2
        penalty = fiim.score_removal if seat in removed else 0.0
        if caused is not None and caused["seat"] == seat:
            penalty += fiim.score_team_loss
        lines.append(ScoreLine(seat=seat, win=win, best_move=best_move, penalty=penalty))
    return lines
