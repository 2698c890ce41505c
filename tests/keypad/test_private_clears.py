"""The private channel is cleared when a night step ends, on every adapter.

A Commissar who checks in the last second of the window must not leave the answer for the next
role woken (the Doctor) to read: the private line of the screen, the keypad's LED and a paired
phone all show nothing once the Commissar's step is over. The clearing comes at the end of every
night step whatever was entered, so what the table hears and sees is the same as before.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field

from voicehost.clock import FakeClock
from voicehost.config import Settings
from voicehost.console.script import run_script
from voicehost.console.terminal import LogScreen
from voicehost.console.text import ScreenPrivateChannel, SilentCues, TextSpeaker
from voicehost.game.model import Phase
from voicehost.host.loop import Host
from voicehost.keypad.controller import KeypadController
from voicehost.keypad.led import LedPrivateChannel
from voicehost.phrases import PhraseBook
from voicehost.ports import Key
from voicehost.testing.clocked import wait_timer
from voicehost.web.face import WebFace, WebPrivate

# 10 players. Mafia 2, 5, 9; Commissar 4; Doctor 7. Day 1 sends seat 5 away: night 1 has the
# mafia, the Commissar and the Doctor awake in turn (the script of tests/keypad/test_fair_night).
NIGHT0_AND_DAY1 = [
    *("2 5 9", "wait", "4", "wait", "7", "wait", "wait", "5", ".", "5 9", ".", "5", ".", "9"),
    *(".", "1", ".", "5", ".", "5", ".", "9", ".", "5", "wait", "5", ".", "wait", "wait", "8"),
    *(".", "wait"),
]
KEY_GAP = 0.3
DIGITS = {str(n): getattr(Key, f"D{n}") for n in range(10)}


class Led:
    """The keypad LED: every switch, in order (the channel plays on its own thread)."""

    def __init__(self) -> None:
        self.changes: list[bool] = []
        self.lock = threading.Lock()

    def set(self, lit: bool) -> None:
        with self.lock:
            self.changes.append(lit)

    @property
    def lit(self) -> bool:
        with self.lock:
            return bool(self.changes) and self.changes[-1]

    def close(self) -> None:
        """Nothing to release."""


class Phone:
    """A paired remote's socket: the private frames it was sent."""

    def __init__(self) -> None:
        self.frames: list[dict[str, object]] = []

    def publish(self, board: str, remote: str) -> None:
        """The shared board and remote state: not what this test looks at."""

    def answer(self, connection: int, frame: str) -> None:
        """Answers to the phone's own inputs: none here."""

    def private(self, frame: str) -> None:
        self.frames.append(json.loads(frame))

    def showing(self) -> bool:
        """What host.js shows: the last private frame, unless a clear came after it."""
        return bool(self.frames) and self.frames[-1]["type"] == "private"


@dataclass
class Night:
    """What a night left: for the table, and on the private channel at the Doctor's wake."""

    said: list[str]
    cues: list[tuple[str, float | None]]
    answer_seen: str = ""  # the private line just after the Commissar's entry
    phone_answer: bool = False  # the phone showed the answer after the entry
    led_lit_for_answer: bool = False  # the LED lit after the entry's two blinks
    at_doctor: dict[str, object] = field(default_factory=dict)


def play(check: str | None, at: float, *, led: Led | None = None) -> Night:
    """Night 1: the mafia shoot 3; the Commissar enters ``check`` ``at`` seconds before the
    window ends (None: nothing); then the Doctor is woken."""
    settings = Settings()
    clock = FakeClock()
    book = PhraseBook.load("ru")
    screen = LogScreen()
    on_screen = ScreenPrivateChannel(screen, settings.private.screen_seconds, book=book)
    on_led = None if led is None else LedPrivateChannel(led, settings.private, fallback=on_screen)
    private = WebPrivate(on_led or on_screen)
    speaker = TextSpeaker(clock)
    cues = SilentCues()
    host = Host(settings, book, clock, speaker=speaker, cues=cues, private=private, screen=screen)
    host.start()
    assert run_script(NIGHT0_AND_DAY1, settings, clock=clock, host=host).errors == []
    phone = Phone()
    private.face = WebFace(host, lambda: "", phone)
    controller = KeypadController(host, cues, clock)
    assert host.state is not None and host.state.phase is Phase.NIGHT_MAFIA
    said_from, cues_from, lines_from = len(speaker.spoken), len(cues.played), len(screen.lines)

    def keys(typed: str, last_at: float) -> None:
        for number, char in enumerate(typed):
            advance_to(host, clock, last_at - KEY_GAP * (len(typed) - 1 - number))
            controller.on_key(DIGITS.get(char, Key.ENTER))
            host.process_pending()

    assert host.timer is not None
    keys("3E", host.timer.starts_at + 2.0)  # after the step's first moment (NIGHT_ENTRY_GUARD)
    wait_timer(host)
    assert host.state.phase is Phase.NIGHT_COMMISSAR and host.timer is not None
    night = Night([], [])
    if check is not None:
        keys(check + "E", host.timer.ends_at - at)
        night.answer_seen = screen.current_private()
        night.phone_answer = phone.showing()
        if led is not None:  # the answer's window opens after the two blinks and a pause
            until = time.monotonic() + 5
            while led.changes.count(True) < 3 and time.monotonic() < until:
                time.sleep(0.02)
            night.led_lit_for_answer = led.lit
    wait_timer(host)  # the window runs out: the Commissar sleeps, the Doctor wakes
    assert host.state.phase is Phase.NIGHT_DOCTOR
    switched = len(led.changes) if led is not None else 0
    night.at_doctor = {
        "screen": screen.lines[lines_from:],
        "private line": screen.current_private(),
        "phone shows": phone.showing(),
        "phone cleared": bool(phone.frames) and phone.frames[-1] == {"type": "private_clear"},
        "led lit": led is not None and led.lit,
    }
    if led is not None and on_led is not None:
        on_led.wait_idle()  # whatever the LED still had to play
        night.at_doctor["led lit after"] = True in led.changes[switched:]
    while host.state.phase.is_night:
        wait_timer(host)
    private.close()
    said = speaker.spoken[said_from:]
    night.said = said[: said.index("Город просыпается!") + 1]  # the night, up to the morning
    night.cues = [(str(cue), at) for cue, at in cues.played[cues_from:]]
    night.at_doctor["clears sent"] = sum(f == {"type": "private_clear"} for f in phone.frames)
    return night


def advance_to(host: Host, clock: FakeClock, when: float) -> None:
    """Let time pass, firing each timer event at its own moment."""
    while (deadline := host.next_deadline()) is not None and deadline <= when:
        clock.set(deadline)
        host.process_due()
    clock.set(max(when, clock.now()))


NOTHING_SHOWN = {"private line": "", "phone shows": False, "phone cleared": True, "led lit": False}


def test_a_check_in_the_last_second_is_gone_from_screen_and_phone_when_the_doctor_wakes() -> None:
    night = play("9", at=0.5)  # 9 is the mafia: the Commissar's answer is «mafia»
    assert "МАФИЯ" in night.answer_seen  # the Commissar did see the answer ...
    assert night.phone_answer
    assert {k: night.at_doctor[k] for k in NOTHING_SHOWN} == NOTHING_SHOWN  # ... the Doctor not


def test_a_check_in_the_last_second_leaves_the_led_dark_when_the_doctor_wakes() -> None:
    led = Led()
    night = play("9", at=0.5, led=led)
    assert night.led_lit_for_answer  # lit: mafia, as the Commissar saw
    assert night.at_doctor["led lit"] is False
    assert night.at_doctor["led lit after"] is False  # and it is not lit again in the step
    assert night.at_doctor["phone cleared"] is True


def test_the_clearing_tells_the_table_nothing() -> None:
    """The same night's words, cues and screen lines (at the Doctor's wake), and the same clear
    frames at the same steps, whoever is checked and when; the same night's words and clear frames
    if nobody is (the table hears no key then, as before)."""
    nights = {
        "mafia, last second": play("9", at=0.5),
        "not mafia, last second": play("3", at=0.5),
        "mafia, at once": play("9", at=13.0),  # as soon as the step takes an entry
    }
    first = nights["mafia, last second"]
    for name, night in nights.items():
        assert night.said == first.said, name
        assert night.cues == first.cues, name
        assert night.at_doctor["screen"] == first.at_doctor["screen"], name
        assert night.at_doctor["clears sent"] == first.at_doctor["clears sent"], name
    assert first.at_doctor["clears sent"] == 3  # one at the end of each step of night 1
    nothing = play(None, at=0.0)
    assert nothing.said == first.said
    assert nothing.at_doctor["clears sent"] == 3
    assert {k: nothing.at_doctor[k] for k in NOTHING_SHOWN} == NOTHING_SHOWN
