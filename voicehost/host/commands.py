"""What the loop is asked to do: one command type per request, each saying where it came from.

Threads (the keypad's, the microphone's, the terminal's reader) never touch the game: they post
a command, and the loop's thread handles commands one at a time. A device that needs to build
an entry from several key presses posts ``Deliver`` with its raw event, so that the aggregation
(digits + Enter -> a seat) runs on the loop's thread too, where it may ask what the game wants.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from voicehost.game.inputs import Input


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
class KeypadStatus:
    """The keypad was unplugged (False) or plugged back in (True)."""

    connected: bool


@dataclass(frozen=True)
class Deliver:
    """A raw event from a device thread, handed to its aggregator on the loop's thread."""

    handler: Callable[[], None]


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
class Quit:
    """Stop hosting; the journal keeps the game for `voicehost resume`."""


Command = Submit | Undo | TogglePause | VoiceStop | KeypadStatus | Deliver | Name | Voters | Quit
