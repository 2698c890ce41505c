"""Clocks: the real monotonic clock and a fake one that tests jump forward."""

from __future__ import annotations

import time


class MonotonicClock:
    """The real clock: ``time.monotonic()``."""

    def now(self) -> float:
        return time.monotonic()


class FakeClock:
    """A clock that only moves when told to; a 3-minute day takes no time at all."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def set(self, when: float) -> None:
        """Jump to ``when``; the clock never goes backwards."""
        self._now = max(self._now, when)

    def advance(self, seconds: float) -> None:
        self._now += max(0.0, seconds)
