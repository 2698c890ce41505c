"""The FIIM table's screen (docs/RULES-FIIM.md §13), read as a player reads it.

Two games differ only in their nights (the black team, the Don, the Sheriff, what each checks)
and are typed alike by day: every day screen must be the same, with no night entry, not even as
dots. The screen names FIIM's phases in FIIM's words and says when a speech is lost.
"""

from __future__ import annotations

import pytest
from screenkit import typed_screens

from voicehost import config

NIGHT0_A = ["2 5 9", "wait", "5", "wait", "4", "wait", "wait"]
NIGHT0_B = ["1 6 8", "wait", "8", "wait", "10", "wait", "wait"]
# day 1: seat 9 collects three fouls, so its speech is lost; 6 and 7 tie twice; nobody is lifted
DAY1 = ["f 9", "6", ".", ".", "7", "f 9", "f 9", *["."] * 6, "wait", "."]
VOTES = ["5", ".", ".", ".", "5", ".", "4", "."]
NIGHT1_A = ["3", "3", "3", "wait", "4", "wait", "9", "wait"]
NIGHT1_B = ["3", "3", "3", "wait", "7", "wait", "2", "wait"]
MORNING = ["status", "2 5 9", "."]


def screens(lines: list[str], language: str = "ru") -> list[tuple[bool, list[str]]]:
    """(night?, the whole screen) after every line, typed through the console's handler."""
    return typed_screens(lines, settings=_fiim(language))


def _fiim(language: str) -> config.Settings:
    import dataclasses

    return config.with_preset(dataclasses.replace(config.load(None), language=language), "fiim")


@pytest.mark.parametrize("language", ["ru", "en"])
def test_no_fiim_day_screen_shows_anything_of_the_night(language: str) -> None:
    game_a = screens(NIGHT0_A + DAY1 + VOTES + NIGHT1_A + MORNING, language)
    game_b = screens(NIGHT0_B + DAY1 + VOTES + NIGHT1_B + MORNING, language)
    days_a = [rows for night, rows in game_a if not night]
    days_b = [rows for night, rows in game_b if not night]
    assert len(days_a) == len(DAY1 + VOTES + MORNING) + 1  # the Sheriff's window ends night 1
    for index, (rows_a, rows_b) in enumerate(zip(days_a, days_b, strict=True)):
        assert rows_a == rows_b, f"day screen {index} differs"
    for rows in days_a:
        text = "\n".join(rows)
        assert "•" not in text and "1 6 8" not in text and "2 5 9 " not in text


def test_the_screen_speaks_fiim() -> None:
    shown = screens(NIGHT0_A[:1] + NIGHT0_A[1:] + DAY1 + VOTES[:6])
    heads = [rows[0] for _, rows in shown]
    assert heads[0].startswith("ночь 0 · ночь договорки: мафия")
    assert any("игрок 9 пропускает речь (выставить можно жестом)" in h for h in heads)
    assert not any("говорит игрок 9" in h for h in heads)
    assert any("повторная речь · говорит игрок 6" in h for h in heads)
    last = shown[-1][1]
    assert last[0].startswith("день 1 · поднять всех?")
    assert "→ поднять всех: сколько за то, чтобы все кандидаты покинули стол? (0–10)" in last


def test_a_team_loss_asked_at_night_says_how_to_confirm_and_names_no_seat() -> None:
    """MR 10.21 to 10.24 at night: the typed line is masked, so the reply names no seat; it says
    how to confirm, and the confirmed entry ends the game."""
    night1 = NIGHT0_A + DAY1 + VOTES
    asked = screens([*night1, "teamloss 7"])
    night, rows = asked[-1]
    text = "\n".join(rows)
    assert night and "> •••" in text and "teamloss 7" not in text
    assert "введите то же ещё раз с «да» в конце" in text and " 7 " not in rows[-1]
    ended = screens([*night1, "teamloss 7", "teamloss 7 да"])
    said = "По решению судьи команда игрока номер семь получает поражение."
    assert said in "\n".join(ended[-1][1])


def test_the_vote_after_a_speech_that_ran_out_does_not_say_time_is_up() -> None:
    """Seat 10's speech runs out and the vote begins: the header is the vote's, with no «время
    вышло» left over from the speech; the log's line says whose time ran out."""
    night, rows = screens([*NIGHT0_A, "5", ".", "9", ".", *["."] * 7, "wait"])[-1]
    assert not night and rows[0].startswith("день 1 · голосование"), rows[0]
    assert "■" not in rows[0] and "время вышло" not in rows[0]
    assert any("время речи игрока 10 вышло" in row for row in rows)
