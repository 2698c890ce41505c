"""What the loop is asked to do: one command type per request, each saying where it came from.

Threads (the keypad's, the microphone's, the terminal's reader) never touch the game: they post
a command, and the loop's thread handles commands one at a time. Commands are data, never
closures, so they can be logged, replayed and timed. A device whose raw events need building
into an entry posts them as they come (``KeyPressed``, ``TextTyped``); the loop hands each to
the receiver that builds entries (the keypad controller, the terminal view), on the loop's
thread, where it may ask what the game wants and hands its command straight back to
``Host.handle``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from voicehost.game.inputs import Input
from voicehost.ports import Key


class Source(StrEnum):
    """Who gave an input; journaled with it, and shown in the protocol."""

    KEYBOARD = "keyboard"
    KEYPAD = "keypad"
    REMOTE = "remote"  # the host's phone (voicehost.web), or the device's deal at night 0
    VOICE = "voice"
    TIMER = "timer"

    @classmethod
    def named(cls, text: str) -> Source:
        """The source a journal line names; an older journal's blank source was the keyboard."""
        try:
            return cls(text)
        except ValueError:
            return cls.KEYBOARD


@dataclass(frozen=True)
class Submit:
    """An input for the game from a person (keyboard, keypad) or the Listener."""

    input: Input
    source: Source = Source.KEYBOARD


@dataclass(frozen=True)
class Undo:
    """Take back the last entry."""

    source: Source = Source.KEYBOARD


@dataclass(frozen=True)
class TogglePause:
    """Stop or restart the clock of the running timer."""


@dataclass(frozen=True)
class VoiceStop:
    """The Listener heard a stop word at the end of the speech timed by timer ``token``."""

    token: int


@dataclass(frozen=True)
class VoiceSpokeOn:
    """After the stop word that ended the speech timed by timer ``token``, the speaker talked
    on: the end was a breath inside the speech."""

    token: int


@dataclass(frozen=True)
class KeypadStatus:
    """The keypad was unplugged (False) or plugged back in (True)."""

    connected: bool


@dataclass(frozen=True)
class KeyPressed:
    """A key of the USB keypad, as its thread read it; the keypad controller builds entries."""

    key: Key


@dataclass(frozen=True)
class TextTyped:
    """Text typed at the terminal (a few characters, as read); the view edits its line."""

    text: str


@dataclass(frozen=True)
class TypingEnded:
    """The terminal's input has closed (end of file)."""


@dataclass(frozen=True)
class ScriptLine:
    """The next line of a scripted game (``play --script``), read against the question of the
    moment."""

    number: int
    text: str


@dataclass(frozen=True)
class RemoteInput:
    """A message from the host's remote (the web face), as its server received it."""

    connection: int
    message: dict[str, object]


@dataclass(frozen=True)
class Notice:
    """A line for the host's screen (no sound card, the model is loaded), in the game's
    language; from any thread."""

    text: str


@dataclass(frozen=True)
class Name:
    """Give seat ``seat`` a player's name (``text`` as typed; "" takes the name away)."""

    seat: int
    text: str
    source: Source = Source.KEYBOARD


@dataclass(frozen=True)
class Voters:
    """Who raised their mask against ``candidate`` (`3: 1 4 6 9`): the count is their number."""

    candidate: int
    seats: tuple[int, ...]
    source: Source = Source.KEYBOARD


@dataclass(frozen=True)
class Remotes:
    """The host's word on the web remotes: pair the phone that shows ``number``; 0 drops every
    remote; None asks how many are paired."""

    number: int | None
    source: Source = Source.KEYBOARD


@dataclass(frozen=True)
class Quit:
    """Stop hosting; the journal keeps the game for `voicehost resume`."""


Command = (
    Submit
    | Undo
    | TogglePause
    | VoiceStop
    | VoiceSpokeOn
    | KeypadStatus
    | KeyPressed
    | TextTyped
    | TypingEnded
    | ScriptLine
    | RemoteInput
    | Notice
    | Name
    | Voters
    | Remotes
    | Quit
)
