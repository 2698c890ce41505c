"""The console's text adapters: announcements printed, silent cues, a stream screen and the
Commissar's private screen line."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from voicehost.game.effects import Private, PrivateKind
from voicehost.game.model import Cue
from voicehost.host.table import private_text
from voicehost.phrases import PhraseBook
from voicehost.ports import Clock, Screen, Utterance


class TextSpeaker:
    """Announcements as text: printed (when ``stream`` is given) and kept in ``spoken``."""

    def __init__(self, clock: Clock, stream: TextIO | None = None) -> None:
        self.clock = clock
        self.stream = stream
        self.spoken: list[str] = []

    def say(self, utterance: Utterance) -> None:
        self.spoken.append(utterance.text)
        if self.stream is not None:
            print(f"🔊 {utterance.text}", file=self.stream, flush=True)

    def busy_until(self) -> float:
        return self.clock.now()

    def close(self) -> None:
        """Nothing to release."""


class SilentCues:
    """Cues with no sound: remembered in ``played`` (cue, at) for tests and scripts."""

    def __init__(self) -> None:
        self.played: list[tuple[Cue, float | None]] = []

    def play(self, cue: Cue, at: float | None = None) -> None:
        self.played.append((cue, at))

    def lead_seconds(self) -> float:
        """Nothing plays: a cue needs no head start."""
        return 0.0

    def close(self) -> None:
        """Nothing to release."""


class StreamScreen(Screen):
    """Messages printed to a stream (used by scripts: announcements go via the TextSpeaker)."""

    def __init__(self, stream: TextIO = sys.stdout) -> None:
        self.stream = stream

    def message(self, text: str) -> None:
        print(text, file=self.stream, flush=True)


class ScreenPrivateChannel:
    """The Commissar's answer as a screen line that clears itself. A refused entry's reason
    that comes while the answer is still shown (a second check typed at once) is shown beside
    it, so the answer is never cut short."""

    def __init__(
        self,
        screen: Screen | None,
        seconds: float = 3.0,
        describe: Callable[[Private], str] | None = None,
        book: PhraseBook | None = None,
    ) -> None:
        self.screen = screen
        self.seconds = seconds
        self.describe = describe or (lambda message: describe_private(message, book))
        self.shown: list[Private] = []
        self._answer = ("", 0.0)  # the last answer and until when it is shown (monotonic)

    def show(self, message: Private) -> None:
        self.shown.append(message)
        if self.screen is None:
            return
        text = self.describe(message)
        answer, until = self._answer
        if message.kind is PrivateKind.REFUSED and time.monotonic() < until:
            text = f"{answer} · {text}"
        if message.kind is PrivateKind.ANSWER:
            self._answer = (text, time.monotonic() + self.seconds)
        self.screen.private(text, self.seconds)

    def clear(self) -> None:
        """The night step has ended: the line goes at once, and a refusal in the next step is
        never shown beside this step's answer."""
        self._answer = ("", 0.0)
        if self.screen is not None:
            self.screen.clear_private()

    def close(self) -> None:
        """Nothing to release."""


def describe_private(message: Private, book: PhraseBook | None = None) -> str:
    """A neutral private line; the same length for 'mafia' and 'not mafia' (host.table)."""
    return private_text(message, book or PhraseBook.load("ru"))
