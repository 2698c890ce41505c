"""A role that has left is still called at night (fair nights), and what is entered at its step
is taken as at a living role's step, then dropped: the table notices nothing.

Two city games with closed cards differ only in the deal: in one the Doctor (or the Commissar)
is seat 7 (4), in the other seat 6, whom the town votes out on day 1 (closed cards: nobody hears
a role). Night 1 is then played on the keypad with the same keys at the same moments in both.
What the table notices (every announcement and when, every cue and when, the shared screen's
lines, the terminal's status lines and the board's frame after every key, the keypad LED's
lit/dark timeline) must be the same, while the game itself shows that the entry of the role
that has left did nothing.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import pytest

from voicehost import config
from voicehost.clock import FakeClock
from voicehost.config import Settings, with_preset
from voicehost.console.script import run_script
from voicehost.console.terminal import LogScreen
from voicehost.console.view import status_lines
from voicehost.game.model import Phase, Role, Seat
from voicehost.host.loop import Host
from voicehost.host.table import table_view
from voicehost.keypad.controller import KeypadController
from voicehost.keypad.led import LedPrivateChannel
from voicehost.phrases import PhraseBook
from voicehost.ports import Key
from voicehost.testing.clocked import wait_timer
from voicehost.testing.fakes import RecordingCues, TimedSpeaker

KEY_GAP = 0.3

#: The deal that keeps every role at the table: the «путана» 1, mafia 2 and 9, the Immortal 3,
#: the Commissar 4, the Don 5, the Doctor 7, the Maniac 8; 6 and 10 are civilians.
LIVING = {"commissar": 4, "doctor": 7}


def script(commissar: int, doctor: int) -> list[str]:
    """Night 0 (the deal), and day 1, when the town votes out seat 6."""
    night0 = ["2 5 9", "wait", "5", "wait", str(commissar), "wait", str(doctor), "wait"]
    night0 += ["1", "wait", "8", "wait", "3", "wait"]
    day = ["."]  # the discussion ends early
    for seat in range(1, 11):
        day += ["8" if seat == 6 else "6", "."]
    # 6 (the first candidate) gets nine votes, 8 the one left; the count is right; last words
    day += ["wait", "wait", "9", ".", "wait"]
    return night0 + day


@dataclass
class Noticed:
    """What the table noticed from nightfall to the end of the first morning's news."""

    said: list[tuple[float, str]]
    cues: list[tuple[str, float | None]]
    screen: list[str]
    views: list[tuple[list[str], dict[str, Any]]]
    led: list[tuple[bool, float]]
    state: Any


class LedLog:
    """The keypad LED: each state it showed and for how long, runs of one state merged (dark
    for 0.8 s and then 3 s looks as dark for 3.8 s)."""

    def __init__(self) -> None:
        self.shown: list[tuple[bool, float]] = []

    def set(self, lit: bool) -> None:
        if not self.shown or self.shown[-1][0] != lit:
            self.shown.append((lit, 0.0))

    def hold(self, seconds: float) -> bool:
        lit, held = self.shown[-1]
        self.shown[-1] = (lit, round(held + seconds, 6))
        return False

    def close(self) -> None:
        """Nothing to release."""


def city_settings() -> Settings:
    settings = with_preset(config.load(None), "city")
    return dataclasses.replace(settings, city=dataclasses.replace(settings.city, cards="closed"))


def play(deal: dict[str, int], night: dict[Phase, str]) -> Noticed:
    """Deal, play day 1, then night 1 on the keypad: each step's keys (``E`` Enter, ``M`` a
    miss) typed from 2 s into its window; record what the table notices."""
    settings = city_settings()
    clock = FakeClock()
    speaker = TimedSpeaker(clock)
    cues = RecordingCues()
    screen = LogScreen()
    led = LedLog()
    private = LedPrivateChannel(led, settings.private, sleeper=led.hold)
    host = Host(
        settings, PhraseBook.load("ru"), clock,
        speaker=speaker, cues=cues, private=private, screen=screen,
    )  # fmt: skip
    host.start()
    result = run_script(script(**deal), settings, clock=clock, host=host)
    assert result.errors == []
    assert host.state is not None and host.state.phase is Phase.NIGHT_PUTANA
    said_from, cues_from, screen_from = len(speaker.spoken), len(cues.played), len(screen.lines)
    start = clock.now()
    private.wait_idle()  # night 0's confirmations have played
    led.shown.clear()
    views: list[tuple[list[str], dict[str, Any]]] = []
    controller = KeypadController(host, cues, clock)
    keys = {"E": Key.ENTER, "M": Key.MISS}
    while host.state.phase.is_night:
        phase = host.state.phase
        assert host.timer is not None
        typed = night.get(phase, "")
        for number, char in enumerate(typed):
            advance_to(host, clock, host.timer.starts_at + 2.0 + number * KEY_GAP)
            controller.on_key(keys.get(char) or Key(char))
            host.process_pending()
            views.append((status_lines(host), table_view(host).to_public()))
        private.wait_idle()  # the LED's fake time: its patterns play out within the window
        wait_timer(host)
        views.append((status_lines(host), table_view(host).to_public()))
    state = host.state
    lines = screen.lines[screen_from:]
    private.wait_idle()
    private.close()
    host.close()
    return Noticed(
        said=[(round(at - start, 6), text) for at, text in speaker.spoken[said_from:]],
        cues=[
            (str(cue), None if at is None else round(at - start, 6))
            for cue, at in zip(cues.played[cues_from:], cues.deadlines[cues_from:], strict=True)
        ],
        screen=lines,
        views=views,
        led=led.shown,
        state=state,
    )


def advance_to(host: Host, clock: FakeClock, when: float) -> None:
    """Let time pass, firing each timer event at its own moment."""
    while (deadline := host.next_deadline()) is not None and deadline <= when:
        clock.set(deadline)
        host.process_due()
    clock.set(max(when, clock.now()))


#: Night 1, the same keys in every game: the «путана» visits 8, the mafia shoot 10, the Don
#: checks 3, the Commissar checks 10 (red: the LED stays dark), the Doctor heals 3, the Maniac
#: misses. (A heal of 10, the shot, would save him: the morning would then differ, as it should.)
NIGHT = {
    Phase.NIGHT_PUTANA: "8E",
    Phase.NIGHT_MAFIA: "10E",
    Phase.NIGHT_DON: "3E",
    Phase.NIGHT_COMMISSAR: "10E",
    Phase.NIGHT_DOCTOR: "3E",
    Phase.NIGHT_MANIAC: "M",
}


@pytest.mark.parametrize(
    ("role", "phase", "entries"),
    [
        ("doctor", Phase.NIGHT_DOCTOR, ("3E", "5E", "6E3E", "12E", "M", "E")),
        ("commissar", Phase.NIGHT_COMMISSAR, ("10E", "3E10E", "6E", "12E", "M")),
    ],
)
def test_an_entry_at_a_departed_roles_step_looks_and_sounds_as_at_a_living_ones(
    role: str, phase: Phase, entries: tuple[str, ...]
) -> None:
    for typed in entries:
        night = {**NIGHT, phase: typed}
        living = play(LIVING, night)
        departed = play({**LIVING, role: 6}, night)
        assert departed.state.players[Seat(6)].role is Role(role)  # the card that has left
        assert not departed.state.players[Seat(6)].alive
        assert departed.said == living.said, typed
        assert departed.cues == living.cues, typed
        assert departed.screen == living.screen, typed
        assert departed.views == living.views, typed
        assert departed.led == living.led, typed
        night_record = departed.state.record["nights"][-1]
        if role == "doctor":
            assert night_record["heal"] is None  # nobody healed
        else:
            assert "commissar" not in night_record["checks"]  # nobody checked


def test_the_same_keys_heal_and_check_when_the_role_is_at_the_table() -> None:
    """The comparison above is not empty: the same keys heal and check when the role is there."""
    living = play(LIVING, NIGHT).state.record["nights"][-1]
    assert living["heal"] == 3 and living["checks"] == {"don": 3, "commissar": 10}
