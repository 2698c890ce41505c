"""The host loop: input -> journal (fsync) -> step() -> carry out effects.

Timers are deadlines on the injected Clock, never summed sleeps: the warning and the end of a
timer are absolute clock times, so nothing drifts, and a test jumps a FakeClock across a
3-minute discussion in microseconds. Adapters on other threads (Listener, Keypad, terminal)
only ``post()`` commands; the game state is touched by the loop's thread alone.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import queue
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from voicehost.config import Settings
from voicehost.errors import VoicehostError
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
    UNDOABLE,
    EndSpeech,
    EnterSeats,
    Input,
    Miss,
    TimerWarning,
    TimeUp,
    VoteCount,
    drop_last_undoable,
)
from voicehost.game.model import Cue, Phase, Seat
from voicehost.game.state import GameState
from voicehost.host.commands import (
    Command,
    KeypadStatus,
    KeyPressed,
    Name,
    Notice,
    Quit,
    RemoteInput,
    Remotes,
    ScriptLine,
    Source,
    Submit,
    TextTyped,
    TogglePause,
    TypingEnded,
    Undo,
    VoiceSpokeOn,
    VoiceStop,
    Voters,
)
from voicehost.host.journal import Journal, mark_finished, names_in
from voicehost.host.names import NameRefused, Names, from_record
from voicehost.host.names import key as name_key
from voicehost.host.replay import Accepted, replay, replay_journal, revealed
from voicehost.host.votes import VoterList, standing
from voicehost.notices import LOG_ONLY
from voicehost.phrases import PhraseBook
from voicehost.ports import (
    Background,
    Clock,
    CuePlayer,
    Key,
    Listener,
    PrivateChannel,
    Screen,
    Speaker,
)
from voicehost.rulesets import engine_for

log = logging.getLogger(__name__)

#: Refusals that say nothing of a seat or a role, so the night's screen may give their reason.
NIGHT_SAFE_REFUSALS = frozenset({"wrong_seat_count", "not_now", "game_over", "timer_stale"})

#: Refusals that have a wording of their own at night, naming no seat (the typed line is masked).
NIGHT_WORDINGS = {"team_loss_confirm": "team_loss_confirm_night"}

#: Night refusals whose reason the role that is awake is told on its private channel (the
#: private line, the keypad's LED, a paired remote): the reason's words and whether another entry
#: can help. The shared screen says «Ввод не принят» and the table hears the same refusal cue
#: whatever the reason. A seat registered already (or a Don who is not black, a Sheriff who is)
#: is told in words that name no card: the refusal itself already tells the one who typed that
#: the seat holds one. A refusal that would tell of a night's departure (a seat left tonight, a
#: role whose holder has left) gets no reason at all.
PRIVATE_REFUSALS: dict[str, tuple[str, bool]] = {
    "already_checked": ("private_refused_checked", False),
    "fiim_already_checked": ("private_refused_checked", False),
    "fiim_shots_entered": ("private_refused_shots_in", False),
    "doctor_same_patient": ("private_refused_same_patient", True),
    "doctor_self_heal_off": ("private_refused_self_heal", True),
    "doctor_self_heal_used": ("private_refused_self_heal_used", True),
    "commissar_self_check": ("private_refused_self_check", True),
    "no_such_seat": ("private_refused_no_seat", True),
    "duplicate_seats": ("private_refused_twice", True),
    "role_taken": ("private_refused_role_taken", True),
    "fiim_don_not_black": ("private_refused_don_black", True),
    "fiim_sheriff_is_black": ("private_refused_sheriff_red", True),
}

#: After a cue starts, the Listener ignores the microphone this long (echo guard), in seconds.
CUE_ECHO_GUARD = 0.8

#: A night entry begun this soon after its step began is refused, privately (seconds). A key
#: typed as a window closes reaches the loop within a second (the rest of a two-digit seat and
#: Enter), while the role woken next cannot answer so soon: its wake phrase alone («Путана
#: засыпает! Просыпается мафия!») takes over two seconds to say.
NIGHT_ENTRY_GUARD = 1.5

#: At most this many posted commands are handled in one turn of the loop before the views draw
#: (a burst of a phone's stale inputs costs one drawing, not one each).
BURST = 256


@dataclass(frozen=True)
class HeldEnd:
    """A speech ended by voice, held with its clock stopped: ``token`` is its timer, ``since``
    when the stop word ended it, ``until`` when the end becomes final."""

    token: int
    since: float
    until: float


@dataclass
class RunningTimer:
    """A timer as the host runs it: absolute deadlines on the clock."""

    timer_id: int
    effect: StartTimer
    starts_at: float
    ends_at: float
    warn_at: float | None
    warned: bool = False


class KeyReceiver(Protocol):
    """Builds entries from keypad keys on the loop's thread (the keypad controller)."""

    def on_key(self, key: Key) -> None: ...

    def on_status(self, connected: bool) -> None: ...


class TypingReceiver(Protocol):
    """Edits the typed line on the loop's thread (the terminal view)."""

    def typed(self, text: str) -> None: ...

    def typing_ended(self) -> None: ...


class RemoteReceiver(Protocol):
    """Carries out a remote's message on the loop's thread (the web face)."""

    def remote_input(self, connection: int, message: dict[str, object]) -> None: ...

    def remotes(self, number: int | None) -> tuple[bool, str]:
        """Pair the phone showing ``number``, drop every remote (0), or count them (None):
        whether it was done, and the words for the host's screen."""
        ...


class ScriptReceiver(Protocol):
    """Carries out a scripted game's line on the loop's thread (``ScriptFeed``)."""

    def line(self, number: int, text: str) -> None: ...


@dataclass
class HostEvents:
    """Hooks for observers (tests, the terminal UI)."""

    on_reject: list[Callable[[str, Source], None]] = field(default_factory=list)
    #: Called on the loop's thread after every command and tick, like the view's ``on_idle``:
    #: more views of the one loop (the web face) draw from here.
    on_idle: list[Callable[[], None]] = field(default_factory=list)


class Host:
    """Runs one game: feeds inputs to the engine and carries out what it returns."""

    def __init__(
        self,
        settings: Settings,
        book: PhraseBook,
        clock: Clock,
        *,
        speaker: Speaker,
        cues: CuePlayer,
        private: PrivateChannel,
        listener: Listener | None = None,
        journal_path: Path | None = None,
        screen: Screen | None = None,
        background: Background | None = None,
        masking: Callable[[], tuple[Any, int] | None] | None = None,
        names: Mapping[Seat, str] | None = None,
        header: Mapping[str, Any] | None = None,
        dealt_by_device: bool = False,
    ) -> None:
        self.settings = settings
        self.book = book
        self.clock = clock
        self.speaker = speaker
        self.cues = cues
        self.private = private
        self.listener = listener
        self.journal_path = journal_path
        self.screen = screen or Screen()
        self.background = background
        self.masking = masking
        # The phone deals before night 0 (web.deal: device): journaled, so a replay agrees.
        self.engine = engine_for(settings.game, dealt_by_device=dealt_by_device)
        self.names = Names(settings.game.players, names)
        self.header = dict(header or {})  # the host's data for the journal's header (club)
        if dealt_by_device:
            self.header["deal"] = "device"
        # (ordinal among the undoable inputs of its count, the voters) of each voter list
        self.voter_lists: list[tuple[int, VoterList]] = []
        self.inbox: queue.Queue[Command] = queue.Queue()
        self.state: GameState | None = None
        self.accepted: list[Accepted] = []
        self.transcript: list[str] = []
        self.rejections: list[str] = []
        self.timer: RunningTimer | None = None
        self.paused_at: float | None = None
        self.held: HeldEnd | None = None
        """A voice end waiting ``listener.spoke_on_seconds`` for the speaker to talk on."""
        self.over = False
        self.quit = False
        self.keypad_connected = True
        self.events = HostEvents()
        self.keys: KeyReceiver | None = None
        self.typing: TypingReceiver | None = None
        self.script: ScriptReceiver | None = None
        self.remote: RemoteReceiver | None = None
        self.step = 0
        """Counts the changes of night step (into, within and out of the night): an entry is
        taken only in the step it was begun in (``refuses_out_of_step``)."""
        self.step_since = clock.now()
        """When the current night step began (clock time)."""
        self._step_key: tuple[Phase, int] | None = None
        self.resumed_step: int | None = None
        """The night step a resumed game came back in, when the journal held its entry."""
        self._journal: Journal | None = None
        self._cue_at: float | None = None
        self._night_sound = False
        self._saving_notice: str | None = None  # a journal-state phrase held until daylight
        self._saving_told = "game.saving_again"
        self._saving_reason = ""
        self._moved_from: Path | None = None  # a vanished journal, said on the screen by day
        # How early a timer event must fire for its cue to start on the deadline (the sound card
        # holds some audio already); a cue player that plays at once has no lead.
        self._cue_lead: Callable[[], float] = cues.lead_seconds

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """A new game: journal header, then the opening announcements."""
        if self.journal_path is not None:
            self._journal = Journal.create(
                self.journal_path,
                self.settings,
                on_saving=self._saving_changed,
                extra={**self.header, "names": self.names.record()},
                on_moved=self._journal_moved,
            )
        state, effects = self.engine.new_game()
        self.state = state
        self._carry_out(effects)
        self.step_since = float("-inf")  # no step came before the first: nothing to guard

    def resume(self) -> None:
        """Rebuild the exact state from the journal and carry on from the current step."""
        if self.journal_path is None:
            raise VoicehostError("resume needs a journal")
        replayed = replay_journal(self.settings, self.journal_path)
        self.settings, self.engine = replayed.settings, replayed.engine
        self.state, self.accepted = replayed.state, replayed.accepted
        players = self.settings.game.players
        self.names = Names(players, from_record(names_in(self.journal_path), players))
        self.voter_lists = standing(self.journal_path)
        self._journal = Journal.reopen(
            self.journal_path, on_saving=self._saving_changed, on_moved=self._journal_moved
        )
        self._journal.append_note({"resumed": True})
        if self.state.over:
            self.over = True
        self._carry_out(self.engine.resume_effects(self.state))
        self.step_since = float("-inf")  # nothing typed before the restart can reach this step
        self._tell_entry_held()
        self._repeat_counts()

    def _tell_entry_held(self) -> None:
        """Resumed in a night step whose entry the journal holds: the host is told so, on the
        private channel and in the question (``host.table``), and is not asked for it again."""
        state = self.state
        if state is None or not state.phase.is_night or not state.step_entered:
            return
        prompt = self.prompt()
        if prompt.turns or prompt.role is None:  # FIIM's shots: the next shooter is asked
            return
        self.resumed_step = self.step
        if prompt.question != "prompt_check_done":  # a check's step says it is done already
            self.private.show(Private(PrivateKind.ENTRY_CONFIRMED, role=prompt.role))

    def _repeat_counts(self) -> None:
        """Resumed in the pause after a vote: the host is asked to confirm or undo the counts,
        so the table hears them again (the screen shows them, ``host.table``)."""
        state = self.state
        if state is None or state.vote_settling is None:
            return
        if state.vote_settling == "third":
            self._say("day.third_vote_result", {"votes": state.third_vote_for})
            return
        for seat in state.candidates:
            if seat in state.vote_counts:
                self._say("day.vote_result", {"seat": seat, "votes": state.vote_counts[seat]})

    def _rebuild(self) -> GameState:
        """The state after every accepted input, noting the phase each was entered in."""
        state, self.accepted = replay(self.engine, [(a.event, a.source) for a in self.accepted])
        return state

    def _take_back(self) -> GameState:
        """The state without the last undoable input: the state it was entered in, with the
        inputs after it (timer warnings) stepped again; no replay of the whole game."""
        index = next(
            i for i in range(len(self.accepted) - 1, -1, -1)
            if isinstance(self.accepted[i].event, UNDOABLE)
        )  # fmt: skip
        state = self.accepted[index].before
        if state is None:  # pragma: no cover - every accepted input keeps its state
            drop_last_undoable(self.accepted, lambda item: item.event)
            return self._rebuild()
        rest = self.accepted[index + 1 :]
        del self.accepted[index:]
        for item in rest:
            after, _ = self.engine.step(state, item.event)
            self.accepted.append(
                Accepted(item.event, item.source, state.phase, revealed(state, after), state)
            )
            state = after
        return state

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
        if self.background is not None and self._night_sound:
            self.background.stop()

    # ------------------------------------------------------------------ commands

    def post(self, command: Command) -> None:
        """Thread-safe: adapters call this from their own threads."""
        self.inbox.put(command)

    def process_pending(self) -> None:
        """Handle every posted command, then fire due timer events."""
        while True:
            try:
                command = self.inbox.get_nowait()
            except queue.Empty:
                break
            self.handle(command)
        self.process_due()

    def handle(self, command: Command) -> bool:
        """Carry out one command now; False when it was rejected."""
        match command:
            case Submit(event, source):
                return self.submit(event, source)
            case Undo(source):
                return self.undo(source)
            case TogglePause():
                self.toggle_pause()
                return True
            case VoiceStop(token):
                return self._voice_stop(token)
            case VoiceSpokeOn(token):
                return self._spoke_on(token)
            case KeypadStatus(connected):
                if self.keys is not None:
                    self.keys.on_status(connected)
                self._keypad_status(connected)
                return True
            case KeyPressed(key):
                if self.keys is not None:
                    self.keys.on_key(key)
                return True
            case TextTyped(text):
                if self.typing is not None:
                    self.typing.typed(text)
                return True
            case TypingEnded():
                if self.typing is not None:
                    self.typing.typing_ended()
                return True
            case ScriptLine(number, text):
                if self.script is not None:
                    self.script.line(number, text)
                return True
            case RemoteInput(connection, message):
                if self.remote is not None:
                    self.remote.remote_input(connection, message)
                return True
            case Notice(text):
                self.screen.message(text)
                return True
            case Name(seat, text, source):
                return self.set_name(seat, text, source)
            case Voters(candidate, seats, source):
                return self.submit_voters(candidate, seats, source)
            case Remotes(number, source):
                return self._remotes(number, source)
            case Quit():
                self.quit = True
                return True
        return False  # pragma: no cover - the Command union is closed

    def submit(self, event: Input, source: Source = Source.KEYBOARD) -> bool:
        """Offer an input to the game. Accepted inputs are journaled before any effect."""
        if self.state is None:
            raise VoicehostError("the game has not started")
        if isinstance(event, EndSpeech) and self.held is not None:
            self._release_hold()  # a key (or the hold's own end) ends the held speech now
        try:
            new_state, effects = self.engine.step(self.state, event)
        except RuleViolation as violation:
            if isinstance(event, TimeUp | TimerWarning):
                return False  # a timer event that lost a race with an input: nothing to say
            full = self.book.error(violation.code, violation.params)
            self._reject(full, source, shown=self._refusal(violation))
            self._tell_refusal_privately(violation)
            return False
        if self._journal is not None:  # a person's input is on disk before its effects
            self._journal.append(event, source, sync=source != Source.TIMER)
        before = self.state.phase
        role = self.engine.prompt(self.state).role if before.is_night else None
        self.accepted.append(
            Accepted(event, source, self.state.phase, revealed(self.state, new_state), self.state)
        )
        self.state = new_state
        self._carry_out(self._named_step(effects, role))
        self._end_night_step(before)
        return True

    def _remotes(self, number: int | None, source: Source) -> bool:
        """The host's word on the web remotes, answered on the host's own screen (never aloud:
        a pairing is nobody's business at the table)."""
        if self.remote is None:
            self._reject(self.book.screen("web_off_remotes"), source)
            return False
        ok, text = self.remote.remotes(number)
        if ok:
            self.screen.message(text)
        else:
            self._reject(text, source)
        return ok

    @staticmethod
    def _named_step(effects: list[Effect], role: str | None) -> list[Effect]:
        """A night entry's confirmation names the step that took it («принято: мафия — 12»)."""
        if role is None:
            return effects
        return [
            dataclasses.replace(effect, role=role)
            if isinstance(effect, Private) and effect.kind is PrivateKind.ENTRY_CONFIRMED
            else effect
            for effect in effects
        ]

    def refuses_out_of_step(
        self, event: Input | None, begun_step: int, begun_at: float, source: Source
    ) -> bool:
        """Whether an entry begun in step ``begun_step`` at clock time ``begun_at`` must not be
        taken now, and if so refuse it: its night step is over (a key typed as a window
        closed), or it was begun in the first moment of a night step (``NIGHT_ENTRY_GUARD``),
        so it may have been meant for the step before. The screen says the one neutral
        refusal, the one awake is told why on the private channel, and nothing is taken."""
        state = self.state
        if state is None:
            return False
        if begun_step != self.step:
            reason = "private_refused_stale"
        elif (
            state.phase.is_night
            and isinstance(event, EnterSeats | Miss)
            and begun_at - self.step_since < NIGHT_ENTRY_GUARD
        ):
            reason = "private_refused_early"
        else:
            return False
        self._reject(self.book.screen(reason), source, shown=self.book.screen("night_refused"))
        self.private.show(Private(PrivateKind.REFUSED, answer=reason, again=True))
        return True

    def _note_step(self) -> None:
        """Count a change of night step, and note when it came."""
        state = self.state
        key = None if state is None or not state.phase.is_night else (state.phase, state.night)
        if key != self._step_key:
            self._step_key = key
            self.step += 1
            self.step_since = self.clock.now()

    def set_name(self, seat: int, text: str, source: Source = Source.KEYBOARD) -> bool:
        """Give a seat a player's name (journaled with the game; names are no rule of it)."""
        before = self.names.get(seat)
        try:
            name = self.names.set(seat, text)
        except NameRefused as refused:
            self._reject(refused.in_words(self.book), source)
            return False
        # Once the first day has begun nobody changes seats: a seat's new name is its player's
        # (a fuller or corrected spelling), and the club keeps the old one as that person's.
        renamed = (
            before is not None
            and bool(name)
            and name_key(name) != name_key(before)
            and self.state is not None
            and self.state.day >= 1
        )
        if self._journal is not None:
            earlier = {str(seat): before} if renamed and before is not None else None
            self._journal.append_names({str(seat): name}, source, renamed=earlier)
        key = "name_renamed" if renamed else "name_given" if name else "name_cleared"
        self.screen.message(self.book.screen(key, {"seat": seat, "name": name, "before": before}))
        return True

    def submit_voters(self, candidate: int, seats: tuple[int, ...], source: Source) -> bool:
        """Who raised their mask against the candidate being voted on (`3: 1 4 6 9`). Each
        voter is a seat at the table, once in the list and once in the round, and never the
        candidate (a player does not vote against themselves); the count is the list's length,
        and the rules check it as any count. The list is journaled after its count."""
        assert self.state is not None
        prompt = self.prompt()
        if prompt.kind is not PromptKind.VOTE_COUNT or prompt.subject is None:
            self._reject(self.book.screen("voters_not_now"), source)
            return False
        state = self.state
        problem: tuple[str, dict[str, Any]] | None = None
        if candidate != prompt.subject:
            problem = ("voters_wrong_candidate", {"seat": prompt.subject, "typed": candidate})
        # A list counts in the vote its count was entered in (a vote started again after a
        # disqualification is voted afresh): the state kept with that count says which.
        entered = [item.before for item in self.accepted if isinstance(item.event, UNDOABLE)]

        def this_vote(ordinal: int) -> bool:
            before = entered[ordinal] if ordinal < len(entered) else None
            return before is None or before.vote_starts == state.vote_starts

        already = {
            voter
            for ordinal, voters in self.voter_lists
            if (voters.day, voters.round) == (state.day, state.vote_round) and this_vote(ordinal)
            for voter in voters.voters
        }
        for index, seat in enumerate(seats):
            if problem is not None:
                break
            player = state.players.get(Seat(seat))
            if player is None:
                problem = ("voters_no_seat", {"seat": seat, "players": len(state.players)})
            elif not player.alive:
                problem = ("voters_left", {"seat": seat})
            elif seat == candidate:
                problem = ("voters_self", {"seat": seat})
            elif Seat(seat) in state.vote_blocked:
                problem = ("voters_blocked", {"seat": seat})
            elif seat in seats[:index]:
                problem = ("voters_twice", {"seat": seat})
            elif seat in already:
                problem = ("voters_voted", {"seat": seat})
        if problem is not None:
            self._reject(self.book.screen(*problem), source)
            return False
        ordinal = sum(isinstance(item.event, UNDOABLE) for item in self.accepted)
        if not self.submit(VoteCount(len(seats)), source):
            return False
        voters = VoterList(state.day, state.vote_round, candidate, tuple(seats))
        self.voter_lists.append((ordinal, voters))
        if self._journal is not None:
            self._journal.append_voters(voters.record())
        return True

    def undo(self, source: Source = Source.KEYBOARD) -> bool:
        """Take back the last entry, if nothing but timer warnings came after it."""
        if self.state is None or not self._can_undo():
            self._reject(self.book.error("nothing_to_undo"), source)
            return False
        if self._journal is not None:
            self._journal.append_undo(source)
        before = self.state
        self.state = self._take_back()
        self._note_step()
        undoable = sum(isinstance(item.event, UNDOABLE) for item in self.accepted)
        self.voter_lists = [item for item in self.voter_lists if item[0] < undoable]
        self._sync_timer_after_undo()
        self._end_night_step(before.phase)
        self.screen.message(self.book.error("undone"))
        for said in self.engine.after_undo(before, self.state):  # the floor went back
            self._say(said.key, dict(said.params))
        self._ask_vote_again()
        return True

    def _end_night_step(self, before: Phase) -> None:
        """The game has left the night step ``before`` (its window ran out, the next role is
        woken, the town wakes, an undo took it back): the private channel is cleared at once, so
        the next role woken sees nothing of this step's answer. Done at the end of every night
        step, whatever was entered, so the clearing tells nothing."""
        assert self.state is not None
        if before.is_night and self.state.phase is not before:
            self.private.clear()

    def _ask_vote_again(self) -> None:
        """After an undone count the table hears the question again, so hands go up again."""
        assert self.state is not None
        question = self.engine.repeat_question(self.state)
        if question is not None:
            self._say(question.key, dict(question.params))

    def can_undo(self) -> bool:
        """Whether `undo` would take something back now (the remote offers it only then)."""
        return self.state is not None and self._can_undo()

    def _can_undo(self) -> bool:
        for item in reversed(self.accepted):
            if isinstance(item.event, TimerWarning):
                continue
            # The Commissar (the Don, the Sheriff) has already seen the answer, or the table has
            # heard a role: neither can be taken back.
            return (
                isinstance(item.event, UNDOABLE)
                and not self.engine.answers_privately(item.phase_before)
                and not item.revealed
            )
        return False

    def _sync_timer_after_undo(self) -> None:
        assert self.state is not None
        wanted = self.state.timer
        if wanted is None:
            self._cancel_timer()
        elif self.timer is None or self.timer.timer_id != wanted.timer_id:
            self._carry_out([self.engine.timer_effect(wanted)])

    def _refusal(self, violation: RuleViolation) -> str:
        """What the screen says of a refused input. At night it names no seat and no role: the
        screen faces the table, and «5 is already the mafia» would be a free check."""
        assert self.state is not None
        if self.state.phase.is_night and violation.code in NIGHT_WORDINGS:
            return self.book.error(NIGHT_WORDINGS[violation.code], {})
        if self.state.phase.is_night and violation.code not in NIGHT_SAFE_REFUSALS:
            return self.book.screen("night_refused")
        return self.book.error(violation.code, violation.params)

    def _tell_refusal_privately(self, violation: RuleViolation) -> None:
        """At night, the role that is awake learns why its entry was refused, privately."""
        assert self.state is not None
        reason = PRIVATE_REFUSALS.get(violation.code)
        if self.state.phase.is_night and reason is not None:
            words, again = reason
            self.private.show(Private(PrivateKind.REFUSED, answer=words, again=again))

    def not_understood_at_night(self) -> None:
        """A line typed at night that is no command: the shared screen says only that nothing
        was taken (the dots hide what was typed, an echo would not); the role that is awake is
        told privately what to type instead."""
        if self.state is not None and self.state.phase.is_night:
            words = "private_refused_not_understood"
            self.private.show(Private(PrivateKind.REFUSED, answer=words, again=True))

    def _reject(self, message: str, source: Source, shown: str | None = None) -> None:
        """A refused input: ``message`` for scripts and tests, ``shown`` on the screen."""
        self.rejections.append(message)
        self.screen.message(f"✗ {shown or message}")
        for hook in self.events.on_reject:
            hook(message, source)
        if source == Source.KEYPAD:
            self.cues.play(Cue.REJECT)

    def _voice_stop(self, token: int) -> bool:
        if self.timer is None or self.timer.timer_id != token or self.paused_at is not None:
            return False
        if self.state is None or not self.state.speech_running or self.held is not None:
            return False
        hold = self.settings.listener.spoke_on_seconds
        if hold <= 0:
            return self.submit(EndSpeech(), source=Source.VOICE)
        # Held, the clock stopped: a player who talks on within the hold loses no time.
        now = self.clock.now()
        self.held = HeldEnd(token, now, now + hold)
        return True

    def _spoke_on(self, token: int) -> bool:
        """The speaker talked on after the stop word: the speech goes on with the time it had
        when the stop word ended it, and the host says how much."""
        held = self.held
        if held is None or held.token != token or self.timer is None:
            return False
        if self.timer.timer_id != token or self.clock.now() + 1e-6 >= held.until:
            return False
        self._release_hold()
        left = self.remaining() or 0.0
        minutes, seconds = divmod(max(1, round(left)), 60)
        if minutes == 0:
            self._say("day.speech_goes_on", {"seconds": seconds})
        elif seconds == 0:
            self._say("day.speech_goes_on_minutes", {"minutes": minutes})
        else:
            self._say("day.speech_goes_on_mixed", {"minutes": minutes, "seconds": seconds})
        # The host's words are not the player's time; the Listener hears the speech afresh.
        now = self.clock.now()
        shift = max(now, self.speaker.busy_until()) - now
        self.timer.ends_at += shift
        if self.timer.warn_at is not None:
            self.timer.warn_at += shift
        if self.listener is not None:
            self.listener.listen(token)
        return True

    def _release_hold(self) -> None:
        """Start the held speech's clock again where the stop word stopped it."""
        held, self.held = self.held, None
        timer = self.timer
        if held is None or timer is None or timer.timer_id != held.token:
            return
        stopped = max(0.0, self.clock.now() - max(held.since, timer.starts_at))
        timer.ends_at += stopped
        if timer.warn_at is not None:
            timer.warn_at += stopped

    def _end_held(self) -> None:
        """No word within the hold: the voice end is final."""
        held = self.held
        assert held is not None
        valid = (
            self.timer is not None
            and self.timer.timer_id == held.token
            and self.state is not None
            and self.state.speech_running
        )
        if not valid:
            self.held = None
            return
        self.submit(EndSpeech(), source=Source.VOICE)

    def _keypad_status(self, connected: bool) -> None:
        if connected == self.keypad_connected:
            return
        self.keypad_connected = connected
        self._say("keypad.back" if connected else "keypad.unplugged")

    def toggle_pause(self) -> None:
        if self.held is not None:
            self._end_held()  # the stop word was said before the pause: its end stands
        now = self.clock.now()
        if self.paused_at is None:
            self.paused_at = now
            if self.listener is not None:
                self.listener.stop_listening()
            self._say("game.paused")
            return
        paused_for = now - self.paused_at
        self.paused_at = None
        self._say("game.unpaused")
        if self.timer is not None:
            resume_at = max(now, self.speaker.busy_until())
            shift = paused_for + (resume_at - now)
            self.timer.ends_at += shift
            if self.timer.warn_at is not None:
                self.timer.warn_at += shift
            if self.timer.effect.listen and self.listener is not None:
                self.listener.listen(self.timer.timer_id)

    # ------------------------------------------------------------------ time

    def next_deadline(self) -> float | None:
        """Clock time of the next timer event, or None when nothing is timed (or paused)."""
        if self.timer is None or self.paused_at is not None:
            return None
        if self.held is not None:
            return self.held.until
        if self.timer.warn_at is not None and not self.timer.warned:
            return min(self.timer.warn_at, self.timer.ends_at)
        return self.timer.ends_at

    def process_due(self) -> None:
        """Fire the timer events whose deadline has come."""
        while True:
            timer = self.timer
            deadline = self.next_deadline()
            if self.held is not None:  # no cue waits on it: it ends on its own moment
                if deadline is None or self.clock.now() + 1e-6 < self.held.until:
                    return
                self._end_held()
                continue
            if timer is None or deadline is None or self.clock.now() + self._cue_lead() < deadline:
                return
            self._cue_at = deadline
            try:
                if timer.warn_at is not None and not timer.warned and deadline == timer.warn_at:
                    timer.warned = True
                    self.submit(TimerWarning(timer.timer_id), source=Source.TIMER)
                else:
                    self.timer = None
                    self._tell_time_up(timer)
                    self.submit(TimeUp(timer.timer_id), source=Source.TIMER)
            finally:
                self._cue_at = None

    def _tell_time_up(self, timer: RunningTimer) -> None:
        """A speech that ran out of time leaves a line on the screen (the table heard the cue)."""
        running = self.state.timer if self.state is not None else None
        effect = timer.effect
        if running is None or running.timer_id != timer.timer_id or effect.speaker is None:
            return
        if effect.timer.is_speech:
            self.screen.message(self.book.screen("speech_time_up", {"seat": effect.speaker}))

    def run(
        self,
        on_idle: Callable[[], None] | None = None,
        *,
        feed: Callable[[], Command | None] | None = None,
    ) -> None:
        """The loop every game runs on: handle commands and timer deadlines until the end.

        Live, it waits for posted commands until the next deadline (less the cue's lead). With a
        ``feed`` (a script) it runs in lockstep: it never waits, takes posted commands first and
        then the feed's next, and returns when the feed has none left.
        """
        # What start() or resume() said is on the screen before the first wait (up to a
        # quarter of a second without a command): the table sees the first announcement as
        # it hears it.
        self._idle(on_idle)
        while not self.over and not self.quit:
            command: Command | None = None
            if feed is None:
                deadline = self.next_deadline()
                timeout = 0.25
                if deadline is not None:
                    lead = 0.0 if self.held is not None else self._cue_lead()
                    timeout = min(timeout, max(0.0, deadline - lead - self.clock.now()))
                with contextlib.suppress(queue.Empty):
                    command = self.inbox.get(timeout=timeout)
            else:
                try:
                    command = self.inbox.get_nowait()
                except queue.Empty:
                    command = feed()
                    if command is None:
                        return
            if command is not None:
                self.handle(command)
            self.process_due()
            self._handle_burst()
            if self._journal is not None and not self._journal.saving:
                self._journal.retry()
            self._idle(on_idle)

    def _handle_burst(self) -> None:
        """The commands posted meanwhile, each followed by the timers it made due, before the
        views draw once (a phone's burst of stale inputs must not hold the loop)."""
        for _ in range(BURST):
            if self.over or self.quit:
                return
            try:
                command = self.inbox.get_nowait()
            except queue.Empty:
                return
            self.handle(command)
            self.process_due()

    def _idle(self, on_idle: Callable[[], None] | None) -> None:
        """The view's and the hooks' turn after a command or a tick, then the screen's."""
        if on_idle is not None:
            on_idle()
        for hook in list(self.events.on_idle):  # a hook may remove itself
            hook()
        self.screen.refresh()

    # ------------------------------------------------------------------ effects

    def prompt(self) -> Prompt:
        if self.state is None:
            raise VoicehostError("the game has not started")
        return self.engine.prompt(self.state)

    def announce(self, key: str, params: dict[str, Any] | None = None) -> None:
        """Say a phrase of the host's own (not of the rules), e.g. at start-up."""
        self._say(key, params)

    def _say(self, key: str, params: dict[str, Any] | None = None) -> None:
        utterance = self.book.render(key, params or {})
        self.speaker.say(utterance)
        self.transcript.append(utterance.text)
        self.screen.announce(utterance.text)
        name = self._spoken_name(params or {})
        if name:
            named = self.book.render("club.seat_name", {"name": name})
            self.speaker.say(named)
            self.transcript.append(named.text)
        if self.listener is not None:
            self.listener.deafen_until(self.speaker.busy_until())

    def _spoken_name(self, params: Mapping[str, Any]) -> str | None:
        """The name said after a seat number (``club.voice_names``), by day only: a night's
        sound is the same whoever acts."""
        if not self.settings.club.voice_names or not isinstance(params.get("seat"), int):
            return None
        if self.state is not None and self.state.phase.is_night:
            return None
        return self.names.get(params["seat"])

    def _carry_out(self, effects: list[Effect]) -> None:
        self._note_step()
        if self.state is not None:  # the effects belong to the phase the game is now in
            self.screen.follow(self.state.phase.is_night)
        for effect in effects:
            match effect:
                case Say(key, params):
                    self._say(key, dict(params))
                case PlayCue(cue):
                    self.cues.play(cue, self._cue_at)
                    if self.listener is not None:
                        start = self._cue_at if self._cue_at is not None else self.clock.now()
                        self.listener.deafen_until(start + CUE_ECHO_GUARD)
                case StartTimer():
                    self._start_timer(effect)
                case CancelTimer():
                    self._cancel_timer()
                case Private():
                    self.private.show(effect)
                case GameOver():
                    self.over = True
                    if self.journal_path is not None:
                        mark_finished(self.journal_path)
        self._update_night_sound()
        self._tell_saving()

    def _saving_changed(self, saving: bool, reason: str) -> None:
        """The journal could not be written (disk full, read-only) or can be again."""
        self._saving_notice = "game.saving_again" if saving else "game.cannot_save"
        self._saving_reason = reason
        self._tell_saving()

    def _journal_moved(self, old: Path, new: Path) -> None:
        """The journal vanished under the host and the game so far was written to ``new``."""
        self.journal_path = new
        self._moved_from = old
        self._tell_saving()

    def _tell_saving(self) -> None:
        # Said once per change, and never at night: a message the moment a night choice is
        # written would tell the table that someone just acted.
        if self._moved_from is not None and not (
            self.state is not None and self.state.phase.is_night
        ):
            moved = {"old": self._moved_from, "new": self.journal_path}
            said = "journal_rewritten" if self._moved_from == self.journal_path else "journal_moved"
            self.screen.message(f"✗ {self.book.screen(said, moved)}")
            self._moved_from = None
        key = self._saving_notice
        if key is None or (self.state is not None and self.state.phase.is_night):
            return
        self._saving_notice = None
        if key == self._saving_told:
            return
        self._saving_told = key
        if key == "game.cannot_save":
            message = (
                f"the journal {self.journal_path} cannot be written ({self._saving_reason}): "
                "the game goes on, its inputs wait in memory and are written when it can be"
            )
            log.warning("%s", message, extra=LOG_ONLY)  # a log line's time must not fall at night
            shown = {"journal": self.journal_path, "reason": self._saving_reason}
            self.screen.message(f"✗ {self.book.screen('journal_cannot_save', shown)}")
        else:
            log.warning(
                "the journal %s is written again: no input was lost",
                self.journal_path,
                extra=LOG_ONLY,
            )  # the table hears it
        self._say(key)

    def _start_timer(self, effect: StartTimer) -> None:
        self.held = None  # a held end belongs to the timer it stopped
        starts = max(self.clock.now(), self.speaker.busy_until())
        ends = starts + effect.seconds
        warn = None if effect.warn_before is None else ends - effect.warn_before
        self.timer = RunningTimer(effect.timer_id, effect, starts, ends, warn)
        if self.listener is not None:
            if effect.listen:
                self.listener.listen(effect.timer_id)
            else:
                self.listener.stop_listening()

    def _cancel_timer(self) -> None:
        self.timer = None
        self.held = None
        if self.listener is not None:
            self.listener.stop_listening()

    def _update_night_sound(self) -> None:
        if self.background is None or self.masking is None or self.state is None:
            return
        night = self.state.phase.is_night
        if night and not self._night_sound:
            sound = self.masking()
            if sound is not None:
                self.background.start(*sound)
                self._night_sound = True
        elif not night and self._night_sound:
            self.background.stop()
            self._night_sound = False

    # ------------------------------------------------------------------ views

    @property
    def inputs(self) -> list[Input]:
        """The accepted inputs, in order, after undos: the game itself."""
        return [item.event for item in self.accepted]

    def remaining(self) -> float | None:
        """Seconds left on the running timer (frozen while paused)."""
        if self.timer is None:
            return None
        now = self.paused_at if self.paused_at is not None else self.clock.now()
        if self.held is not None and self.held.token == self.timer.timer_id:
            now = min(now, self.held.since)  # held: the clock stopped with the stop word
        return max(0.0, self.timer.ends_at - max(now, self.timer.starts_at))
