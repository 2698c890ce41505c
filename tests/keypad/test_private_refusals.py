"""A night entry refused for a reason the one awake may know: the Commissar's second check, the
Doctor's patient of last night. The role is told why on its private channel (the keypad's LED,
the private line); what the table sees and hears (the screen but for that line, the voice, every
cue and its moment, the logs) is the same as for any other refused entry, a mistyped seat."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from tests.console.screenkit import type_all
from tests.keypad.recorder import TableRecorder
from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.commandline import strip_comment
from voicehost.console.terminal import LineHandler, LogScreen, screen_rows
from voicehost.game.effects import Private, PrivateKind
from voicehost.host.loop import Host
from voicehost.keypad.controller import KeypadController
from voicehost.phrases import PhraseBook
from voicehost.ports import Key
from voicehost.testing.clocked import wait_timer
from voicehost.testing.table import text_table

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "town-wins.txt"
_TEXT = EXAMPLE.read_text(encoding="utf-8").split("# ---- Night 2")[0]
TO_NIGHT_2 = [line for line in map(strip_comment, _TEXT.splitlines()) if line]
# Night 2: the mafia (2) shoot 1; the Commissar (4) checks 2; the Doctor (7) healed 3 last night.
DIGITS = {str(n): getattr(Key, f"D{n}") for n in range(10)}


def night_2(steps: list[list[str]], caplog: pytest.LogCaptureFixture) -> dict[str, Any]:
    """The town-wins game to night 2, whose steps (mafia, Commissar, Doctor) are entered on the
    keypad: ``steps[i]`` the entries of step i, one every 2 s from the step's start."""
    settings = config.load(None)
    clock = FakeClock()
    screen = LogScreen()
    channels = TableRecorder(clock, settings, screen)
    host = text_table(
        settings=settings, clock=clock, screen=screen,
        speaker=channels, cues=channels, private=channels,
    )  # fmt: skip
    host.start()
    type_all(host, screen, TO_NIGHT_2)
    assert host.state is not None and host.state.phase.is_night and host.state.night == 2
    keypad = KeypadController(host, channels, clock)
    heard, told = len(channels.heard), len(channels.told)
    dusk = clock.now()
    shared: list[list[str]] = []
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="voicehost"):
        for entries in steps:
            start = clock.now()
            for index, typed in enumerate(entries):
                clock.set(start + 2.0 * (index + 1) - 0.3)  # after the step's first moment
                host.process_due()
                for digit in typed:
                    keypad.on_key(DIGITS[digit])  # at night a digit makes no sound
                clock.set(start + 2.0 * (index + 1))
                host.process_due()
                keypad.on_key(Key.ENTER)
                host.process_pending()
                rows = [text for text, _ in screen_rows(host, screen, "", 40, 200)]
                shared.append(rows[:3] + rows[4:])  # all but the private line (row 3)
            wait_timer(host)
    return {
        "heard": [(round(at - dusk, 3), what) for at, what in channels.heard[heard:]],
        "shared": shared,
        "logs": [record.getMessage() for record in caplog.records],
        "told": [(round(at - dusk, 3), words, led) for at, words, led in channels.told[told:]],
        "state": host.state,
    }


def test_the_reasons_are_told_privately_and_the_table_perceives_any_refusal_alike(
    caplog: pytest.LogCaptureFixture,
) -> None:
    reasons = night_2([["1"], ["2", "6"], ["3", "1"]], caplog)  # a second check; last patient
    typos = night_2([["1"], ["2", "14"], ["15", "1"]], caplog)  # seats that do not exist
    assert reasons["heard"] == typos["heard"]  # the voice, the cues and their moments
    assert reasons["shared"] == typos["shared"]  # the screen, «Ввод не принят» and all
    assert reasons["logs"] == typos["logs"]
    assert any("✗ Ввод не принят." in row for rows in reasons["shared"] for row in rows)
    assert sum(what == "cue:reject" for _, what in reasons["heard"]) == 2
    book = PhraseBook.load("ru")
    said = [words for _, words, _ in reasons["told"]]
    assert book.screen("private_refused_checked") in said  # «…ВВОДИТЬ БОЛЬШЕ НЕЧЕГО»
    assert book.screen("private_refused_same_patient") in said
    assert [w for _, w, _ in typos["told"]].count(book.screen("private_refused_no_seat")) == 2
    leds = {words: led for _, words, led in reasons["told"]}
    blinks = {words: sum(step.lit for step in led) for words, led in leds.items()}
    assert blinks[book.screen("private_refused_checked")] == 5  # nothing more tonight
    assert blinks[book.screen("private_refused_same_patient")] == 3  # choose another seat
    nights = (game["state"].record["nights"][-1] for game in (reasons, typos))
    assert [(night["check"], night["heal"]) for night in nights] == [(2, 1), (2, 1)]


def told_at_night_0(typed: str) -> tuple[list[str], list[Private]]:
    """Night 0 (mafia 2 5 9, then the Commissar): the screen's lines and the private channel."""
    told: list[Private] = []
    screen = LogScreen()
    channels = TableRecorder(FakeClock(), config.load(None), screen)
    channels.show = told.append  # type: ignore[method-assign]
    host = Host(
        config.load(None),
        PhraseBook.load("ru"),
        channels.clock,
        speaker=channels,
        cues=channels,
        private=channels,
        screen=screen,
    )
    host.start()
    handler = LineHandler(host, screen, lambda: "")
    handler.line("2 5 9")
    wait_timer(host)
    handler.line(typed)
    return screen.lines, told


def test_a_seat_registered_already_is_told_privately_in_words_that_name_no_card() -> None:
    """Night 0: the Commissar enters a seat the mafia registered. The table sees «Ввод не
    принят»; the one who typed learns why, in the words a seat of any card would get (the
    refusal itself already says the seat holds one): no role, no seat."""
    lines, told = told_at_night_0("5")  # a mafia seat, as the Commissar's own
    assert lines[-1] == "✗ Ввод не принят."
    refused = [m for m in told if m.kind is PrivateKind.REFUSED]
    assert [(m.answer, m.again) for m in refused] == [("private_refused_role_taken", True)]
    words = PhraseBook.load("ru").screen(refused[0].answer)
    assert words == "Этот номер уже записан за другой ролью: введите свой номер"
    assert "маф" not in words.casefold() and "5" not in words


def test_a_second_check_typed_at_once_never_cuts_the_answer_short() -> None:
    """The private line keeps the Commissar's answer beside the refusal's reason."""
    screen = LogScreen()
    host = text_table("ru", screen=screen)
    host.start()
    handler = LineHandler(host, screen, lambda: "")
    day_1 = _TEXT.split("# ---- Night 1")[0]
    lines = [line for line in map(strip_comment, day_1.splitlines()) if line]
    for line in [*lines, "3", "wait", "9", "6"]:  # the shot; the Commissar checks 9, then 6
        if line == "wait":
            wait_timer(host)
        else:
            handler.line(line)
        host.process_pending()
    assert screen.current_private() == (
        "КОМИССАР: МАФИЯ     · Проверка этой ночи уже сделана: вводить больше нечего"
    )


def test_a_line_that_is_no_command_at_night_is_explained_privately_not_on_the_table() -> None:
    """The Commissar types «пять» for 5: the table's screen says only «Ввод не принят» (what was
    typed stays hidden), and the private line says to type the seat in digits."""
    told: list[Private] = []
    screen = LogScreen()
    channels = TableRecorder(FakeClock(), config.load(None), screen)
    channels.show = told.append  # type: ignore[method-assign]
    book = PhraseBook.load("ru")
    host = Host(
        config.load(None), book, channels.clock,
        speaker=channels, cues=channels, private=channels, screen=screen,
    )  # fmt: skip
    host.start()
    handler = LineHandler(host, screen, lambda: "")
    handler.line("2 5 9")
    wait_timer(host)
    handler.line("пять")
    assert screen.lines[-1] == "✗ Ввод не принят." and "пять" not in "\n".join(screen.lines)
    assert told[-1].kind is PrivateKind.REFUSED
    assert book.screen(told[-1].answer).startswith("Ввод не понят: нужны номера мест цифрами")
