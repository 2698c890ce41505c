"""The Commissar's answer on the keypad LED: what the Commissar sees, and what nobody else can."""

from __future__ import annotations

import dataclasses

import pytest

from voicehost.config import PrivateSettings
from voicehost.game.effects import Private, PrivateKind
from voicehost.keypad.led import (
    LedPrivateChannel,
    confirmation_pattern,
    led_pattern,
)

MAFIA = Private(PrivateKind.ANSWER, found=True, answer="private_mafia")
NOT_MAFIA = Private(PrivateKind.ANSWER, found=False, answer="private_not_mafia")


class FakeLed:
    """Records what the LED showed and when, on a fake timeline driven by the channel's sleeps."""

    def __init__(self, broken_after: int | None = None) -> None:
        self.now = 0.0
        self.changes: list[tuple[float, bool]] = []
        self.broken_after = broken_after
        self.closed = False

    def set(self, lit: bool) -> None:
        if self.broken_after is not None and len(self.changes) >= self.broken_after:
            raise OSError("No such device")
        self.changes.append((round(self.now, 3), lit))

    def sleep(self, seconds: float) -> bool:
        self.now += seconds
        return False

    def close(self) -> None:
        self.closed = True

    def lit_seconds(self) -> float:
        total = 0.0
        for (start, lit), (end, _) in zip(self.changes, self.changes[1:], strict=False):
            total += (end - start) if lit else 0.0
        return round(total, 3)


class RecordingScreen:
    def __init__(self) -> None:
        self.shown: list[Private] = []
        self.closed = False
        self.cleared = 0

    def show(self, message: Private) -> None:
        self.shown.append(message)

    def clear(self) -> None:
        self.cleared += 1

    def close(self) -> None:
        self.closed = True


def play(messages: list[Private], settings: PrivateSettings | None = None) -> FakeLed:
    led = FakeLed()
    channel = LedPrivateChannel(led, settings or PrivateSettings(), sleeper=led.sleep)
    for message in messages:
        channel.show(message)
    channel.wait_idle()
    channel.close()
    return led


def test_mafia_lights_the_led_for_the_configured_seconds() -> None:
    led = play([MAFIA], PrivateSettings(led_seconds=3))
    blinks = sum(step.seconds for step in confirmation_pattern() if step.lit)
    assert led.lit_seconds() == pytest.approx(3 + blinks)


def test_not_mafia_leaves_the_led_dark_but_for_the_confirmation_blinks() -> None:
    led = play([NOT_MAFIA], PrivateSettings(led_seconds=3))
    blinks = sum(step.seconds for step in confirmation_pattern() if step.lit)
    assert led.lit_seconds() == pytest.approx(blinks)


def test_inverted_config_lights_the_led_for_not_mafia() -> None:
    inverted = PrivateSettings(led_on_means_mafia=False)
    assert play([NOT_MAFIA], inverted).lit_seconds() > play([MAFIA], inverted).lit_seconds()


def test_both_answers_take_exactly_the_same_time() -> None:
    settings = PrivateSettings(led_seconds=4)
    mafia = led_pattern(MAFIA, settings)
    not_mafia = led_pattern(NOT_MAFIA, settings)
    assert [step.seconds for step in mafia] == [step.seconds for step in not_mafia]
    assert play([MAFIA], settings).now == play([NOT_MAFIA], settings).now


def test_every_entry_confirmation_is_the_same_whatever_was_entered() -> None:
    entries = [
        Private(PrivateKind.ENTRY_CONFIRMED, seats=(3, 7)),
        Private(PrivateKind.ENTRY_CONFIRMED, seats=(10,)),
        Private(PrivateKind.ENTRY_CONFIRMED),
    ]
    patterns = {led_pattern(entry, PrivateSettings()) for entry in entries}
    assert len(patterns) == 1
    assert sum(1 for step in patterns.pop() if step.lit) == 2  # two short blinks


def test_the_led_starts_dark_and_ends_dark() -> None:
    led = play([MAFIA])
    assert led.changes[0] == (0.0, False)
    assert led.changes[-1][1] is False
    assert led.closed


def test_a_pattern_that_cannot_reach_the_led_goes_to_the_screen() -> None:
    led = FakeLed(broken_after=1)  # the initial "dark" works, then the keypad is unplugged
    screen = RecordingScreen()
    channel = LedPrivateChannel(led, PrivateSettings(), fallback=screen, sleeper=led.sleep)
    channel.show(MAFIA)
    channel.wait_idle()
    channel.close()
    assert screen.shown == [MAFIA]
    assert screen.closed


def test_close_cuts_a_long_answer_short() -> None:
    import time

    channel = LedPrivateChannel(FakeLed(), dataclasses.replace(PrivateSettings(), led_seconds=30))
    channel.show(MAFIA)
    started = time.monotonic()
    channel.close()
    assert time.monotonic() - started < 2.5


def test_clear_darkens_the_answer_at_once_and_drops_what_was_queued_before_it() -> None:
    """The night step ended while the answer was lit (the next role is being woken): dark now,
    and nothing of this step plays after; what the next step shows plays as ever."""
    import time

    led = FakeLed()
    channel = LedPrivateChannel(led, dataclasses.replace(PrivateSettings(), led_seconds=30))
    channel.show(MAFIA)
    channel.show(Private(PrivateKind.REFUSED, answer="private_refused_checked", again=False))
    until = time.monotonic() + 5
    while [lit for _, lit in led.changes].count(True) < 3 and time.monotonic() < until:
        time.sleep(0.01)
    assert led.changes[-1][1] is True  # the answer's window: lit for mafia
    cleared_at = len(led.changes)
    started = time.monotonic()
    channel.clear()
    assert led.changes[-1][1] is False  # dark before clear() returns
    channel.wait_idle()
    assert time.monotonic() - started < 1.0  # the 30 s answer and the refusal were dropped
    assert [lit for _, lit in led.changes[cleared_at:]] == [False]
    channel.show(Private(PrivateKind.ENTRY_CONFIRMED))  # the next step's entry
    channel.wait_idle()
    assert [lit for _, lit in led.changes[cleared_at + 1 :]].count(True) == 2  # two blinks
    channel.close()


def test_clear_reaches_the_screen_fallback() -> None:
    """An LED that cannot be written gives its answers to the screen line: that is cleared too."""
    screen = RecordingScreen()
    channel = LedPrivateChannel(FakeLed(), PrivateSettings(), fallback=screen, sleeper=led_sleep)
    channel.clear()
    channel.close()
    assert screen.cleared == 1


def led_sleep(seconds: float) -> bool:
    return False
