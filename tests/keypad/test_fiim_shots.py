"""FIIM's night shot on the keypad (MR 8.4): the black players shoot one after another on one
question, in seat order, as the protocol credits the shots. The question names whose shot it is
and its place («выстрел 1 из 3»), and what the table can see or hear of the night (the spoken
words, every cue and its moment, the keypad LED, the screen the mafia read) is the same whoever
shoots whom, a seat of one digit or two, or a miss."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tests.console.screenkit import type_all
from tests.keypad.recorder import TableRecorder
from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.terminal import LogScreen, screen_rows
from voicehost.host.loop import NIGHT_ENTRY_GUARD, Host
from voicehost.keypad.controller import KeypadController
from voicehost.ports import Key
from voicehost.testing.clocked import wait_timer
from voicehost.testing.table import text_table

# black 2, 5 (the Don), 9; the Sheriff 4. Day 1: seat 1 nominates 7 alone: no vote (MR 7.16).
NIGHT0 = ["2 5 9", "wait", "5", "wait", "4", "wait", "wait"]
DAY1 = ["7", ".", *["."] * 9]
DIGIT_KEYS = {str(n): getattr(Key, f"D{n}") for n in range(10)}
SHOT_GAP = 2.0  # seconds between two shots; the digits come just before the Enter


def night_of(shots: list[str], language: str = "ru") -> dict[str, Any]:
    """A FIIM game to night 1, whose black players enter ``shots`` on the keypad (a seat, or
    ``-`` for a miss); returns what was heard and seen from nightfall to the morning."""
    settings = config.with_preset(dataclasses.replace(config.load(None), language=language), "fiim")
    clock = FakeClock()
    heard = TableRecorder(clock, settings)
    screen = LogScreen()
    heard.screen = screen
    host = text_table(
        settings=settings, clock=clock, screen=screen, speaker=heard, cues=heard, private=heard
    )
    host.start()
    type_all(host, screen, NIGHT0 + DAY1)
    while not (host.state is not None and host.state.phase.is_night):
        wait_timer(host)  # the count's pause, the last words
    keypad = KeypadController(host, heard, clock)
    dusk = len(heard.log)
    start = clock.now()
    seen = [rows(host, screen)]
    for turn, shot in enumerate(shots):
        at = start + NIGHT_ENTRY_GUARD + SHOT_GAP * (turn + 1)  # after the step's first moment
        if shot == "-":
            clock.set(at)
            host.process_due()
            keypad.on_key(Key.MISS)
        else:
            for index, digit in enumerate(shot):  # 1 digit or 2, the last 0.3 s before Enter
                clock.set(at - 0.3 * (len(shot) - index))
                host.process_due()
                keypad.on_key(DIGIT_KEYS[digit])
            clock.set(at)
            host.process_due()
            keypad.on_key(Key.ENTER)
        host.process_pending()
        seen.append(rows(host, screen))
    while host.state is not None and host.state.phase.is_night:
        wait_timer(host)
        if host.state.phase.is_night:
            seen.append(rows(host, screen))
    asleep = "say:" + host.book.render("fiim.sheriff_sleeps", {}).text  # the night's last words
    morning = next(i for i, (_, what) in enumerate(heard.log) if i >= dusk and what == asleep) + 1
    assert host.state is not None
    return {
        "heard": [(round(at - start, 3), what) for at, what in heard.log[dusk:morning]],
        "seen": seen,
        "shots": host.state.record["nights"][-1].get("shots"),
    }


def shot(typed: str) -> int | None:
    return None if typed == "-" else int(typed)


def rows(host: Host, screen: LogScreen) -> list[str]:
    return [text for text, _ in screen_rows(host, screen, "", 40, 200)]


def test_the_question_names_whose_shot_it_is_and_its_place() -> None:
    night = night_of(["3", "3", "3"])
    prompts = [next(r for r in screen if r.startswith("→")) for screen in night["seen"]]
    prompts = [prompt.split(" · ⏱")[0] for prompt in prompts]  # the window's clock aside
    assert prompts[:4] == [
        "→ мафия: стреляет игрок 2 (выстрел 1 из 3) — номер цели или «промах»",
        "→ мафия: стреляет игрок 5 (выстрел 2 из 3) — номер цели или «промах»",
        "→ мафия: стреляет игрок 9 (выстрел 3 из 3) — номер цели или «промах»",
        "→ мафия: все выстрелы приняты (3 из 3); ночь идёт дальше сама",
    ]
    assert night["shots"] == {"2": 3, "5": 3, "9": 3}  # credited as the question named them


@pytest.mark.parametrize(
    "shots", [["10", "10", "10"], ["3", "-", "8"], ["-", "-", "-"], ["1", "10", "6"]]
)
def test_the_night_is_heard_and_seen_alike_whoever_shoots_whom(shots: list[str]) -> None:
    agreed = night_of(["3", "3", "3"])
    other = night_of(shots)
    assert other["heard"] == agreed["heard"]  # words, cues and their moments, the LED
    assert other["seen"] == agreed["seen"]  # the screen the black players read, masks and all
    assert other["shots"] == {"2": shot(shots[0]), "5": shot(shots[1]), "9": shot(shots[2])}
    assert any(what.startswith("led:") for _, what in agreed["heard"])
    assert sum(what == "cue:key_ack" for _, what in agreed["heard"]) >= 3


def test_in_english_the_question_says_the_same() -> None:
    night = night_of(["3", "3", "3"], "en")
    prompt = next(r for r in night["seen"][1] if r.startswith("→"))
    assert prompt.split(" · ⏱")[0] == (
        "→ mafia: seat 5 shoots (shot 2 of 3): enter the target's seat, or `miss`"
    )
