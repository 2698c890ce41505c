"""Ports: what the host needs from the world. Adapters (real and fake) implement them.

The host never opens a device itself; factories in ``voicehost.cli.wiring`` build the adapters from
the settings, and tests pass fakes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from voicehost.game.effects import Private
from voicehost.game.model import Cue


class Clock(Protocol):
    """Time as the host sees it: monotonic seconds. Timers are deadlines on this clock."""

    def now(self) -> float: ...


class Pause(StrEnum):
    """What the text has after a segment of an announcement; the speaker makes it a silence."""

    WORD = "word"  # between pieces of one clause («игроку номер» | «пять»)
    CLAUSE = "clause"  # a comma, colon, semicolon or dash
    SENTENCE = "sentence"  # the end of a sentence (. ! ?)
    COUNT = "count"  # «…»: a word of the count «Раз… два… три!»
    END = "end"  # the announcement's last piece


@dataclass(frozen=True)
class Segment:
    """One cacheable piece of an announcement: a fixed text, or the words of one number.

    ``key`` names the piece for voice packs and the cache (e.g. ``"day.speech_nomination#0"``,
    ``"num.m.5"``); ``text`` is what is spoken, given to the synthesiser as it is (a stressed
    word may be espeak-ng phonemes, ``[[g'olVsa]]``); ``display`` is the same piece as a person
    reads it, when it differs from ``text`` (empty otherwise). ``pause_after`` is what the
    announcement's text has after the piece (``PhraseBook.render`` reads it from the text it
    builds, once), so the speaker never searches the text again.
    """

    key: str
    text: str
    display: str = ""
    pause_after: Pause = Pause.WORD

    @property
    def shown(self) -> str:
        """The piece as written on the screen."""
        return self.display or self.text


@dataclass(frozen=True)
class Utterance:
    """A rendered announcement: the phrase key, its full text, and its pieces in order."""

    key: str
    text: str
    segments: tuple[Segment, ...]


class Speaker(Protocol):
    """Speaks announcements to the table, one after another, never overlapping."""

    def say(self, utterance: Utterance) -> None:
        """Queue an announcement; returns at once."""
        ...

    def busy_until(self) -> float:
        """Clock time at which everything queued so far will have finished playing."""
        ...

    def close(self) -> None: ...


class CuePlayer(Protocol):
    """Plays the short cues (warning, time up, speech ended, key acknowledgement, reject)."""

    def play(self, cue: Cue, at: float | None = None) -> None:
        """Play ``cue`` starting at clock time ``at`` (now when None, or when ``at`` is past)."""
        ...

    def lead_seconds(self) -> float:
        """How long before a cue's deadline it must be asked for, to start on it (a sound card
        holds some audio already); 0 for a player that plays at once."""
        ...

    def close(self) -> None: ...


class Background(Protocol):
    """A sound that runs under the night (masking noise or music)."""

    def start(self, samples: Any, rate: int) -> None: ...

    def stop(self) -> None: ...


StopWordHeard = Callable[[int], None]
"""Called by a Listener (on its own thread) with the listen token when a speech should end."""


class Listener(Protocol):
    """Hears «спасибо» / «пас» at the end of a timed speech and says so."""

    def start(self, on_stop_word: StopWordHeard, on_spoke_on: StopWordHeard | None = None) -> None:
        """Open the microphone; stay deaf until ``listen``. After it reported an end with a
        token, ``on_spoke_on(token)`` says the speaker talked on (the end may have been wrong:
        the host holds a voice end briefly and gives the speech back)."""
        ...

    def listen(self, token: int) -> None:
        """Hear stop words from now on; report them with this token (the speech's timer id)."""
        ...

    def stop_listening(self) -> None:
        """Be deaf (free discussion, night, between speeches)."""
        ...

    def deafen_until(self, until: float) -> None:
        """Echo guard: drop audio captured until clock time ``until`` (the host is speaking),
        then reset the recogniser."""
        ...

    def close(self) -> None: ...


class Key(StrEnum):
    """Keys of the keypad after the key map; digits are "0".."9"."""

    D0 = "0"
    D1 = "1"
    D2 = "2"
    D3 = "3"
    D4 = "4"
    D5 = "5"
    D6 = "6"
    D7 = "7"
    D8 = "8"
    D9 = "9"
    ENTER = "enter"
    CORRECT = "correct"
    MISS = "miss"
    END_SPEECH = "end_speech"
    FOUL = "foul"
    UNDO = "undo"


KeyPressed = Callable[[Key], None]
"""Called by a Keypad (on its own thread) for each key press."""


class Keypad(Protocol):
    """A numeric keypad that needs no terminal and no window focus."""

    def start(self, on_key: KeyPressed, on_status: Callable[[bool], None]) -> None:
        """Start reading; ``on_status(False)`` when unplugged, ``on_status(True)`` when back."""
        ...

    def close(self) -> None: ...


class PrivateChannel(Protocol):
    """Tells one player something the table must neither hear nor see."""

    def show(self, message: Private) -> None: ...

    def clear(self) -> None:
        """A night step has ended: whatever is shown goes at once (the LED dark, the private
        line erased, the paired remotes told to clear), so the next role woken sees nothing of
        it. The host calls it at the end of every night step, whatever was entered."""
        ...

    def close(self) -> None: ...


class Screen:
    """What the host shows; the base class shows nothing (scripts, tests, a headless Pi)."""

    def announce(self, text: str) -> None:
        """An announcement was made."""

    def message(self, text: str) -> None:
        """Information or a rejected input, for the person at the keyboard."""

    def private(self, text: str, seconds: float) -> None:
        """A private line that clears itself after ``seconds``."""

    def clear_private(self) -> None:
        """The private line goes at once (its night step has ended)."""

    def refresh(self) -> None:
        """Redraw the status (phase, speaker, timer, table, fouls)."""

    def follow(self, night: bool) -> None:
        """The game is at night (True) or by day: a screen facing the table forgets, at
        daybreak, what the night put on it."""
