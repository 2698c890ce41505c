"""Keypad key presses -> host commands, by what the game is asking now (``host.prompt()``).

Like a telephone's DTMF collector: digits build a number, Enter ends it, an idle pause clears a
half-typed entry. By day every key press plays the same ``Cue.KEY_ACK``, whoever presses it and
whatever it means, so nobody at the table can tell one key from another by ear. At night only
Enter and the miss key sound (the same ``KEY_ACK``): one sound per entry whatever was chosen, as
seat 3 takes one digit and seat 12 two, and the table must not hear which. An entry the controller
can see is malformed (Enter with nothing typed where a number is needed, a number longer than
``MAX_DIGITS``) gets one neutral ``Cue.REJECT``; an entry the rules refuse (seat 0, a seat not at
this table) gets the same cue from the host, with the message the keyboard gets; at night the one
awake may learn the reason on the LED (keypad.led), never the table.
Nothing here speaks: at night the table hears the key clicks' cue and nothing else.

How a club host uses the keypad (the keypad's key legends in brackets, default key map):

=========================  ===================================================================
Seats                      ``5 [Enter]``; seats 10-13 are two digits: ``1 2 [Enter]``.
Correct a typo             ``[Backspace]`` or ``[.]`` deletes the last digit; pressed with no
                           digit typed, it clears the whole entry (seats collected so far too).
Night 0: the mafia         each mafia seat with Enter: ``3 [Enter] 7 [Enter]``; when as many
                           seats as there are mafia are in, they go in together. The keypad LED
                           blinks twice to confirm (a screen line without an LED keypad).
Night 0: Commissar, Doctor their own seat: ``4 [Enter]``.
Night: the mafia's target  ``6 [Enter]``, or ``[-]`` for a deliberate miss. FIIM: each black
                           player in seat order, as the screen names them («стреляет игрок 2
                           (выстрел 1 из 3)»); every shot sounds and blinks alike.
Night: Commissar, Doctor   the seat to check / to heal: ``9 [Enter]``.
Nominations (speaker)      during the speech: ``5 [Enter]`` nominates 5 at once, and the host
                           confirms aloud «Номер пять принят»; a second one the same way.
                           ``[Enter]`` with nothing typed means "I am done": the speech ends.
                           After the time is up (nobody nominated yet): ``5 [Enter]`` and then
                           ``[Enter]`` again, or ``5 [Enter] 7 [Enter]``: the host then confirms
                           them and calls the next speaker.
A vote                     the count of raised masks for the candidate the host named:
                           ``4 [Enter]`` (``0 [Enter]`` for none); the last candidate's count is
                           worked out by the host.
Votes counted              the host announces the counts and waits
                           ``timers.vote_result_seconds`` before anyone leaves: ``[Enter]`` (or
                           ``[+]``) says the count is right and goes on at once; ``[/]`` takes a
                           miscount back (then type it again). A number here is refused.
End a speech               ``[+]`` (the Listener ends it too on «спасибо» / «пас»).
Foul                       ``[*] 5 [Enter]``: a foul for seat 5.
Undo                       ``[/]``: with something half-typed, clears it; otherwise takes back
                           the last accepted entry.
Pair the host's phone      the foul key twice, then the number the phone shows, then Enter:
                           ``[*] [*] 4 8 2 1 [Enter]``; ``[*] [*] 0 [Enter]`` drops every
                           remote. A number no phone shows gets the reject cue.
=========================  ===================================================================

A half-typed entry is cleared after ``keypad.entry_timeout_seconds`` without a key, and when
the game moves on to another question. An entry is taken only in the night step it was begun in:
begun before the step changed, or in the step's first moment, it is refused and the one awake
is told why privately (``Host.refuses_out_of_step``), so a key typed as a window closes never
becomes the next role's action.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from voicehost.errors import VoicehostError
from voicehost.game.effects import Prompt, PromptKind
from voicehost.game.inputs import EndSpeech, EnterSeats, Input, Miss, VoteCount
from voicehost.game.model import Cue, Seat
from voicehost.host.actions import (
    MAX_DIGITS,
    PAIRING_DIGITS,
    Action,
    action_of_key,
    command_for,
    number_of,
    pairing_number_of,
)
from voicehost.host.commands import Command, KeypadStatus, KeyPressed, Source, Submit
from voicehost.ports import Clock, CuePlayer, Key, Keypad

if TYPE_CHECKING:
    from voicehost.host.loop import Host

SOURCE = Source.KEYPAD

DIGITS = {
    Key.D0: 0,
    Key.D1: 1,
    Key.D2: 2,
    Key.D3: 3,
    Key.D4: 4,
    Key.D5: 5,
    Key.D6: 6,
    Key.D7: 7,
    Key.D8: 8,
    Key.D9: 9,
}

NIGHT_SOUNDING_KEYS = (Key.ENTER, Key.MISS)
"""At night only the keys that end an entry sound: a seat's digit count must not be heard."""

COUNT_PROMPTS = (PromptKind.VOTE_COUNT, PromptKind.THIRD_VOTE_COUNT)


#: An Enter this soon after a count was sent is not taken as "the count is right" (seconds).
CONFIRM_GUARD = 1.0


class HostLink(Protocol):
    """What the controller needs of the host: the question of the moment, and the loop's
    ``handle`` (the controller runs on the loop's thread: its command is carried out at once,
    with no second trip through the inbox)."""

    def prompt(self) -> Prompt: ...

    def handle(self, command: Command) -> bool: ...

    @property
    def step(self) -> int:
        """Counts the changes of night step (``Host.step``)."""
        ...

    def refuses_out_of_step(
        self, event: Input | None, begun_step: int, begun_at: float, source: Source
    ) -> bool: ...


@dataclass
class Entry:
    """What has been typed towards the current question."""

    digits: str = ""
    seats: list[Seat] = field(default_factory=list)
    foul: bool = False
    pair: bool = False  # the foul key twice: the number a phone shows, to pair it
    question: tuple[PromptKind, str | None, str | None, Seat | None, bool] | None = None
    step: int | None = None  # the host's night step when its first key was pressed
    at: float = 0.0  # when its first key was pressed
    dropped: bool = False  # begun before the step changed: its keys up to Enter go with it

    @property
    def empty(self) -> bool:
        return not self.digits and not self.seats and not self.foul and not self.pair

    def describe(self) -> str:
        """For a screen: ``"фол 1_"``, ``"3, 7, 1_"``."""
        parts = [str(seat) for seat in self.seats]
        if self.digits or not parts:
            parts.append(self.digits + "_")
        text = ", ".join(parts)
        return f"фол {text}" if self.foul else text


def question_of(prompt: Prompt) -> tuple[PromptKind, str | None, str | None, Seat | None, bool]:
    """What makes two prompts the same question (a nomination's room may shrink meanwhile)."""
    return (prompt.kind, prompt.role, prompt.action, prompt.subject, prompt.night)


class KeypadController:
    """Turns ``Key`` presses into host commands; runs on the host loop's thread."""

    def __init__(
        self,
        host: HostLink,
        cues: CuePlayer,
        clock: Clock,
        *,
        entry_timeout_seconds: float = 8.0,
    ) -> None:
        self._host = host
        self._cues = cues
        self._clock = clock
        self._timeout = entry_timeout_seconds
        self._entry = Entry()
        self._last_key_at: float | None = None
        self._count_sent_at: float | None = None
        self._begun: tuple[int, float] = (0, 0.0)  # the step and moment the entry was begun

    @property
    def entry(self) -> Entry:
        """The entry typed so far (read-only use: a screen may show it by day)."""
        return self._entry

    def on_status(self, connected: bool) -> None:
        """The keypad was unplugged or plugged back in (the host says so): forget the entry."""
        self._entry = Entry()

    def expire(self) -> None:
        """Clear a half-typed entry if no key came for ``entry_timeout_seconds``."""
        last = self._last_key_at
        if last is not None and self._clock.now() - last >= self._timeout:
            self._entry = Entry()

    def on_key(self, key: Key) -> None:
        """One key press: acknowledge it, then act on it."""
        prompt = self._current_prompt()
        if not prompt.night or key in NIGHT_SOUNDING_KEYS:
            self._cues.play(Cue.KEY_ACK)
        self.expire()
        now = self._clock.now()
        self._last_key_at = now
        entry = self._entry
        stale = entry.step is not None and entry.step != self._host.step
        if stale and not entry.foul and not entry.dropped:
            # The night step changed: the half-typed entry is dropped, and the keys that finish
            # it go with it; its Enter is refused, the reason told privately.
            entry = self._entry = Entry(step=entry.step, at=entry.at, dropped=True)
        if entry.dropped and entry.step is not None:
            if key in DIGITS:
                return
            self._entry = Entry()
            if key is Key.ENTER:
                self._host.refuses_out_of_step(None, entry.step, entry.at, SOURCE)
                return
        if self._entry.question not in (None, question_of(prompt)):
            self._entry = Entry()  # the game moved on: a half-typed answer belongs to the past
        entry = self._entry
        self._begun = (self._host.step, now) if entry.step is None else (entry.step, entry.at)
        action = action_of_key(key)
        if key in DIGITS:
            self._digit(DIGITS[key], prompt)
        elif key is Key.ENTER:
            self._enter(prompt)
        elif key is Key.CORRECT:
            self._correct()
        elif action is Action.FOUL:
            # A foul is no answer: it outlives a change of question. Twice: pairing a phone.
            twice = self._entry.foul and not self._entry.digits
            self._entry = Entry(pair=True) if twice else Entry(foul=True)
        elif action is Action.UNDO:
            self._undo()
        elif action is not None:  # the miss, the end of a speech: no number follows
            self._entry = Entry()
            if action is Action.MISS and self._out_of_step(Miss()):
                return
            self._host.handle(command_for(action, SOURCE))

    def _current_prompt(self) -> Prompt:
        try:
            return self._host.prompt()
        except VoicehostError:  # a key before the game has started: nothing is asked yet
            return Prompt(PromptKind.NONE)

    # ------------------------------------------------------------------ keys

    def _digit(self, digit: int, prompt: Prompt) -> None:
        entry = self._entry
        if entry.question is None and not entry.foul and not entry.pair:
            entry.question = question_of(prompt)
        if entry.step is None:
            entry.step, entry.at = self._host.step, self._clock.now()
        if len(entry.digits) >= (PAIRING_DIGITS if entry.pair else MAX_DIGITS):
            entry.digits = ""
            self._reject()
            return
        entry.digits += str(digit)

    def _correct(self) -> None:
        if self._entry.digits:
            self._entry.digits = self._entry.digits[:-1]
        else:
            self._entry = Entry()

    def _undo(self) -> None:
        if self._entry.empty:
            self._host.handle(command_for(Action.UNDO, SOURCE))
        self._entry = Entry()

    def _enter(self, prompt: Prompt) -> None:
        entry = self._entry
        if entry.pair:
            self._entry = Entry()
            paired = pairing_number_of(entry.digits)
            if paired is None:
                self._reject()
            else:
                self._host.handle(command_for(Action.PAIR, SOURCE, paired))
            return
        number = number_of(entry.digits)
        entry.digits = ""
        if entry.foul:
            self._entry = Entry()
            if number is None:
                self._reject()
            else:
                self._host.handle(command_for(Action.FOUL, SOURCE, number))
        elif prompt.kind in COUNT_PROMPTS:
            self._entry = Entry()
            if number is None:
                self._reject()
            else:
                self._count_sent_at = self._clock.now()
                self._submit(VoteCount(number))
        elif prompt.kind is PromptKind.CONFIRM_VOTE:
            self._confirm_counts(number)
        elif prompt.action == "nominate" and prompt.speech_running:
            self._nominate_during_speech(number)
        elif prompt.kind is PromptKind.SEATS:
            self._collect_seat(number, prompt)
        else:
            self._entry = Entry()
            self._reject()  # nothing is being asked: there is nothing to confirm

    def _confirm_counts(self, number: int | None) -> None:
        self._entry = Entry()
        sent = self._count_sent_at
        if number is None and sent is not None and self._clock.now() - sent < CONFIRM_GUARD:
            self._reject()  # a bounced or doubled Enter must not skip the pause for corrections
        elif number is None:
            self._submit(EndSpeech())  # "the count is right"
        else:
            self._reject()  # the counts are in: a miscount is taken back with UNDO, not retyped

    def _nominate_during_speech(self, number: int | None) -> None:
        self._entry = Entry()
        if number is None:
            self._submit(EndSpeech())  # "I am done"
        else:
            self._seat_or_reject(number, lambda seat: self._submit(EnterSeats((seat,))))

    def _collect_seat(self, number: int | None, prompt: Prompt) -> None:
        entry = self._entry
        if number is None:
            if entry.seats:
                self._submit_seats()
            else:
                self._entry = Entry()
                self._reject()
            return
        entry.seats.append(Seat(number))
        if len(entry.seats) >= max(1, prompt.seats_max):
            self._submit_seats()

    def _submit_seats(self) -> None:
        seats = tuple(self._entry.seats)
        self._entry = Entry()
        self._submit(EnterSeats(seats))

    def _seat_or_reject(self, number: int | None, act: Callable[[Seat], None]) -> None:
        if number is None:
            self._reject()
        else:
            act(Seat(number))  # whether it is a seat at this table is the rules' to say

    # ------------------------------------------------------------------ output

    def _submit(self, event: Input) -> None:
        if not self._out_of_step(event):
            self._host.handle(Submit(event, source=SOURCE))

    def _out_of_step(self, event: Input) -> bool:
        """Whether the host refused the entry as begun in another step or too early in it."""
        step, at = self._begun
        return self._host.refuses_out_of_step(event, step, at, SOURCE)

    def _reject(self) -> None:
        self._cues.play(Cue.REJECT)


def attach_keypad(
    keypad: Keypad,
    host: Host,
    cues: CuePlayer,
    clock: Clock,
    *,
    entry_timeout_seconds: float = 8.0,
) -> KeypadController:
    """Start ``keypad`` with a controller that receives its keys; returns the controller.

    The keypad's thread only posts each raw key (``KeyPressed``) and plug event
    (``KeypadStatus``); the loop hands them to the controller, which asks the game what it wants
    (``host.prompt()``) and hands its command to ``host.handle``, on the loop's thread.
    """
    controller = KeypadController(host, cues, clock, entry_timeout_seconds=entry_timeout_seconds)
    host.keys = controller
    keypad.start(
        lambda key: host.post(KeyPressed(key)),
        lambda connected: host.post(KeypadStatus(connected)),
    )
    return controller
