"""Which keypad and private channel a game gets on a machine like this one (no /dev/input)."""

from __future__ import annotations

import dataclasses
import logging
import os

import pytest

from voicehost.cli import wiring
from voicehost.config import KeypadSettings, PrivateSettings, Settings
from voicehost.console.text import ScreenPrivateChannel
from voicehost.errors import ConfigError
from voicehost.keypad.evdev_keypad import EvdevKeypad

pytestmark = pytest.mark.skipif(
    os.path.isdir("/dev/input") and bool(os.listdir("/dev/input")),
    reason="this machine has input devices: the answers depend on what is plugged in",
)


def settings(**keypad: object) -> Settings:
    return Settings(keypad=dataclasses.replace(KeypadSettings(), **keypad))  # type: ignore[arg-type]


def test_keypad_off_or_absent_means_a_keyboard_game() -> None:
    assert wiring.make_keypad(settings(enabled="off")) is None
    assert wiring.make_keypad(settings(enabled="auto")) is None


def test_keypad_on_waits_for_the_keypad_and_says_it_is_missing_once() -> None:
    keypad = wiring.make_keypad(settings(enabled="on"))
    assert isinstance(keypad, EvdevKeypad)
    statuses: list[bool] = []
    keypad._poll_seconds = 0.01  # poll fast: the test looks at several polls
    keypad.start(lambda key: None, statuses.append)
    try:
        import time

        time.sleep(0.2)
    finally:
        keypad.close()
    assert statuses == [False]


def test_a_misspelt_key_name_in_the_key_map_is_reported_at_once() -> None:
    keymap = {**KeypadSettings().keymap, "KEY_KPENTR": "enter"}
    with pytest.raises(ConfigError, match="KEY_KPENTR"):
        wiring.make_keypad(settings(enabled="on", keymap=keymap))


def test_without_a_keypad_led_the_answer_goes_to_the_screen_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        channel = wiring.make_private_channel(Settings(), None)
    assert isinstance(channel, ScreenPrivateChannel)
    assert "goes to the screen" in caplog.text


def test_screen_channel_by_choice_says_nothing(caplog: pytest.LogCaptureFixture) -> None:
    chosen = Settings(private=PrivateSettings(channel="screen", screen_seconds=5))
    with caplog.at_level(logging.WARNING):
        channel = wiring.make_private_channel(chosen, None)
    assert isinstance(channel, ScreenPrivateChannel)
    assert channel.seconds == 5
    assert caplog.text == ""
