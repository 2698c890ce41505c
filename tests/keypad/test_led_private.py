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

    def show(self, message: Private) -> None:
        self.shown.append(message)

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
