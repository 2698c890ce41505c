"""What the table perceives of a night on the keypad, recorded in order: each announcement and
cue with its moment, and what the one awake is told privately (the private line's words and
the LED's pattern), for tests that compare nights."""

from __future__ import annotations

from typing import Any

from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.terminal import LogScreen
from voicehost.game.effects import Private
from voicehost.game.model import Cue
from voicehost.host.table import private_text
from voicehost.keypad.led import led_pattern
from voicehost.phrases import PhraseBook
from voicehost.ports import Utterance


class TableRecorder:
    """Speaker, CuePlayer and PrivateChannel at once; private words go to ``screen``'s
    private line (set it before the night) as the game's own channel shows them."""

    def __init__(
        self, clock: FakeClock, settings: config.Settings, screen: LogScreen | None = None
    ) -> None:
        self.clock = clock
        self.settings = settings
        self.screen = screen
        self.book = PhraseBook.load(settings.language)
        self.events: list[tuple[float, str, str]] = []
        """(moment, "say" | "cue" | "led", the words, the cue or the LED's pattern)."""
        self.told: list[tuple[float, str, Any]] = []
        """What the one awake was told: (moment, the private line's words, the LED's pattern)."""

    @property
    def heard(self) -> list[tuple[float, str]]:
        """What the whole table hears: the words said, and each cue as «cue:NAME»."""
        return [
            (at, what if kind == "say" else f"cue:{what}")
            for at, kind, what in self.events
            if kind != "led"
        ]

    @property
    def log(self) -> list[tuple[float, str]]:
        """Everything in order as «say:…», «cue:…», «led:…»."""
        return [(at, f"{kind}:{what}") for at, kind, what in self.events]

    def say(self, utterance: Utterance) -> None:
        self.events.append((self.clock.now(), "say", utterance.text))

    def busy_until(self) -> float:
        return self.clock.now()

    def play(self, cue: Cue, at: float | None = None) -> None:
        self.events.append((self.clock.now() if at is None else at, "cue", cue.value))

    def lead_seconds(self) -> float:
        return 0.0

    def show(self, message: Private) -> None:
        words = private_text(message, self.book)
        pattern = led_pattern(message, self.settings.private)
        self.told.append((self.clock.now(), words, pattern))
        self.events.append((self.clock.now(), "led", str(pattern)))
        assert self.screen is not None, "give the recorder the screen before the night"
        self.screen.private(words, 3.0)

    def clear(self) -> None:
        assert self.screen is not None
        self.screen.clear_private()

    def close(self) -> None:
        """Nothing to release."""
