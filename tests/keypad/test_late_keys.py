"""Night entries land where they were meant: a key typed as a night step's window closes never
becomes the next role's action, on the keypad, at the keyboard or on the remote.

City Mafia, night 1 (examples/city-mafia-wins.txt): the «путана» is woken first, then the mafia.
An entry begun in one step never completes in the next, and an entry begun in the first moment
of a step (``NIGHT_ENTRY_GUARD``) is refused: the screen says the one neutral «Ввод не принят»,
the one awake reads why on the private channel, and nothing is taken. An entry the step takes
is confirmed privately with the step that took it («ввод принят: мафия»).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.console.screenkit import type_all
from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.commandline import strip_comment
from voicehost.console.terminal import CursesUI, LogScreen, screen_rows
from voicehost.game.inputs import EnterSeats
from voicehost.game.model import Phase
from voicehost.host.commands import Source
from voicehost.host.loop import NIGHT_ENTRY_GUARD, Host
from voicehost.keypad.controller import KeypadController
from voicehost.phrases import PhraseBook
from voicehost.ports import Key
from voicehost.testing.table import text_table
from voicehost.web.face import WebFace

EXAMPLE = Path(__file__).parents[2] / "examples" / "city-mafia-wins.txt"
_TEXT = EXAMPLE.read_text(encoding="utf-8").split("# ---- Night 1")[0]
TO_NIGHT_1 = [
    line for line in map(strip_comment, _TEXT.splitlines()) if line and "preset" not in line
]
SETTINGS = config.with_preset(config.load(None), "city")
BOOK = PhraseBook.load("ru")
DIGITS = {str(n): getattr(Key, f"D{n}") for n in range(10)}
STALE = BOOK.screen("private_refused_stale")
EARLY = BOOK.screen("private_refused_early")


def city_night_1() -> tuple[Host, FakeClock, LogScreen]:
    """A 10-player city game at the «путана»'s step of night 1."""
    screen = LogScreen()
    clock = FakeClock()
    host = text_table(settings=SETTINGS, clock=clock, screen=screen)
    host.start()
    type_all(host, screen, TO_NIGHT_1)
    assert host.state is not None and host.state.phase is Phase.NIGHT_PUTANA
    return host, clock, screen


def advance_to(host: Host, clock: FakeClock, when: float) -> None:
    """Let time pass, firing each timer event at its own moment."""
    while (deadline := host.next_deadline()) is not None and deadline <= when:
        clock.set(deadline)
        host.process_due()
    clock.set(max(when, clock.now()))


def night_entries(host: Host) -> list[tuple[Phase, tuple[int, ...]]]:
    """The seats taken tonight from a person, with the step that took each."""
    return [
        (item.phase_before, tuple(int(seat) for seat in item.event.seats))
        for item in host.accepted
        if isinstance(item.event, EnterSeats)
        and item.source is not Source.TIMER
        and item.phase_before.is_night
        and host.state is not None
        and item.before is not None
        and item.before.night == host.state.night
    ]


def test_a_putana_seat_keyed_as_her_window_closes_is_not_the_mafias_shot() -> None:
    host, clock, screen = city_night_1()
    keypad = KeypadController(host, host.cues, clock)
    assert host.timer is not None
    closes = host.timer.ends_at

    def key(at: float, pressed: Key) -> None:
        advance_to(host, clock, closes + at)
        keypad.on_key(pressed)
        host.process_pending()

    key(-0.1, Key.D6)  # the «путана» visits 6: the digit as her window closes...
    key(0.2, Key.ENTER)  # ...its Enter in the mafia's step
    assert host.state is not None and host.state.phase is Phase.NIGHT_MAFIA
    assert night_entries(host) == []
    assert screen.current_private() == STALE
    key(0.4, Key.D6)  # a whole entry in the mafia's first moment: maybe hers, typed late
    key(0.6, Key.ENTER)
    assert night_entries(host) == []
    assert screen.current_private() == EARLY
    assert screen.lines[-1] == "✗ Ввод не принят."  # the table reads no reason
    assert night_entries(host) == []
    key(3.0, Key.D4)  # the mafia's own shot
    key(3.2, Key.ENTER)
    assert night_entries(host) == [(Phase.NIGHT_MAFIA, (4,))]
    assert screen.current_private() == "ввод принят: мафия"


def test_a_line_typed_as_the_window_closes_is_not_the_mafias_shot() -> None:
    host, clock, screen = city_night_1()
    keyboard = CursesUI(host, screen, lambda: "")
    assert host.timer is not None
    closes = host.timer.ends_at
    advance_to(host, clock, closes - 0.2)
    keyboard.typed("6")  # the «путана»'s seat, its Enter a moment too late
    advance_to(host, clock, closes + 0.1)
    keyboard.draw()  # the loop's turn: the change of step drops the line
    rows = screen_rows(host, screen, keyboard.buffer, 40, 200)
    keyboard.typed("\n")
    assert host.state is not None and host.state.phase is Phase.NIGHT_MAFIA
    assert night_entries(host) == []
    assert rows[-1] == ("> ", "")  # the line being typed left the screen at the change
    assert screen.current_private() == STALE
    advance_to(host, clock, closes + 0.5)
    keyboard.typed("6\n")  # a whole line in the mafia's first moment
    assert screen.current_private() == EARLY
    assert night_entries(host) == []
    advance_to(host, clock, closes + NIGHT_ENTRY_GUARD + 1)
    keyboard.typed("4\n")
    assert night_entries(host) == [(Phase.NIGHT_MAFIA, (4,))]
    assert screen.current_private() == "ввод принят: мафия"
    assert host.timer is not None
    closes = host.timer.ends_at
    advance_to(host, clock, closes - 0.2)
    keyboard.typed("1")  # «1» as the mafia's window closes, «0» and Enter a moment into the Don's
    advance_to(host, clock, closes + 0.3)
    keyboard.draw()
    keyboard.typed("0\n")
    assert host.state.phase is Phase.NIGHT_DON
    assert night_entries(host) == [(Phase.NIGHT_MAFIA, (4,))]
    assert screen.current_private() == STALE


class Phone:
    """A paired remote: the answers to its own inputs."""

    def __init__(self) -> None:
        self.answers: list[dict[str, object]] = []

    def publish(self, board: str, remote: str) -> None:
        """The frames: not what this test reads."""

    def answer(self, connection: int, frame: str) -> None:
        self.answers.append(json.loads(frame))

    def private(self, frame: str) -> None:
        """Private frames: not what this test reads."""


def test_a_tap_in_the_first_moment_of_a_step_is_refused_on_the_phone() -> None:
    host, clock, _ = city_night_1()
    phone = Phone()
    face = WebFace(host, lambda: "", phone)
    assert host.timer is not None
    closes = host.timer.ends_at
    advance_to(host, clock, closes + 0.3)
    face.tick()  # the phone has the mafia's question under the host's finger

    def tap(ident: str, seat: int) -> dict[str, object]:
        message = {"id": ident, "token": face.token(), "action": "seats", "seats": [seat]}
        face.remote_input(1, message)
        return phone.answers[-1]

    refused = tap("late", 6)
    assert refused["ok"] is False and refused["message"] == "Ввод не принят."  # no reason
    assert night_entries(host) == []
    advance_to(host, clock, closes + 3)
    answer = tap("shot", 4)
    assert answer["ok"] is True and answer["message"] == "ввод принят: мафия"
    assert night_entries(host) == [(Phase.NIGHT_MAFIA, (4,))]


def step_changes(host: Host, clock: FakeClock) -> list[float]:
    """When each step of the night after this moment begins (the windows are fixed)."""
    changes = []
    assert host.state is not None
    phase = host.state.phase
    while host.state.phase.is_night:
        deadline = host.next_deadline()
        assert deadline is not None
        clock.set(deadline)
        host.process_due()
        if host.state.phase is not phase:
            phase = host.state.phase
            changes.append(clock.now())
    return changes


_host, _clock, _ = city_night_1()
_start = _clock.now()
BOUNDARIES = [at - _start for at in step_changes(_host, _clock)][:-1]  # the last is the morning

#: An entry: near which change of step it begins, how long before or after it, the gaps before
#: its digits (a pause longer than the step's first moment too) and before its Enter, its seat.
ENTRY = st.tuples(
    st.integers(0, len(BOUNDARIES) - 1),
    st.floats(-3.0, 3.0),
    st.lists(st.floats(0.0, 2.5), min_size=1, max_size=2),
    st.floats(0.0, 2.5),
    st.sampled_from("12345679"),
)


def key_moments(
    entries: list[tuple[int, float, list[float], float, str]], start: float
) -> list[tuple[float, str]]:
    """Every key of the entries, in the order they are pressed («\n»: Enter)."""
    moments: list[tuple[float, str]] = []
    for boundary, offset, gaps, enter_gap, seat in entries:
        at = start + BOUNDARIES[boundary] + offset
        for gap in gaps:  # «1» or «11»: a seat
            at += gap
            moments.append((at, seat))
        moments.append((at + enter_gap, "\n"))
    return sorted(moments, key=lambda moment: moment[0])


@pytest.mark.parametrize("device", ["keypad", "keyboard"])
@settings(max_examples=40, deadline=None)
@given(entries=st.lists(ENTRY, min_size=1, max_size=6))
def test_no_entry_lands_in_a_step_other_than_the_one_it_was_begun_in(
    device: str, entries: list[tuple[int, float, list[float], float, str]]
) -> None:
    """Whatever the timing of the keys around the changes of step, an entry taken is one whose
    keys since the Enter before it all fell in the step that took it, past its first moment."""
    host, clock, screen = city_night_1()
    keypad = KeypadController(host, host.cues, clock)
    keyboard = CursesUI(host, screen, lambda: "")
    start = clock.now()
    begins = [0.0, *BOUNDARIES]

    def step_at(moment: float) -> int:
        return sum(begin <= moment - start for begin in BOUNDARIES)

    since_enter: list[float] = []  # the moments of the keys since the last Enter
    for at, char in key_moments(entries, start):
        advance_to(host, clock, at)
        since_enter.append(clock.now())
        taken = len(host.accepted)
        if device == "keypad":
            keypad.on_key(Key.ENTER if char == "\n" else DIGITS[char])
        else:
            keyboard.draw()  # the loop's turn after the clock's
            keyboard.typed(char)
        host.process_pending()
        for item in host.accepted[taken:]:
            if isinstance(item.event, EnterSeats) and item.source is not Source.TIMER:
                step = step_at(clock.now())
                assert {step_at(moment) for moment in since_enter} == {step}, "another step's key"
                assert since_enter[0] - start - begins[step] >= NIGHT_ENTRY_GUARD
        if char == "\n":
            since_enter = []


def test_the_night_step_shows_its_time_on_the_hosts_screen_and_remote_only() -> None:
    entered, clock, screen = city_night_1()
    other, other_clock, other_screen = city_night_1()
    phones = []
    for host, at in ((entered, clock), (other, other_clock)):
        assert host.timer is not None
        advance_to(host, at, host.timer.starts_at + 5)
        phones.append(WebFace(host, lambda: ""))
    CursesUI(entered, screen, lambda: "").typed("6\n")  # one night has an entry, one has not
    question = [row for row, _ in screen_rows(entered, screen, "", 40, 200) if row.startswith("→")]
    assert question == ["→ путана: введите номер клиента · ⏱ 0:10"]
    assert str(phones[0].question()["text"]).endswith("клиента · 0:10")  # the remote too
    board = [json.loads(face.frames()[0]) for face in phones]
    assert board[0] == board[1] and "timer" not in board[0]["table"]  # the board: no clock
    rows = [
        [row for row, _ in screen_rows(host, shown, "", 40, 200)[:3]]
        for host, shown in ((entered, screen), (other, other_screen))
    ]
    assert rows[0] == rows[1]  # the status and the clock, whatever was entered


def test_a_game_resumed_mid_window_does_not_ask_again_for_what_the_journal_holds(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "game.jsonl"
    screen = LogScreen()
    clock = FakeClock()
    host = text_table(settings=SETTINGS, clock=clock, screen=screen)
    host.journal_path = journal
    host.start()
    type_all(host, screen, TO_NIGHT_1)
    advance_to(host, clock, clock.now() + 5)
    CursesUI(host, screen, lambda: "").typed("6\n")  # the «путана» visits 6; the power goes
    host.close()
    again_screen = LogScreen()
    again = text_table(settings=SETTINGS, screen=again_screen)
    again.journal_path = journal
    again.resume()
    assert again.transcript[:2] == ["Продолжаем игру.", "Просыпается путана!"]  # as ever
    question = next(row for row, _ in screen_rows(again, again_screen, "", 40, 200) if "→" in row)
    assert "ввод этого хода уже в журнале: повторять не нужно" in question
    assert again_screen.current_private() == "ввод принят: путана"
    state = again.state
    assert state is not None and state.night_actions.blocks
    again.close()


def test_the_same_entry_is_taken_in_english_with_the_step_named() -> None:
    settings = dataclasses.replace(SETTINGS, language="en")
    screen = LogScreen()
    host = text_table(settings=settings, screen=screen)
    host.start()
    type_all(host, screen, ["2 5 9"])
    assert screen.current_private() == "entry accepted: mafia"
