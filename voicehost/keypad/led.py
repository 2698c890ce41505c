"""The Commissar's private answer on the keypad's own LED (NumLock by default), through evdev.

What the Commissar sees after entering a check:

1. two short blinks: "your entry is taken" (the same pattern for every night entry);
2. a pause, then the answer window of ``private.led_seconds``: the LED lit the whole window means
   mafia, the LED dark the whole window means not mafia (``private.led_on_means_mafia: false``
   swaps the two).

Every other night entry (registration, the mafia's target, the Doctor's heal) gets the same two
short blinks. A night entry that was refused for a reason the one awake may know (host.loop's
``PRIVATE_REFUSALS``) gets its own pattern: three quick blinks, «choose another seat»; five
quick blinks, «nothing more to enter tonight» (a second check). Nothing here makes a sound, so
the table hears nothing of it (the refusal's cue is the same whatever the reason); the LED is
small and the keypad sits in front of whoever is awake.

When the night step ends (``clear()``, called by the host at the end of every step, whatever was
entered), the LED goes dark at once, even in the middle of a pattern: the next role woken never
sees what the last one was told.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from voicehost.config import PrivateSettings
from voicehost.errors import DeviceError
from voicehost.game.effects import Private, PrivateKind
from voicehost.keypad.evdev_keypad import LED_NAMES, find_keypad, import_evdev
from voicehost.notices import LOG_ONLY
from voicehost.ports import PrivateChannel

log = logging.getLogger(__name__)

BLINK_SECONDS = 0.15
"""One blink of the entry confirmation: lit this long, then dark this long."""

BLINKS = 2
ANSWER_PAUSE_SECONDS = 0.8
"""Dark pause between the confirmation blinks and the answer window, so the two never merge."""

QUICK_BLINK_SECONDS = 0.08
"""A refused entry blinks this quick: three times when another seat can replace it, five times
when nothing more can be entered tonight; never lit for long, so never mistaken for an answer."""

REFUSED_BLINKS = {True: 3, False: 5}


@dataclass(frozen=True)
class LedStep:
    """Hold the LED lit or dark for some seconds."""

    lit: bool
    seconds: float


def confirmation_pattern() -> tuple[LedStep, ...]:
    """Two short blinks: the same for every entry, whoever made it and whatever it was."""
    blink = (LedStep(True, BLINK_SECONDS), LedStep(False, BLINK_SECONDS))
    return blink * BLINKS


def led_pattern(message: Private, settings: PrivateSettings) -> tuple[LedStep, ...]:
    """What the LED does for a private message. The pattern ends dark."""
    if message.kind is PrivateKind.ENTRY_CONFIRMED:
        return confirmation_pattern()
    if message.kind is PrivateKind.REFUSED:
        quick = (LedStep(True, QUICK_BLINK_SECONDS), LedStep(False, QUICK_BLINK_SECONDS))
        return quick * REFUSED_BLINKS[message.again]
    if message.kind is PrivateKind.ANSWER:
        if message.found is None:  # no answer tonight (the «путана»'s client): dark, as long
            return (
                *confirmation_pattern(),
                LedStep(False, ANSWER_PAUSE_SECONDS + settings.led_seconds),
                LedStep(False, 0.0),
            )
        return (  # lit: the check found what it looks for (the mafia, the Sheriff, black)
            *confirmation_pattern(),
            LedStep(False, ANSWER_PAUSE_SECONDS),
            LedStep(message.found == settings.led_on_means_mafia, settings.led_seconds),
            LedStep(False, 0.0),
        )
    raise DeviceError(f"unknown private message {message.kind!r} (a bug: report it)")


class Led(Protocol):
    """One LED that can be switched; raises OSError when its device is gone."""

    def set(self, lit: bool) -> None: ...

    def close(self) -> None: ...


class EvdevLed:
    """An LED of the keypad, written through evdev. Reopens the keypad after a replug."""

    def __init__(self, device: str, led: str) -> None:
        self._evdev = import_evdev()
        self._device_name = device
        self._code = int(self._evdev.ecodes.ecodes[LED_NAMES[led]])
        self._device: Any = None

    def set(self, lit: bool) -> None:
        """Switch the LED; OSError when no keypad can be opened."""
        try:
            self._open().set_led(self._code, int(lit))
        except OSError:
            self.close()  # a stale node after a replug: open afresh next time
            self._open().set_led(self._code, int(lit))

    def _open(self) -> Any:
        if self._device is None:
            info = find_keypad(self._device_name)
            if info is None:
                raise OSError("no keypad found")
            self._device = self._evdev.InputDevice(info.path)
        return self._device

    def close(self) -> None:
        if self._device is not None:
            try:
                self._device.close()
            except OSError:
                log.debug("keypad already gone when closing its LED")
            self._device = None


Sleeper = Callable[[float], bool]
"""Waits some seconds; returns True when it was cut short because the channel is closing."""


@dataclass(frozen=True)
class _Cut:
    """In the queue: the night step ended here; ``number`` counts the clears asked so far."""

    number: int


class LedPrivateChannel:
    """``ports.PrivateChannel`` on a keypad LED. Patterns play one after another, off the host's
    thread; if the LED cannot be written, the message goes to ``fallback`` (the screen).

    ``clear()`` (the end of a night step) darkens the LED at once: the pattern playing stops and
    the patterns still queued are dropped, so the next role woken never sees this step's answer.
    """

    def __init__(
        self,
        led: Led,
        settings: PrivateSettings,
        *,
        fallback: PrivateChannel | None = None,
        sleeper: Sleeper | None = None,
    ) -> None:
        self._led = led
        self._settings = settings
        self._fallback = fallback
        self._closing = threading.Event()
        self._cut = threading.Event()  # set by clear() and close(): a wait ends at once
        self._lock = threading.Lock()  # the LED is switched under it, by the worker or clear()
        self._clears_asked = 0
        self._clears_done = 0
        self._sleep: Sleeper = sleeper if sleeper is not None else self._cut.wait
        self._queue: queue.Queue[Private | _Cut | None] = queue.Queue()
        self._worker = threading.Thread(target=self._run, name="private-led", daemon=True)
        self._switch(False)  # lit must mean something: start dark
        self._worker.start()

    def show(self, message: Private) -> None:
        """Queue the message's LED pattern; returns at once."""
        self._queue.put(message)

    def clear(self) -> None:
        """Dark now, and nothing queued before this plays; returns at once."""
        with self._lock:
            self._clears_asked += 1
            self._cut.set()
            self._switch(False)
            self._queue.put(_Cut(self._clears_asked))
        if self._fallback is not None:
            self._fallback.clear()

    def wait_idle(self) -> None:
        """Block until every queued pattern has played (tests, shutdown)."""
        self._queue.join()

    def close(self) -> None:
        """Stop at once, leave the LED dark and release the keypad."""
        self._closing.set()
        self._cut.set()
        self._queue.put(None)
        self._worker.join(timeout=2)
        self._switch(False)
        self._led.close()
        if self._fallback is not None:
            self._fallback.close()

    def _run(self) -> None:
        while True:
            message = self._queue.get()
            try:
                if message is None:
                    return
                if isinstance(message, _Cut):
                    self._cleared(message.number)
                else:
                    self._play(message)
            finally:
                self._queue.task_done()

    def _cleared(self, number: int) -> None:
        """The worker has reached a clear: what is queued after it plays again."""
        with self._lock:
            self._clears_done = number
            if self._clears_done == self._clears_asked and not self._closing.is_set():
                self._cut.clear()

    def _cutting(self) -> bool:
        return self._clears_done < self._clears_asked or self._closing.is_set()

    def _play(self, message: Private) -> None:
        for step in led_pattern(message, self._settings):
            with self._lock:
                if self._cutting():  # its night step has ended: never lit again
                    return
                switched = self._switch(step.lit)
            if not switched:
                self._give_to_fallback(message)
                return
            if step.seconds > 0 and self._sleep(step.seconds):
                return

    def _switch(self, lit: bool) -> bool:
        try:
            self._led.set(lit)
        except OSError as exc:
            log.warning("keypad LED cannot be written: %s", exc, extra=LOG_ONLY)  # at night
            return False
        return True

    def _give_to_fallback(self, message: Private) -> None:
        if self._fallback is None:
            log.error("a private message was lost: no keypad LED and no screen", extra=LOG_ONLY)
            return
        self._fallback.show(message)
