"""The USB numeric keypad, read through evdev straight from ``/dev/input``.

No terminal and no window focus are needed, so it works on a headless Raspberry Pi. The device
is chosen by name (``keypad.device``) or is the first one with the keypad digits KEY_KP0..KEY_KP9.
Only key-down events count (auto-repeat and key-up are ignored). When the keypad is unplugged the
adapter says so once (``on_status(False)``), polls until it is back, then says so
(``on_status(True)``) and carries on.

The device is grabbed while it is read, so its keys never reach a login console as well.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from voicehost.errors import ConfigError, DeviceError, MissingDependency
from voicehost.notices import LOG_ONLY, notice
from voicehost.ports import Key, KeyPressed

if TYPE_CHECKING:
    from evdev import InputEvent

log = logging.getLogger(__name__)

INPUT_DIR = Path("/dev/input")
KEYPAD_DIGIT_NAMES = tuple(f"KEY_KP{digit}" for digit in range(10))
KEY_DOWN = 1  # evdev key values: 0 = up, 1 = down, 2 = auto-repeat
LED_NAMES = {"numlock": "LED_NUML", "capslock": "LED_CAPSL", "scrolllock": "LED_SCROLLL"}
INSTALL_HINT = (
    "python-evdev is not installed: run `.venv/bin/pip install evdev` "
    "(on Raspberry Pi OS, `sudo apt-get install python3-evdev` also works)"
)


def import_evdev() -> Any:
    """The evdev module, or MissingDependency with the install hint."""
    try:
        import evdev
    except ImportError as exc:
        raise MissingDependency(INSTALL_HINT) from exc
    return evdev


@dataclass(frozen=True)
class KeypadInfo:
    """An input device found under /dev/input: its node, its name, its LEDs, and whether it
    has the keypad digits KEY_KP0..KEY_KP9."""

    path: str
    name: str
    leds: tuple[str, ...]
    is_keypad: bool = True

    def has_led(self, led: str) -> bool:
        """Whether the device has this LED (``numlock``, ``capslock``, ``scrolllock``)."""
        return LED_NAMES.get(led, led) in self.leds


def list_input_devices() -> list[KeypadInfo]:
    """Every input device this user can open.

    Returns an empty list on a machine without /dev/input (a container, a CI runner).
    """
    evdev = import_evdev()
    if not INPUT_DIR.is_dir():
        return []
    found = []
    for path in sorted(evdev.list_devices()):
        info = _describe(evdev, path)
        if info is not None:
            found.append(info)
    return found


def _describe(evdev: Any, path: str) -> KeypadInfo | None:
    try:
        device = _open_for_probing(evdev, path)
    except OSError:
        return None
    try:
        capabilities = device.capabilities()
        name = str(device.name)
    finally:
        device.close()
    codes = set(capabilities.get(evdev.ecodes.EV_KEY, ()))
    digit_codes = {evdev.ecodes.ecodes[digit] for digit in KEYPAD_DIGIT_NAMES}
    leds = tuple(
        _code_name(evdev.ecodes.LED, code) for code in capabilities.get(evdev.ecodes.EV_LED, ())
    )
    return KeypadInfo(path=path, name=name, leds=leds, is_keypad=digit_codes <= codes)


def _open_for_probing(evdev: Any, path: str) -> Any:
    """Open read-only where evdev allows it (1.7+): some keypads re-assert their LEDs when a
    program opens them for writing. Debian 12's python3-evdev 1.6 has no such option."""
    try:
        return evdev.InputDevice(path, readonly=True)
    except TypeError:
        return evdev.InputDevice(path)


def _code_name(table: Mapping[int, Any], code: int) -> str:
    name = table.get(code, str(code))
    return str(name[0] if isinstance(name, list | tuple) else name)


def find_keypad(device: str = "") -> KeypadInfo | None:
    """The keypad to use: ``device`` as a path or a part of the name, else the first keypad.

    A device named in the config is taken even without the keypad digits (a full keyboard's
    number block works too); without a name only devices with keypad digits are considered.
    """
    devices = list_input_devices()
    if device:
        return next((info for info in devices if _matches(info, device.strip())), None)
    return next((info for info in devices if info.is_keypad), None)


def _matches(info: KeypadInfo, wanted: str) -> bool:
    if wanted.startswith("/"):
        return os.path.realpath(wanted) == os.path.realpath(info.path)
    return wanted.casefold() in info.name.casefold()


class KeyDecoder:
    """Turns raw evdev events into ``Key`` presses through the config's key map."""

    def __init__(self, keymap: Mapping[str, str], ecodes: Any | None = None) -> None:
        codes = ecodes if ecodes is not None else import_evdev().ecodes
        self._ev_key = int(codes.EV_KEY)
        self._keys: dict[int, Key] = {}
        for name, action in keymap.items():
            code = codes.ecodes.get(name)
            if code is None or not name.startswith(("KEY_", "BTN_")):
                raise ConfigError(
                    f"keypad.keymap.{name}",
                    None,
                    "is not an evdev key name; use names like KEY_KP5 or KEY_KPENTER "
                    "(`voicehost doctor` or `evtest` shows what your keypad sends)",
                )
            try:
                self._keys[int(code)] = Key(action)
            except ValueError as exc:
                allowed = ", ".join(key.value for key in Key)
                raise ConfigError(
                    f"keypad.keymap.{name}", None, f"{action!r} is not a key; use one of: {allowed}"
                ) from exc

    def decode(self, event: InputEvent) -> Key | None:
        """The key pressed, for a key-down event of a mapped key; None for anything else."""
        if event.type != self._ev_key or event.value != KEY_DOWN:
            return None
        return self._keys.get(event.code)


class EventSource(Protocol):
    """An open input device as the reading loop needs it."""

    def read_events(self, timeout: float) -> Iterable[InputEvent]:
        """Events that arrived within ``timeout`` seconds; OSError when the device is gone."""
        ...

    def close(self) -> None: ...


Opener = Callable[[], EventSource | None]
"""Opens the keypad, or returns None while there is none."""


class EvdevDevice:
    """A real /dev/input node, grabbed for as long as it is open."""

    def __init__(self, path: str, *, grab: bool = True) -> None:
        evdev = import_evdev()
        self._device = evdev.InputDevice(path)
        if grab:
            try:
                self._device.grab()
            except OSError as exc:
                log.warning(
                    "keypad %s is used by another program too (%s)",
                    path,
                    exc,
                    extra=notice("keypad_shared", path=path),
                )

    def read_events(self, timeout: float) -> Iterable[InputEvent]:
        ready, _, _ = select.select([self._device.fd], [], [], timeout)
        if not ready:
            return []
        try:
            return list(self._device.read())
        except BlockingIOError:
            return []

    def close(self) -> None:
        with contextlib.suppress(OSError):  # already gone with the unplugged device
            self._device.close()


def evdev_opener(device: str, *, grab: bool = True) -> Opener:
    """An Opener for the keypad named ``device`` (or the first keypad)."""

    def open_keypad() -> EventSource | None:
        info = find_keypad(device)
        if info is None:
            return None
        try:
            return EvdevDevice(info.path, grab=grab)
        except OSError as exc:
            log.warning(
                "cannot open keypad %s: %s",
                info.path,
                exc,
                extra=notice("keypad_cannot_open", path=info.path, reason=exc),
            )
            return None

    return open_keypad


class EvdevKeypad:
    """``ports.Keypad`` over evdev: one reading thread, plug and unplug handled."""

    def __init__(
        self,
        keymap: Mapping[str, str],
        opener: Opener,
        *,
        poll_seconds: float = 1.0,
        read_timeout: float = 0.2,
        decoder: KeyDecoder | None = None,
    ) -> None:
        self._decoder = decoder if decoder is not None else KeyDecoder(keymap)
        self._opener = opener
        self._poll_seconds = poll_seconds
        self._read_timeout = read_timeout
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._connected: bool | None = None

    @property
    def connected(self) -> bool | None:
        """True while the keypad is open, False while it is missing, None before the start."""
        return self._connected

    def start(self, on_key: KeyPressed, on_status: Callable[[bool], None]) -> None:
        """Read keys on a background thread until ``close``."""
        if self._thread is not None:
            raise DeviceError("the keypad is already started")
        self._thread = threading.Thread(
            target=self.run, args=(on_key, on_status), name="keypad", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        """Stop reading and release the device."""
        self._stopping.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2 * max(self._read_timeout, self._poll_seconds) + 1)

    def run(self, on_key: KeyPressed, on_status: Callable[[bool], None]) -> None:
        """The reading loop (the thread's body; tests call it directly with a fake opener)."""
        while not self._stopping.is_set():
            source = self._opener()
            if source is None and self._stopping.is_set():
                break  # closing: a keypad missing now is no news for anyone
            if source is None:
                self._set_connected(False, on_status)
                self._stopping.wait(self._poll_seconds)
                continue
            self._set_connected(True, on_status)
            try:
                self._pump(source, on_key)
            except OSError as exc:
                log.warning("keypad lost: %s", exc, extra=LOG_ONLY)  # the host says it aloud
            finally:
                source.close()

    def _set_connected(self, connected: bool, on_status: Callable[[bool], None]) -> None:
        previous, self._connected = self._connected, connected
        # Said once per change; a keypad present at the start is not news.
        if previous is connected or (previous is None and connected):
            return
        _call_safely(on_status, connected)

    def _pump(self, source: EventSource, on_key: KeyPressed) -> None:
        while not self._stopping.is_set():
            for event in source.read_events(self._read_timeout):
                key = self._decoder.decode(event)
                if key is not None:
                    _call_safely(on_key, key)


def _call_safely(callback: Callable[[Any], None], value: Any) -> None:
    # A failing consumer must not kill the keypad thread: the next key should still work.
    # The log names neither the key nor the error's text: at night a key is a seat someone
    # chose, and journald keeps the log for anyone allowed to read it.
    try:
        callback(value)
    except Exception as exc:  # noqa: BLE001 - the next key must still work
        log.error(
            "a keypad key could not be handled (%s); the next key works",
            type(exc).__name__,
            extra=LOG_ONLY,  # at night a screen line would mark the moment of an entry
        )
