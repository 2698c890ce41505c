"""The screen faces the table: nothing typed or refused at night may be readable by day.

Two games differ only in their nights (who the mafia, the Commissar and the Doctor are, what
the Commissar checks, a refused entry); their days are typed alike. Every line goes through the
console's own line handler (the path of `voicehost play`), and the whole screen is rendered
after each one. Every day-time screen of the two games must be identical.
"""

from __future__ import annotations

import io

import pytest
from screenkit import typed_screens

from voicehost.console.terminal import LogScreen, PlainUI
from voicehost.testing.clocked import wait_timer
from voicehost.testing.table import text_table

NIGHT0_A = ["2 5 9", "wait", "4", "wait", "7", "wait"]
# Another table: other seats, a Commissar who first types a mafia seat (refused: «already the
# mafia» would be a free check), a stray `,` and a seat that does not exist.
NIGHT0_B = ["1 3 6", "wait", "3", ",", "14", "8", "wait", "10", "wait"]
DAY1 = ["f 2", "wait", "4", ".", "wait", "6", ".", "status", "help", "zzz"]


def screens(language: str, lines: list[str]) -> list[tuple[bool, list[str]]]:
    """(night?, the whole screen) after every line, typed as at `voicehost play`."""
    return typed_screens(lines, language)


@pytest.mark.parametrize("language", ["ru", "en"])
def test_no_day_screen_shows_anything_of_the_night(language: str) -> None:
    game_a = screens(language, NIGHT0_A + DAY1)
    game_b = screens(language, NIGHT0_B + DAY1)
    days_a = [rows for night, rows in game_a if not night]
    days_b = [rows for night, rows in game_b if not night]
    assert len(days_a) == len(DAY1) + 1  # the Doctor's window ends the night
    for index, (rows_a, rows_b) in enumerate(zip(days_a, days_b, strict=True)):
        assert rows_a == rows_b, f"day screen {index} differs"
    for rows in days_a + days_b:
        text = "\n".join(rows)
        assert "•" not in text  # no night entry, not even as dots
        assert "2 5 9" not in text and "1 3 6" not in text


def test_night_entries_are_dots_and_refusals_name_no_seat() -> None:
    game = screens("ru", NIGHT0_B)
    night_text = "\n".join("\n".join(rows) for night, rows in game if night)
    assert "> •••" in night_text  # "1 3 6", "3", "14": all alike
    assert "1 3 6" not in night_text
    assert "записан как" not in night_text  # no «already written down as the mafia»
    assert "Места номер 14 нет" not in night_text
    assert "Ввод не принят" in night_text


PLAIN_NIGHT0_A = ["2 5 9", "wait", "4", "wait", "7", "wait"]
PLAIN_NIGHT0_B = ["1 3 6", "wait", "8", "wait", "10", "wait"]


def plain_output(lines: list[str]) -> str:
    """Everything `voicehost play --plain` prints for ``lines`` (no terminal: no private line)."""
    screen = LogScreen()
    host = text_table("ru", screen=screen)
    out = io.StringIO()
    ui = PlainUI(host, screen, lambda: "", out=out)
    host.start()
    for line in lines:
        if line == "wait":
            wait_timer(host)
        else:
            ui.lines.line(line)
        host.process_pending()
        ui._flush()
    return out.getvalue()


def test_plain_mode_prints_the_same_for_different_nights() -> None:
    game_a = plain_output(PLAIN_NIGHT0_A + DAY1)
    game_b = plain_output(PLAIN_NIGHT0_B + DAY1)
    assert game_a == game_b
    assert "Город просыпается" in game_a  # the morning was printed, after the night's lines
    assert "2 5 9" not in game_a and "> 4" not in game_a.split("Город просыпается")[0]
