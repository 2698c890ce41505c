"""The one engine: ``step(state, input) -> (state, effects)`` by a rule set given as data.

The rule set (``voicehost.game.ruleset.RuleSet``, read from ``game/presets/*.yaml`` or a club's
own file) names the roles, the night's steps, the morning's resolvers and the policies of the
day and the end; this module implements each policy once. The engine never touches a device, a
clock or a thread. Every wrong input raises ``RuleViolation`` naming the rule it breaks, and the
state it was given is left unchanged: each step works on a copy (``GameState.clone``, which
shares what a step never changes). The host journals an input only after the engine accepted it.
"""

from __future__ import annotations

from voicehost.game.day import Day, select_candidates
from voicehost.game.effects import CancelTimer, Effect, PlayCue, Prompt, PromptKind, Say
from voicehost.game.end import End, score_lines
from voicehost.game.errors import RuleViolation
from voicehost.game.fouls import Fouls
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
from voicehost.game.morning import Morning
from voicehost.game.night import Night
from voicehost.game.record import new_record
from voicehost.game.rules import GameRules
from voicehost.game.ruleset import RuleSet
from voicehost.game.state import GameState, Player
from voicehost.game.table import Table
from voicehost.game.vote import Vote

__all__ = ["Engine", "score_lines", "select_candidates"]


class Engine(Table):
    """The rules for one table: ``GameRules`` (the club's settings) and a ``RuleSet``
    (the roles and policies); stateless between calls. Its parts (``table.Table``) each do one job
    over the one ``GameState``."""

    def __init__(self, settings: GameRules, ruleset: RuleSet) -> None:
        super().__init__(settings, ruleset)
        self.night = Night(settings, ruleset)
        self.morning = Morning(settings, ruleset)
        self.day = Day(settings, ruleset)
        self.vote = Vote(settings, ruleset)
        self.fouls = Fouls(settings, ruleset)
        self.end = End(settings, ruleset)
        for part in (self.night, self.morning, self.day, self.vote, self.fouls, self.end):
            part.night, part.morning, part.day = self.night, self.morning, self.day
            part.vote, part.fouls, part.end = self.vote, self.fouls, self.end

    def winner(self, state: GameState) -> Team | None:
        """The team that has won, if any (checked after every departure)."""
        return self.end.winner(state)

    def answers_privately(self, phase: Phase) -> bool:
        """A night step whose entry is answered to its role alone: once seen, never undone."""
        return self.night.answers_privately(phase)

    def cards_at_end(self) -> tuple[Role, ...]:
        """The cards named when the game is over, in the rule set's order: those in play."""
        return self.end.cards_at_end()

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
            self.day.next_acquaintance(state, out)
        else:
            self.night.start_night0(state, out)
        return state, out

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
                self.night.on_miss(new, event, out)
            case VoteCount():
                self.vote.on_vote_count(new, event, out)
            case Foul():
                self.fouls.on_foul(new, event, out)
            case Remove():
                self.fouls.on_remove(new, event, out)
            case TeamLoss():
                self.fouls.on_team_loss(new, event, out)
        return new, out

    def prompt(self, state: GameState) -> Prompt:
        """What a person is asked to enter now: seats (for a role, how many, whether a miss
        may be entered), a count, a confirmation, or nothing."""
        phase = state.phase
        if self.day.best_move_open(state):
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
                turns = self.night.shot_turns(state, spec)
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
                may_miss=not night0 and self.night.acts[spec.name].kills,
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
            nominate = self.day.nomination_prompt(state)
            if nominate is not None:
                return nominate
        if state.vote_settling is not None:
            return Prompt(PromptKind.CONFIRM_VOTE, question="prompt_confirm_vote")
        if phase is Phase.VOTE:
            candidate = state.candidates[state.vote_index]
            return Prompt(
                PromptKind.VOTE_COUNT,
                subject=candidate,
                max_count=self.vote.vote_room(state),
                question="prompt_vote_count",
            )
        if phase is Phase.THIRD_VOTE:
            return Prompt(
                PromptKind.THIRD_VOTE_COUNT,
                max_count=self.vote.third_vote_voters(state),
                question="prompt_third_vote_count",
            )
        return Prompt(PromptKind.NONE, speech_running=state.speech_running)

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
            out.extend(self.vote.third_vote_question(state, again=False))
        elif phase is Phase.VOTE and state.vote_settling is None:
            if len(state.candidates) > 1:  # the table is reminded whom it votes on
                out.append(Say(self.vote.vote_start_key(state), {"seats": tuple(state.candidates)}))
            out.append(
                Say(self.ruleset.vote_question, {"seat": state.candidates[state.vote_index]})
            )
        elif phase is Phase.DISCUSSION:
            out.append(self.day.discussion_phrase())
        elif self.day.owes_nomination(state):
            out.append(Say("day.nomination_required", {"seat": state.current_speaker}))
        elif state.current_speaker is not None and state.speech_running:
            seat = state.current_speaker
            kind = state.timer.kind if state.timer is not None else TimerKind.NOMINATION_SPEECH
            if seat == state.lost_speech:  # MR 9.5.1: the table hears again it is no speech
                out.append(Say("fiim.speech_skipped", {"seat": seat}))
            elif seat == state.short_speech:
                out.append(Say("fiim.short_speech", {"seat": seat}))
            else:
                out.append(Say(self.day.floor(kind)[0], {"seat": seat}))
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
        if self.day.owes_nomination(after):
            said.append(Say("day.nomination_required", {"seat": speaker}))
        return said

    def repeat_question(self, state: GameState) -> Say | None:
        """The vote's question again (after an undone count, so that hands go up again)."""
        if state.vote_settling is not None:
            return None
        if state.phase is Phase.VOTE:
            return Say(self.ruleset.vote_question, {"seat": state.candidates[state.vote_index]})
        if state.phase is Phase.THIRD_VOTE:
            return self.vote.third_vote_question(state, again=True)[-1]
        return None

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
            self.morning.first_morning(state, out)
            return
        if state.vote_settling is not None:
            state.timer = None
            self.vote.settled(state, out)
            return
        if self._step(state.phase) is not None:
            state.timer = None
            state.window_over = True
            self.night.maybe_finish_night_step(state, out)
            return
        out.append(PlayCue(Cue.TIME_UP))
        self._end_speech(state, out)

    def _on_end_speech(self, state: GameState, event: EndSpeech, out: list[Effect]) -> None:
        if state.phase is Phase.NIGHT0_DEAL:  # «the cards are dealt»
            self.night.cards_dealt(state, out)
            return
        if state.vote_settling is not None:  # "the count is right": go on at once
            self._stop_timer(state, out)
            self.vote.settled(state, out)
            return
        if not state.speech_running:
            if self.day.owes_nomination(state):  # the speech is over; the table waits for a name
                raise RuleViolation("nomination_owed", seat=int(state.current_speaker or 0))
            raise RuleViolation("no_speech")
        out.append(PlayCue(Cue.SPEECH_ENDED))
        self._end_speech(state, out)

    def _end_speech(self, state: GameState, out: list[Effect]) -> None:
        state.timer = None
        state.speech_running = False
        out.append(CancelTimer())
        phase = state.phase
        if phase is Phase.ACQUAINTANCE:
            self.day.next_acquaintance(state, out)
        elif phase is Phase.DISCUSSION:
            self.day.start_nominations(state, out)
        elif phase is Phase.NOMINATION:
            self.day.nomination_speech_over(state, out)
        elif phase is Phase.DEFENCE:
            self.day.next_defence(state, out)
        elif phase is Phase.LAST_WORDS:
            self.day.next_last_words(state, out)

    def _on_seats(self, state: GameState, event: EnterSeats, out: list[Effect]) -> None:
        if state.phase is Phase.NIGHT0_DEAL:  # the black team typing its seats: dealt
            self.night.cards_dealt(state, out)
        phase = state.phase
        found = self._step(phase)
        if found is not None:
            if found[1]:
                self.night.register(state, found[0], event.seats, out)
            else:
                self.night.night_choice(state, found[0], event.seats, out)
        elif phase is Phase.NOMINATION:
            self.day.nominate(state, event.seats, out)
        elif self.day.best_move_open(state):
            self.day.best_move(state, event.seats, out)
        else:
            raise RuleViolation("not_now", phase=phase.value)
