"""The question on the screen fits the moment, in the game's language."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from voicehost import config
from voicehost.console.commandline import strip_comment
from voicehost.console.script import run_script
from voicehost.console.view import prompt_text

NIGHT0 = ["2 5 9", "wait", "4", "wait", "7", "wait"]


def prompt_after(lines: list[str], language: str = "ru", **rules: object) -> str:
    settings = dataclasses.replace(config.load(None), language=language)
    if rules:
        settings = dataclasses.replace(settings, rules=dataclasses.replace(settings.rules, **rules))
    result = run_script(lines, settings)
    assert not result.errors, result.errors
    return prompt_text(result.host)


def test_night_0_asks_for_as_many_mafia_seats_as_the_table_has() -> None:
    assert prompt_after([]) == "мафия: введите 3 номера через пробел"
    assert prompt_after([], "en").startswith("mafia: enter your 3 seats")


@pytest.mark.parametrize(
    ("lines", "ru", "en"),
    [
        (["wait"], "время вышло, всё ещё ждём: мафия", "time is up, still waiting: mafia"),
        (["2 5 9", "wait", "wait"], "время вышло, всё ещё ждём: комиссар", "time is up, still"),
        # a club speech over without a name: the nomination is owed (tests/console/
        # test_nomination_owed.py), not «время вышло»
        ([*NIGHT0, ".", "wait"], "речь игрока 1 окончена, кандидатура обязательна", "seat 1's"),
    ],
)
def test_after_a_window_or_a_speech_ran_out_the_screen_says_it_is_still_waiting(
    lines: list[str], ru: str, en: str
) -> None:
    assert prompt_after(lines).startswith(ru)
    assert prompt_after(lines, "en").startswith(en)


def test_within_the_window_the_question_is_not_late() -> None:
    assert "ждём" not in prompt_after(["2 5 9", "wait"])  # the Commissar's window is running
    assert "ждём" not in prompt_after([*NIGHT0, "."])  # seat 1 is speaking


def test_the_discussion_and_a_speech_say_what_the_dot_ends() -> None:
    assert prompt_after(NIGHT0) == "«.» — закончить обсуждение"
    assert prompt_after(NIGHT0, "en") == "`.` ends the discussion"


def test_a_long_notice_is_wrapped_not_cut_on_a_narrow_screen() -> None:
    from voicehost.console.terminal import LogScreen, screen_rows

    settings = config.load(None)
    result = run_script([], settings)
    screen = LogScreen()
    hint = "ℹ нет модели речи (ru) в /srv/models: установить — voicehost models install ru-small"
    screen.message(hint)
    rows = [text for text, _ in screen_rows(result.host, screen, "", 30, 40)]
    assert all(len(row) <= 40 for row in rows)
    shown = " ".join(row.strip() for row in rows)
    assert "voicehost models install ru-small" in shown


def test_free_seating_and_the_end_of_the_game_say_what_the_host_can_do() -> None:
    """Where nothing can be entered the prompt is never an empty «→»: it says what happens."""
    fiim = config.with_preset(config.load(None), "fiim")
    seating = run_script(["2 5 9", "wait", "5", "wait", "4", "wait"], fiim)
    assert prompt_text(seating.host) == (
        "свободная посадка: вводить нечего, утро наступит само через 20 с («p» — пауза)"
    )
    lines = (Path(__file__).resolve().parents[2] / "examples" / "town-wins.txt").read_text(
        encoding="utf-8"
    )
    over = run_script([strip_comment(line) for line in lines.splitlines()], config.load(None))
    assert over.host.over
    assert prompt_text(over.host) == (
        "игра окончена: нажмите любую клавишу — протокол запишется, программа закроется"
    )
    assert prompt_text(over.host, "plain") == "игра окончена: протокол записывается"


def test_after_tonights_check_the_question_says_nothing_more_is_to_be_entered() -> None:
    text = (Path(__file__).resolve().parents[2] / "examples" / "town-wins.txt").read_text(
        encoding="utf-8"
    )
    lines = [strip_comment(line) for line in text.split("# ---- Day 2")[0].splitlines()]
    lines = [line for line in lines if line]
    check = len(lines) - 4  # «9»: the Commissar checks 9 on night 1
    settings = config.load(None)
    assert prompt_text(run_script(lines[:check], settings).host) == (
        "комиссар: введите номер для проверки"
    )
    done = run_script(lines[: check + 1], settings).host
    assert prompt_text(done) == (
        "проверка этой ночи сделана: вводить больше нечего, ночь идёт дальше сама"
    )


def test_a_row_never_ends_between_a_seat_and_its_player_s_name() -> None:
    from voicehost.console.terminal import _wrapped

    names = ["Александра", "Валентина", "Анастасия", "Константин", "Владислав", "Ярослава"]
    line = "стол: " + " · ".join(f"{seat}{'!' * (seat % 2)} {name}" for seat, name in
                                 enumerate(names * 2, start=1))  # fmt: skip
    for width in range(20, 90):
        rows = _wrapped(line, width)
        assert all(len(row) <= width for row in rows)
        assert not any(re.search(r"(^|\s)\d+!?$", row) for row in rows), rows  # «… · 8» alone
        assert " ".join(row.strip() for row in rows) == line
    assert _wrapped("стол: 1 2 3 4 5 6 7 8 9 10 11 12 13", 20)[0] == "стол: 1 2 3 4 5 6 7"
