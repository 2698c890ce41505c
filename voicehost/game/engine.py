"""The rules of RULES.md as a pure engine: ``step(state, input) -> (state, effects)``.

The engine never touches a device, a clock or a thread. Every wrong input raises
``RuleViolation`` naming the rule it breaks, and the state it was given is left unchanged (each
step works on a deep copy). The host journals an input only after the engine has accepted it.
"""

from __future__ import annotations

import copy
from collections import Counter

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
from voicehost.game.record import DayRecord, new_record, seat_key
from voicehost.game.rules import GameRules
from voicehost.game.state import GameState, NightActions, Player, Timer

NIGHT_STEPS = (
    Phase.NIGHT_MAFIA,
    Phase.NIGHT_COMMISSAR,
    Phase.NIGHT_DOCTOR,
    Phase.NIGHT_DON,
    Phase.NIGHT_SHERIFF,
)
REGISTRATION_STEPS = (
    Phase.NIGHT0_MAFIA,
    Phase.NIGHT0_COMMISSAR,
    Phase.NIGHT0_DOCTOR,
    Phase.NIGHT0_DON,
    Phase.NIGHT0_SHERIFF,
)
SPEECH_PHASES = (
    Phase.ACQUAINTANCE,
    Phase.DISCUSSION,
    Phase.NOMINATION,
    Phase.DEFENCE,
    Phase.LAST_WORDS,
)


class Engine:
    """The rules for one table, configured by ``GameRules``; stateless between calls."""

    def __init__(self, settings: GameRules) -> None:
        self.settings = settings
        self.rules = settings.rules
        self.timers = settings.timers
        self.night_settings = settings.night

    # ------------------------------------------------------------------ public API

    def new_game(self) -> tuple[GameState, list[Effect]]:
        """A fresh table of ``settings.players`` seats: the acquaintance round (when the rules
        have it), then night 0."""
        players = {
            Seat(number): Player(Seat(number)) for number in range(1, self.settings.players + 1)
        }
        state = GameState(players=players, phase=Phase.NIGHT0_MAFIA)
        state.record = new_record(self.settings.players, self.settings.mafia_count)
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
        out.append(Say("night0.start"))
        self._wake(state, out, Phase.NIGHT0_MAFIA)

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
        new = copy.deepcopy(state)
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
        """What a person is asked to enter now."""
        phase = state.phase
        late = state.window_over  # a registration window ran out before the entry came
        if phase is Phase.NIGHT0_MAFIA:
            count = self.settings.mafia_count
            return Prompt(PromptKind.REGISTER_MAFIA, count, count, night=True, late=late)
        if phase is Phase.NIGHT0_COMMISSAR:
            return Prompt(PromptKind.REGISTER_COMMISSAR, 1, 1, night=True, late=late)
        if phase is Phase.NIGHT0_DOCTOR:
            return Prompt(PromptKind.REGISTER_DOCTOR, 1, 1, night=True, late=late)
        if phase is Phase.NIGHT_MAFIA:
            return Prompt(PromptKind.MAFIA_TARGET, 1, 1, night=True)
        if phase is Phase.NIGHT_COMMISSAR:
            return Prompt(PromptKind.COMMISSAR_CHECK, 1, 1, night=True)
        if phase is Phase.NIGHT_DOCTOR:
            return Prompt(PromptKind.DOCTOR_HEAL, 1, 1, night=True)
        if phase is Phase.NOMINATION and state.current_speaker is not None:
            already = len(state.nominations.get(state.current_speaker, []))
            room = self._nomination_limit(state) - already
            if room > 0:
                return Prompt(
                    PromptKind.NOMINATE,
                    0 if already or state.speech_running else 1,
                    room,
                    subject=state.current_speaker,
                    speech_running=state.speech_running,
                    late=not state.speech_running and not already,
                )
        if state.vote_settling is not None:
            return Prompt(PromptKind.CONFIRM_VOTE)
        if phase is Phase.VOTE:
            candidate = state.candidates[state.vote_index]
            return Prompt(
                PromptKind.VOTE_COUNT,
                subject=candidate,
                max_count=self._vote_room(state),
            )
        if phase is Phase.THIRD_VOTE:
            return Prompt(PromptKind.THIRD_VOTE_COUNT, max_count=self._third_vote_voters(state))
        return Prompt(PromptKind.NONE, speech_running=state.speech_running)

    def resume_effects(self, state: GameState) -> list[Effect]:
        """After a restart: say so, then re-open the current step with its timer at full length."""
        out: list[Effect] = [Say("game.resumed")]
        if state.phase is Phase.GAME_OVER:
            return out
        if state.phase is Phase.THIRD_VOTE and state.vote_settling is None:
            out.append(Say("day.third_vote_start", {"seats": tuple(state.candidates)}))
        opening = self._opening_phrase(state)
        if opening is not None:
            out.append(opening)
        if state.phase is Phase.VOTE and state.vote_settling is None:
            if len(state.candidates) > 1:  # the table is reminded whom it votes on
                out.append(Say("day.vote_start", {"seats": tuple(state.candidates)}))
            out.append(Say("day.vote_for", {"seat": state.candidates[state.vote_index]}))
        timer = state.timer
        if timer is not None and not (state.phase in REGISTRATION_STEPS and state.window_over):
            out.append(self.timer_effect(timer))
        return out

    def repeat_question(self, state: GameState) -> Say | None:
        """The vote's question again (after an undone count, so that hands go up again)."""
        if state.vote_settling is not None:
            return None
        if state.phase is Phase.VOTE:
            return Say("day.vote_for", {"seat": state.candidates[state.vote_index]})
        if state.phase is Phase.THIRD_VOTE:
            return Say("day.third_vote")
        return None

    def winner(self, state: GameState) -> Team | None:
        """The team that has won, if any (checked after every departure)."""
        if any(player.role is None for player in state.players.values()):
            return None  # night 0: the roles are not all known until the morning
        if state.living_of(Team.BLACK) == 0:
            return Team.RED
        if state.living_of(Team.BLACK) >= state.living_of(Team.RED):
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

    def _speech_warning(self) -> float | None:
        return self.timers.warning_seconds or None

    def _check_timer(self, state: GameState, timer_id: int) -> None:
        if state.timer is None or state.timer.timer_id != timer_id:
            raise RuleViolation("timer_stale")

    def _on_warning(self, state: GameState, event: TimerWarning, out: list[Effect]) -> None:
        self._check_timer(state, event.timer_id)
        if state.phase is Phase.NIGHT_MAFIA:
            if not state.night_actions.shot_entered and not state.night_actions.warned:
                state.night_actions.warned = True
                out.append(Say("night.no_agreed_shot"))
        elif state.speech_running:
            out.append(PlayCue(Cue.WARNING))

    def _on_time_up(self, state: GameState, event: TimeUp, out: list[Effect]) -> None:
        self._check_timer(state, event.timer_id)
        if state.vote_settling is not None:
            state.timer = None
            self._settled(state, out)
            return
        if state.phase in REGISTRATION_STEPS or state.phase in NIGHT_STEPS:
            state.timer = None
            state.window_over = True
            self._maybe_finish_night_step(state, out)
            return
        out.append(PlayCue(Cue.TIME_UP))
        self._end_speech(state, out)

    def _on_end_speech(self, state: GameState, event: EndSpeech, out: list[Effect]) -> None:
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
        if speaker is not None and state.nominations.get(speaker):
            self._next_nomination_speaker(state, out)
        # otherwise the speaker's nominations are still to be entered (see prompt()).

    # ------------------------------------------------------------------ seats

    def _validate_seat(self, state: GameState, seat: Seat, *, alive: bool = True) -> None:
        if seat not in state.players:
            raise RuleViolation("no_such_seat", seat=seat, players=len(state.players))
        if alive and not state.players[seat].alive:
            raise RuleViolation("seat_left", seat=seat)

    def _distinct(self, seats: tuple[Seat, ...]) -> list[Seat]:
        seen: list[Seat] = []
        for seat in seats:
            if seat not in seen:
                seen.append(seat)
        return seen

    def _on_seats(self, state: GameState, event: EnterSeats, out: list[Effect]) -> None:
        phase = state.phase
        if phase in REGISTRATION_STEPS:
            self._register(state, event.seats, out)
        elif phase in NIGHT_STEPS:
            self._night_choice(state, event.seats, out)
        elif phase is Phase.NOMINATION:
            self._nominate(state, event.seats, out)
        else:
            raise RuleViolation("not_now", phase=phase.value)

    def _exactly(self, seats: tuple[Seat, ...], expected: int) -> None:
        if len(seats) != expected:
            raise RuleViolation("wrong_seat_count", expected=expected, given=len(seats))

    # ------------------------------------------------------------------ night 0

    def _register(self, state: GameState, seats: tuple[Seat, ...], out: list[Effect]) -> None:
        phase = state.phase
        expected = self.settings.mafia_count if phase is Phase.NIGHT0_MAFIA else 1
        self._exactly(seats, expected)
        for index, seat in enumerate(seats):
            self._validate_seat(state, seat, alive=False)
            if seat in seats[:index]:
                raise RuleViolation("duplicate_seats", seat=seat)
        role = {
            Phase.NIGHT0_MAFIA: Role.MAFIA,
            Phase.NIGHT0_COMMISSAR: Role.COMMISSAR,
            Phase.NIGHT0_DOCTOR: Role.DOCTOR,
        }[phase]
        for seat in seats:
            taken = state.players[seat].role
            if taken is not None and taken is not role:
                raise RuleViolation("role_taken", seat=seat, role=taken.value)
        for player in state.players.values():  # a corrected entry replaces the earlier one
            if player.role is role:
                player.role = None
        for seat in seats:
            state.players[seat].role = role
        state.step_entered = True
        out.append(Private(PrivateKind.ENTRY_CONFIRMED, seats=tuple(sorted(seats))))
        self._maybe_finish_night_step(state, out)

    # ------------------------------------------------------------------ night choices

    def _night_choice(self, state: GameState, seats: tuple[Seat, ...], out: list[Effect]) -> None:
        self._exactly(seats, 1)
        seat = seats[0]
        self._validate_seat(state, seat)
        actions = state.night_actions
        if state.phase is Phase.NIGHT_MAFIA:
            actions.shot = seat
            actions.shot_entered = True
        elif state.phase is Phase.NIGHT_COMMISSAR:
            if actions.check is not None:
                raise RuleViolation("already_checked")
            commissar = state.holder(Role.COMMISSAR)
            if seat == commissar and not self.rules.commissar_may_check_self:
                raise RuleViolation("commissar_self_check")
            actions.check = seat
            is_mafia = state.players[seat].role is Role.MAFIA
            out.append(Private(PrivateKind.COMMISSAR_ANSWER, is_mafia=is_mafia))
        else:
            doctor = state.holder(Role.DOCTOR)
            if seat == doctor and not self.rules.doctor_self_heal:
                raise RuleViolation("doctor_self_heal_off")
            if seat == state.previous_heal and not self.rules.doctor_same_patient_twice:
                raise RuleViolation("doctor_same_patient", seat=seat)
            actions.heal = seat
        state.step_entered = True
        if state.phase is not Phase.NIGHT_COMMISSAR:
            out.append(Private(PrivateKind.ENTRY_CONFIRMED, seats=(seat,)))
        self._maybe_finish_night_step(state, out)

    def _on_miss(self, state: GameState, event: Miss, out: list[Effect]) -> None:
        if state.phase is not Phase.NIGHT_MAFIA:
            raise RuleViolation("not_now", phase=state.phase.value)
        state.night_actions.shot = None
        state.night_actions.shot_entered = True
        state.step_entered = True
        out.append(Private(PrivateKind.ENTRY_CONFIRMED))
        self._maybe_finish_night_step(state, out)

    def _maybe_finish_night_step(self, state: GameState, out: list[Effect]) -> None:
        """A night step ends when its fixed window is over (and, on night 0, the role entered)."""
        if not state.window_over:
            return
        if state.phase in REGISTRATION_STEPS and not state.step_entered:
            return  # the host must learn the roles: the step waits for the entry
        sleeps = {
            Phase.NIGHT0_MAFIA: "night.mafia_sleeps",
            Phase.NIGHT_MAFIA: "night.mafia_sleeps",
            Phase.NIGHT0_COMMISSAR: "night.commissar_sleeps",
            Phase.NIGHT_COMMISSAR: "night.commissar_sleeps",
            Phase.NIGHT0_DOCTOR: "night.doctor_sleeps",
            Phase.NIGHT_DOCTOR: "night.doctor_sleeps",
        }[state.phase]
        out.append(Say(sleeps))
        following = self._next_night_step(state)
        if following is None:
            self._morning(state, out)
        else:
            self._wake(state, out, following)

    def _next_night_step(self, state: GameState) -> Phase | None:
        if state.phase in REGISTRATION_STEPS:
            order = [Phase.NIGHT0_MAFIA]
            if self.rules.commissar:
                order.append(Phase.NIGHT0_COMMISSAR)
            if self.rules.doctor:
                order.append(Phase.NIGHT0_DOCTOR)
        else:
            # A role whose holder has left is not called, but the step under way (its holder
            # disqualified for a foul during it) still has its place in the order.
            order = [Phase.NIGHT_MAFIA]
            if self.rules.commissar and (
                state.role_alive(Role.COMMISSAR) or state.phase is Phase.NIGHT_COMMISSAR
            ):
                order.append(Phase.NIGHT_COMMISSAR)
            if self.rules.doctor and (
                state.role_alive(Role.DOCTOR) or state.phase is Phase.NIGHT_DOCTOR
            ):
                order.append(Phase.NIGHT_DOCTOR)
        position = order.index(state.phase)
        return order[position + 1] if position + 1 < len(order) else None

    def _wake(self, state: GameState, out: list[Effect], phase: Phase) -> None:
        state.phase = phase
        state.step_entered = False
        state.window_over = False
        out.append(Say(self._wake_key(phase)))
        night = self.night_settings
        if phase in REGISTRATION_STEPS:
            self._start_timer(
                state, out, TimerKind.NIGHT_WINDOW, night.registration_window_seconds, None
            )
        elif phase is Phase.NIGHT_MAFIA:
            warn = night.mafia_window_seconds - night.no_agreed_shot_after_seconds
            self._start_timer(state, out, TimerKind.NIGHT_WINDOW, night.mafia_window_seconds, warn)
        elif phase is Phase.NIGHT_COMMISSAR:
            self._start_timer(
                state, out, TimerKind.NIGHT_WINDOW, night.commissar_window_seconds, None
            )
        else:
            self._start_timer(state, out, TimerKind.NIGHT_WINDOW, night.doctor_window_seconds, None)

    @staticmethod
    def _wake_key(phase: Phase) -> str:
        if phase in (Phase.NIGHT0_MAFIA, Phase.NIGHT_MAFIA):
            return "night.mafia_wakes"
        if phase in (Phase.NIGHT0_COMMISSAR, Phase.NIGHT_COMMISSAR):
            return "night.commissar_wakes"
        return "night.doctor_wakes"

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
        state.night += 1
        state.night_actions = NightActions()
        state.candidates = []
        out.append(Say("night.start"))
        self._wake(state, out, Phase.NIGHT_MAFIA)

    # ------------------------------------------------------------------ morning

    def _morning(self, state: GameState, out: list[Effect]) -> None:
        state.timer = None
        out.append(Say("morning.city_wakes"))
        first_night = state.phase in REGISTRATION_STEPS
        if first_night:
            for player in state.players.values():
                if player.role is None:
                    player.role = Role.CIVILIAN
            for departure in state.record["departures"]:  # disqualified before roles were known
                departure["role"] = _role_value(state.players[departure["seat"]].role)
            state.record["roles"] = {
                seat_key(seat): player.role.value
                for seat, player in sorted(state.players.items())
                if player.role is not None
            }
        actions = state.night_actions
        for seat in actions.disqualified:
            role = state.players[seat].role
            out.append(Say("morning.disqualified", {"seat": seat, "role": _role_value(role)}))
        # Players disqualified at night speak in the morning when the club gives them last words.
        speakers = list(actions.disqualified) if self.rules.disqualified_last_words else []
        if first_night:
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
            return
        killed = self._announce_night(state, out)
        state.previous_heal = actions.heal
        state.night_actions = NightActions()
        if self._announce_winner(state, out):
            return
        state.after_last_words = "day"
        queue: list[Seat] = []
        if killed is not None:
            role = state.players[killed].role
            if role is Role.COMMISSAR and not self.rules.killed_commissar_last_words:
                out.append(Say("day.killed_commissar_silent"))
            elif self.rules.last_words_after_kill:
                queue.append(killed)
        state.last_words_queue = queue + [seat for seat in speakers if seat != killed]
        if state.last_words_queue:
            self._next_last_words(state, out)
        else:
            self._start_day(state, out)

    def _announce_night(self, state: GameState, out: list[Effect]) -> Seat | None:
        """Morning announcements; returns the seat that was killed, if any."""
        actions = state.night_actions
        shot = actions.shot
        killed: Seat | None = None
        saved = False
        if shot is not None and shot in actions.disqualified:
            # the shot player left for a foul later that night: not a miss, and nobody dies
            out.append(Say("morning.shot_disqualified", {"seat": shot}))
        elif shot is None or not state.players[shot].alive:
            out.append(Say("morning.miss"))
        elif shot == actions.heal:
            saved = True
            out.append(Say("morning.saved"))
        else:
            killed = shot
            out.append(Say("morning.killed", {"seat": shot}))
        commissar = state.holder(Role.COMMISSAR)
        commissar_heard = (
            actions.check is not None
            and commissar is not None
            and commissar != killed
            and state.players[commissar].alive
        )
        if commissar_heard and actions.check is not None:
            found = state.players[actions.check].role is Role.MAFIA
            out.append(Say("morning.commissar_found" if found else "morning.commissar_not_found"))
        checked_mafia = (
            None if actions.check is None else state.players[actions.check].role is Role.MAFIA
        )
        state.record["nights"].append(
            {
                "night": state.night,
                "shot": shot,
                "check": actions.check,
                "check_found_mafia": checked_mafia,
                "check_announced": commissar_heard,
                "heal": actions.heal,
                "saved": saved,
                "killed": killed,
                "disqualified": list(actions.disqualified),
            }
        )
        if killed is not None:
            self._depart(state, out, killed, "kill")
        return killed

    # ------------------------------------------------------------------ departures

    def _depart(self, state: GameState, out: list[Effect], seat: Seat, how: str) -> None:
        """The player leaves the table (``how``: vote, kill, disqualified, removed): recorded
        the same way by every rule set, announced in the rule set's words."""
        player = state.players[seat]
        player.alive = False
        player.left_how = how
        state.record["departures"].append(
            {"seat": seat, "role": _role_value(player.role), "how": how, "day": state.day,
             "night": state.night, "phase": state.phase.value}
        )  # fmt: skip
        self._announce_departure(state, out, seat, how)

    def _announce_departure(
        self, state: GameState, out: list[Effect], seat: Seat, how: str
    ) -> None:
        """The club rules say the role of whoever leaves (RULES.md)."""
        player = state.players[seat]
        if how == "disqualified" and state.phase.is_night:
            return  # announced in the morning: at night the host never speaks a seat number
        if player.role is None:  # the acquaintance round: the host has not learnt the roles yet
            out.append(Say("foul.disqualified_card", {"seat": seat}))
            return
        key = "foul.disqualified" if how == "disqualified" else "day.leaves"
        out.append(Say(key, {"seat": seat, "role": _role_value(player.role)}))

    def _announce_winner(self, state: GameState, out: list[Effect]) -> bool:
        winner = self.winner(state)
        if winner is None:
            return False
        self._stop_timer(state, out)
        state.vote_settling = None  # a foul during the pause after a count can end the game
        state.phase = Phase.GAME_OVER
        state.winner = winner
        state.record["winner"] = winner.value
        out.append(Say("game.red_wins" if winner is Team.RED else "game.black_wins"))
        out.append(GameOver(winner))
        return True

    # ------------------------------------------------------------------ day

    def _open_day(self, state: GameState, phase: Phase) -> None:
        """A new day in ``phase``: no nominations or candidates yet, the first vote, and its
        record."""
        state.day += 1
        state.phase = phase
        state.nominations = {}
        state.candidates = []
        state.vote_round = 1
        state.record["days"].append(
            {"day": state.day, "nominations": {}, "candidates": [], "votes": [],
             "third_vote": None, "left": []}
        )  # fmt: skip

    def _start_day(self, state: GameState, out: list[Effect]) -> None:
        self._open_day(state, Phase.DISCUSSION)
        seconds = self.timers.discussion_seconds
        out.append(self._discussion_phrase())
        state.speech_running = True
        self._start_timer(state, out, TimerKind.DISCUSSION, seconds, self._speech_warning())

    def _day_record(self, state: GameState) -> DayRecord:
        return state.record["days"][-1]

    def _first_speaker(self, state: GameState) -> Seat:
        living = state.living()
        previous = state.first_speaker
        if not self.rules.rotate_first_speaker or previous is None:
            return living[0]
        later = [seat for seat in living if seat > previous]
        return later[0] if later else living[0]

    def _start_nominations(self, state: GameState, out: list[Effect]) -> None:
        state.phase = Phase.NOMINATION
        first = self._first_speaker(state)
        state.first_speaker = first
        living = state.living()
        start = living.index(first)
        state.speakers = living[start:] + living[:start]
        one_black = state.living_of(Team.BLACK) == 1
        out.append(Say("day.nominations_one" if one_black else "day.nominations"))
        self._next_nomination_speaker(state, out)

    def _nomination_limit(self, state: GameState) -> int:
        return 1 if state.living_of(Team.BLACK) == 1 else 2

    def _next_nomination_speaker(self, state: GameState, out: list[Effect]) -> None:
        while state.speakers and not state.players[state.speakers[0]].alive:
            state.speakers.pop(0)
        if not state.speakers:
            state.current_speaker = None
            self._announce_candidates(state, out)
            return
        self._give_floor(state, out, state.speakers.pop(0), TimerKind.NOMINATION_SPEECH)

    def _nominate(self, state: GameState, seats: tuple[Seat, ...], out: list[Effect]) -> None:
        speaker = state.current_speaker
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

    def _announce_candidates(self, state: GameState, out: list[Effect]) -> None:
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

    def _start_vote(self, state: GameState, out: list[Effect]) -> None:
        state.candidates = [seat for seat in state.candidates if state.players[seat].alive]
        state.vote_counts = {}
        state.vote_index = 0
        state.vote_settling = None
        if not state.candidates:
            self._begin_night(state, out)
            return
        state.phase = Phase.VOTE
        if len(state.candidates) == 1:
            # A lone candidate: every other player's vote can only go against them.
            seat = state.candidates[0]
            out.append(Say("day.vote_start_single", {"seat": seat}))
            state.vote_counts = {seat: len(state.living()) - 1}
            out.append(Say("day.vote_result", {"seat": seat, "votes": state.vote_counts[seat]}))
            self._finish_vote(state, out)
            return
        out.append(Say("day.vote_start", {"seats": tuple(state.candidates)}))
        out.append(Say("day.vote_for", {"seat": state.candidates[0]}))

    def _vote_room(self, state: GameState) -> int:
        voters = len(state.living())
        counted = sum(state.vote_counts.values())
        return min(voters - 1, voters - counted)

    def _on_vote_count(self, state: GameState, event: VoteCount, out: list[Effect]) -> None:
        if state.vote_settling is not None:
            raise RuleViolation("vote_counted")
        if state.phase is Phase.THIRD_VOTE:
            self._third_vote_count(state, event.count, out)
            return
        if state.phase is not Phase.VOTE:
            raise RuleViolation("not_now", phase=state.phase.value)
        count = event.count
        voters = len(state.living())
        candidate = state.candidates[state.vote_index]
        counted = sum(state.vote_counts.values())
        if count < 0:
            raise RuleViolation("negative_count")
        if count > voters:  # more hands than people at the table: a typo, not a self-vote
            raise RuleViolation("votes_exceed_table", count=count, voters=voters)
        if count > voters - 1:
            raise RuleViolation("self_vote", seat=candidate, limit=voters - 1)
        if counted + count > voters:
            raise RuleViolation("votes_exceed_voters", total=counted + count, voters=voters)
        state.vote_counts[candidate] = count
        out.append(Say("day.vote_result", {"seat": candidate, "votes": count}))
        state.vote_index += 1
        if state.vote_index < len(state.candidates) - 1:
            out.append(Say("day.vote_for", {"seat": state.candidates[state.vote_index]}))
            return
        self._count_last_candidate(state, out)

    def _count_last_candidate(self, state: GameState, out: list[Effect]) -> None:
        """The remainder goes to the last candidate; their own lost vote goes to the one before."""
        voters = len(state.living())
        last = state.candidates[-1]
        remainder = voters - sum(state.vote_counts.values())
        moved_to: Seat | None = None
        if remainder > voters - 1:
            moved_to = state.candidates[-2]
            state.vote_counts[moved_to] += 1
            remainder -= 1
        state.vote_counts[last] = remainder
        out.append(Say("day.vote_for", {"seat": last}))
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

    def _finish_vote(self, state: GameState, out: list[Effect]) -> None:
        counts = dict(state.vote_counts)
        self._day_record(state)["votes"].append(
            {"round": state.vote_round, "counts": {seat_key(s): n for s, n in counts.items()}}
        )
        top = max(counts.values())
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

    def _start_third_vote(self, state: GameState, out: list[Effect]) -> None:
        if len(state.living()) == 4 and self.rules.four_players_skip_third_vote:
            out.append(Say("day.four_players"))
            self._day_record(state)["third_vote"] = {
                "candidates": list(state.candidates), "votes_for": None, "voters": None,
                "outcome": "all_stay", "four_players": True,
            }  # fmt: skip
            self._begin_night(state, out)
            return
        state.phase = Phase.THIRD_VOTE
        out.append(Say("day.third_vote_start", {"seats": tuple(state.candidates)}))
        out.append(Say("day.third_vote"))

    def _third_vote_voters(self, state: GameState) -> int:
        return len([seat for seat in state.living() if seat not in state.candidates])

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
        settles a tie that way (rules.third_vote_tie)."""
        return 2 * votes_for > voters or (
            2 * votes_for == voters and self.rules.third_vote_tie == "all_leave"
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
        # Candidates sent away by one vote leave together: one departure, one win check.
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
        self._start_timer(state, out, kind, seconds, self._speech_warning(), speaker)

    def _floor(self, kind: TimerKind) -> tuple[str, float]:
        """The announcement and the length of a timed speech."""
        return {
            TimerKind.ACQUAINTANCE_SPEECH: (
                "acquaintance.speech",
                self.timers.acquaintance_seconds,
            ),
            TimerKind.NOMINATION_SPEECH: (
                "day.speech_nomination",
                self.timers.nomination_speech_seconds,
            ),
            TimerKind.DEFENCE_SPEECH: ("day.defence", self.timers.defence_speech_seconds),
            TimerKind.LAST_WORDS: ("day.last_words", self.timers.last_words_seconds),
        }[kind]

    # ------------------------------------------------------------------ fouls

    def _count_foul(self, state: GameState, seat: Seat) -> bool:
        """One more foul for ``seat``, recorded; True when it sends the player away."""
        self._validate_seat(state, seat)
        player = state.players[seat]
        player.fouls += 1
        leaves = self._foul_sends_away(state, player.fouls)
        state.record["fouls"].append(
            {"seat": seat, "day": state.day, "night": state.night, "phase": state.phase.value,
             "count": player.fouls, "disqualified": leaves}
        )  # fmt: skip
        return leaves

    def _foul_sends_away(self, state: GameState, fouls: int) -> bool:
        """The club rules: a foul at night (rules.night_foul_disqualifies) or the last one."""
        night = state.phase.is_night
        return (night and self.rules.night_foul_disqualifies) or (
            fouls >= self.rules.fouls_to_disqualify
        )

    def _on_foul(self, state: GameState, event: Foul, out: list[Effect]) -> None:
        seat = event.seat
        disqualified = self._count_foul(state, seat)
        player = state.players[seat]
        night = state.phase.is_night
        if not disqualified:
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
        if self.rules.disqualified_last_words:
            state.disqualified_to_speak.append(seat)
        self._after_day_departure(state, out, seat)

    def _on_remove(self, state: GameState, event: Remove, out: list[Effect]) -> None:
        """The club rules disqualify by fouls only (RULES.md); removal at once is FIIM's."""
        raise RuleViolation("remove_not_in_club", seat=event.seat)

    def _on_team_loss(self, state: GameState, event: TeamLoss, out: list[Effect]) -> None:
        """A team's loss by the referee's decision is a FIIM penalty (MR 10.21 to 10.24)."""
        raise RuleViolation("team_loss_not_in_club", seat=event.seat)

    def _end_night_with_win(self, state: GameState, out: list[Effect]) -> None:
        """A disqualification at night decided the game: the town wakes now and hears it."""
        self._stop_timer(state, out)
        out.append(Say("morning.city_wakes"))
        actions = state.night_actions
        for seat in actions.disqualified:
            role = _role_value(state.players[seat].role)
            out.append(Say("morning.disqualified", {"seat": seat, "role": role}))
        state.record["nights"].append(
            {"night": state.night, "shot": None, "check": None, "check_found_mafia": None,
             "check_announced": False, "heal": None, "saved": False, "killed": None,
             "disqualified": list(actions.disqualified), "ended_by_win": True}
        )  # fmt: skip
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
            self._start_vote(state, out)  # the voters changed: the vote starts again
        elif phase is Phase.THIRD_VOTE:
            self._stop_timer(state, out)
            state.vote_settling = None
            if not state.candidates:
                self._begin_night(state, out)
            else:
                out.append(Say("day.third_vote"))  # the voters changed: the vote starts again

    # ------------------------------------------------------------------ resume

    def _opening_phrase(self, state: GameState) -> Say | None:
        phase = state.phase
        if phase in REGISTRATION_STEPS or phase in NIGHT_STEPS:
            return Say(self._wake_key(phase))
        speaker = state.current_speaker
        if phase is Phase.ACQUAINTANCE and speaker is not None:
            return Say("acquaintance.speech", {"seat": speaker})
        if phase is Phase.NOMINATION and speaker is not None and state.speech_running:
            return Say("day.speech_nomination", {"seat": speaker})
        if phase is Phase.DEFENCE and speaker is not None:
            return Say("day.defence", {"seat": speaker})
        if phase is Phase.LAST_WORDS and speaker is not None:
            return Say("day.last_words", {"seat": speaker})
        if phase is Phase.THIRD_VOTE and state.vote_settling is None:
            return Say("day.third_vote")  # counted already: the pause resumes, nothing is asked
        if phase is Phase.DISCUSSION:
            return self._discussion_phrase()
        return None

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


def _role_value(role: Role | None) -> str:
    return (role or Role.CIVILIAN).value
