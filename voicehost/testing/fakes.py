"""Fakes of the ports, each recording what a player would notice (what was said and when, which
cue played at which deadline), for tests and benches. Production code never asks whether it was
given one of these: they implement the same ports as the real adapters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from voicehost.game.model import Cue
from voicehost.ports import Clock, CuePlayer, Speaker, Utterance


class TimedSpeaker:
    """A Speaker whose every announcement takes ``seconds`` of playback, one after another."""

    def __init__(self, clock: Clock, seconds: float = 2.0) -> None:
        self.clock = clock
        self.seconds = seconds
        self.until = 0.0
        self.spoken: list[tuple[float, str]] = []
        self.on_say: Callable[[Utterance], None] | None = None

    def say(self, utterance: Utterance) -> None:
        start = max(self.clock.now(), self.until)
        self.until = start + self.seconds
        self.spoken.append((start, utterance.text))
        if self.on_say is not None:
            self.on_say(utterance)

    def busy_until(self) -> float:
        return max(self.clock.now(), self.until)

    def close(self) -> None:
        """Nothing to release."""


class Witness:
    """Speaker and CuePlayer in front of real ones: passes everything on and notes each
    announcement's moment and each cue's deadline."""

    def __init__(self, speaker: Speaker, cues: CuePlayer, clock: Clock) -> None:
        self.speaker = speaker
        self.cue_player = cues
        self.clock = clock
        self.said: list[dict[str, Any]] = []
        self.cues: list[dict[str, Any]] = []
        self.on_cue: Callable[[Cue, float], None] | None = None

    def say(self, utterance: Utterance) -> None:
        self.said.append({"key": utterance.key, "asked_at": self.clock.now()})
        self.speaker.say(utterance)

    def busy_until(self) -> float:
        return self.speaker.busy_until()

    def play(self, cue: Cue, at: float | None = None) -> None:
        deadline = self.clock.now() if at is None else at
        self.cues.append({"cue": str(cue), "deadline": deadline})
        self.cue_player.play(cue, at)
        if self.on_cue is not None:
            self.on_cue(cue, deadline)

    def lead_seconds(self) -> float:
        return self.cue_player.lead_seconds()

    def close(self) -> None:
        """The real adapters are closed by whoever opened them."""


class RecordingListener:
    """A Listener that hears nothing and notes what the host asked of it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []
        self.on_stop_word: Callable[[int], None] | None = None
        self.on_spoke_on: Callable[[int], None] | None = None

    def start(
        self,
        on_stop_word: Callable[[int], None],
        on_spoke_on: Callable[[int], None] | None = None,
    ) -> None:
        self.calls.append(("start", None))
        self.on_stop_word = on_stop_word
        self.on_spoke_on = on_spoke_on

    def listen(self, token: int) -> None:
        self.calls.append(("listen", token))

    def stop_listening(self) -> None:
        self.calls.append(("stop", None))

    def deafen_until(self, until: float) -> None:
        self.calls.append(("deafen", until))

    def close(self) -> None:
        """Nothing to release."""


class RecordingCues:
    """A CuePlayer that plays nothing and keeps the cues in order (``played``) with their
    deadlines (``deadlines``); ``lead`` is the head start a sound card would need."""

    def __init__(self, lead: float = 0.0) -> None:
        self.lead = lead
        self.played: list[Cue] = []
        self.deadlines: list[float | None] = []

    def play(self, cue: Cue, at: float | None = None) -> None:
        self.played.append(cue)
        self.deadlines.append(at)

    def lead_seconds(self) -> float:
        return self.lead

    def close(self) -> None:
        """Nothing to release."""
