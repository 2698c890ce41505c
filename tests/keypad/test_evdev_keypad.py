"""The evdev keypad adapter: real evdev events in, keys and plug status out.

This machine has no /dev/input and no /dev/uinput, so the event handling is driven with real
``evdev.InputEvent`` objects through a scripted device; the UInput test runs where a virtual
keypad can be made.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Iterable

import pytest
from evdev import InputEvent, ecodes

from voicehost.config import KeypadSettings
from voicehost.errors import ConfigError
from voicehost.keypad.evdev_keypad import EvdevKeypad, KeyDecoder, evdev_opener, find_keypad
from voicehost.ports import Key

KEYMAP = KeypadSettings().keymap
DOWN, UP, REPEAT = 1, 0, 2


def key_event(name: str, value: int) -> InputEvent:
    return InputEvent(1700000000, 0, ecodes.EV_KEY, ecodes.ecodes[name], value)


def press(name: str) -> list[InputEvent]:
    """What a keypad sends for one tap: scan code, key down, sync, key up, sync."""
    return [
        InputEvent(1700000000, 0, ecodes.EV_MSC, ecodes.MSC_SCAN, 0x70059),
        key_event(name, DOWN),
        InputEvent(1700000000, 0, ecodes.EV_SYN, ecodes.SYN_REPORT, 0),
        key_event(name, UP),
        InputEvent(1700000000, 0, ecodes.EV_SYN, ecodes.SYN_REPORT, 0),
    ]


class ScriptedDevice:
    """A keypad that sends the given batches of events, then is unplugged."""

    def __init__(self, batches: Iterable[list[InputEvent]]) -> None:
        self.batches = list(batches)
        self.closed = False

    def read_events(self, timeout: float) -> list[InputEvent]:
        if not self.batches:
            raise OSError(errno.ENODEV, "No such device")
        return self.batches.pop(0)

    def close(self) -> None:
        self.closed = True


def run_scripted(opened: list[ScriptedDevice | None]) -> tuple[list[Key], list[bool]]:
    """Run the adapter's loop over a sequence of open attempts; return keys and statuses."""
    keys: list[Key] = []
    statuses: list[bool] = []
    attempts = list(opened)
    keypad: EvdevKeypad

    def opener() -> ScriptedDevice | None:
        if not attempts:
            keypad.close()
            return None
        return attempts.pop(0)

    keypad = EvdevKeypad(KEYMAP, opener, poll_seconds=0.0, read_timeout=0.0)
    keypad.run(keys.append, statuses.append)
    return keys, statuses


@pytest.mark.parametrize(
    ("evdev_name", "key"),
    [
        ("KEY_KP0", Key.D0),
        ("KEY_KP7", Key.D7),
        ("KEY_KPENTER", Key.ENTER),
        ("KEY_BACKSPACE", Key.CORRECT),
        ("KEY_KPDOT", Key.CORRECT),
        ("KEY_KPMINUS", Key.MISS),
        ("KEY_KPPLUS", Key.END_SPEECH),
        ("KEY_KPASTERISK", Key.FOUL),
        ("KEY_KPSLASH", Key.UNDO),
    ],
)
def test_default_key_map_gives_each_key_its_meaning(evdev_name: str, key: Key) -> None:
    assert KeyDecoder(KEYMAP).decode(key_event(evdev_name, DOWN)) is key


def test_only_key_down_counts_not_repeat_or_release() -> None:
    decoder = KeyDecoder(KEYMAP)
    assert decoder.decode(key_event("KEY_KP5", REPEAT)) is None
    assert decoder.decode(key_event("KEY_KP5", UP)) is None
    assert [decoder.decode(event) for event in press("KEY_KP5")].count(Key.D5) == 1


def test_unmapped_keys_and_other_event_types_are_ignored() -> None:
    decoder = KeyDecoder(KEYMAP)
    assert decoder.decode(key_event("KEY_A", DOWN)) is None
    assert decoder.decode(InputEvent(0, 0, ecodes.EV_LED, ecodes.LED_NUML, 1)) is None


def test_config_can_remap_a_key() -> None:
    decoder = KeyDecoder({**KEYMAP, "KEY_NUMLOCK": "undo"})
    assert decoder.decode(key_event("KEY_NUMLOCK", DOWN)) is Key.UNDO


def test_misspelt_evdev_name_is_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError, match=r"keypad\.keymap\.KEY_KP_ENTER.*evdev key name"):
        KeyDecoder({"KEY_KP_ENTER": "enter"})


def test_unknown_action_is_a_config_error_listing_the_actions() -> None:
    with pytest.raises(ConfigError, match="end_speech"):
        KeyDecoder({"KEY_KPENTER": "confirm"})


def test_keys_arrive_in_order_and_holding_a_key_types_it_once() -> None:
    holding = [key_event("KEY_KP1", DOWN)] + [key_event("KEY_KP1", REPEAT)] * 5
    device = ScriptedDevice([press("KEY_KP1"), holding, press("KEY_KP2") + press("KEY_KPENTER")])
    keys, statuses = run_scripted([device])
    assert keys == [Key.D1, Key.D1, Key.D2, Key.ENTER]
    assert statuses == []  # present from the start: nothing to announce
    assert device.closed


def test_unplugged_keypad_is_reported_once_and_its_return_once() -> None:
    first = ScriptedDevice([press("KEY_KP3")])
    second = ScriptedDevice([press("KEY_KP4")])
    keys, statuses = run_scripted([first, None, None, None, second])
    assert keys == [Key.D3, Key.D4]
    assert statuses == [False, True]
    assert first.closed and second.closed


def test_keypad_missing_at_start_is_reported_then_found() -> None:
    keys, statuses = run_scripted([None, None, ScriptedDevice([press("KEY_KP9")])])
    assert statuses == [False, True]
    assert keys == [Key.D9]


def test_a_failing_consumer_does_not_stop_the_keypad() -> None:
    received: list[Key] = []

    def flaky(key: Key) -> None:
        if key is Key.D1:
            raise RuntimeError("consumer bug")
        received.append(key)

    attempts: list[ScriptedDevice | None] = [ScriptedDevice([press("KEY_KP1") + press("KEY_KP2")])]
    keypad: EvdevKeypad

    def opener() -> ScriptedDevice | None:
        if not attempts:
            keypad.close()
            return None
        return attempts.pop(0)

    keypad = EvdevKeypad(KEYMAP, opener, poll_seconds=0.0, read_timeout=0.0)
    keypad.run(flaky, lambda connected: None)
    assert received == [Key.D2]


def test_start_reads_on_its_own_thread_and_close_stops_it() -> None:
    got = threading.Event()
    keypad = EvdevKeypad(
        KEYMAP,
        lambda: ScriptedDevice([press("KEY_KP8")] + [[] for _ in range(10_000)]),
        poll_seconds=0.01,
        read_timeout=0.0,
    )
    keypad.start(lambda key: got.set(), lambda connected: None)
    assert got.wait(2)
    started = time.monotonic()
    keypad.close()
    assert time.monotonic() - started < 2


def test_no_input_devices_here_means_no_keypad_found() -> None:
    if os.path.isdir("/dev/input") and os.listdir("/dev/input"):
        pytest.skip("this machine has input devices; the answer depends on what is plugged in")
    assert find_keypad() is None
    assert find_keypad("USB Keypad") is None
    assert evdev_opener("")() is None


@pytest.mark.skipif(
    not os.access("/dev/uinput", os.W_OK),
    reason="no writable /dev/uinput here: a virtual keypad cannot be created",
)
def test_virtual_uinput_keypad_drives_the_adapter() -> None:
    from evdev import UInput

    capabilities = {ecodes.EV_KEY: [ecodes.ecodes[name] for name in KEYMAP]}
    with UInput(capabilities, name="voicehost test keypad") as virtual:
        time.sleep(0.3)  # udev creates the node
        keys: list[Key] = []
        keypad = EvdevKeypad(KEYMAP, evdev_opener("voicehost test keypad"), read_timeout=0.05)
        keypad.start(keys.append, lambda connected: None)
        time.sleep(0.3)
        for name in ("KEY_KP1", "KEY_KP2", "KEY_KPENTER"):
            virtual.write(ecodes.EV_KEY, ecodes.ecodes[name], DOWN)
            virtual.write(ecodes.EV_KEY, ecodes.ecodes[name], UP)
            virtual.syn()
        deadline = time.monotonic() + 2
        while len(keys) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        keypad.close()
    assert keys == [Key.D1, Key.D2, Key.ENTER]
