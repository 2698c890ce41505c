"""What the table sees on the host's screen, drawn from the one TableView (issue 23's screen
points): the counts as they are entered, the result while it can be corrected (and again after a
resume), the timer's warning and end without relying on colour, a night foul kept off the table
line until morning, the night's mask the same whatever is typed, and --plain's scrollback."""

from __future__ import annotations

import io
from pathlib import Path

from screenkit import type_all, typed

from voicehost import config
from voicehost.console.commandline import strip_comment
from voicehost.console.script import run_script
from voicehost.console.terminal import (
    CLEAR_WITH_SCROLLBACK,
    LogScreen,
    PlainUI,
    screen_rows,
)
from voicehost.console.view import status_lines
from voicehost.host.loop import Host
from voicehost.testing.clocked import wait_timer
from voicehost.testing.table import text_table

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "town-wins.txt"
LINES = [strip_comment(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]
LINES = [line for line in LINES if line]
VOTE = LINES.index("8")  # 8 votes against seat 5, the rest (2) go to seat 9


def hosted(lines: list[str], screen: LogScreen | None = None) -> tuple[Host, LogScreen]:
    screen = screen or LogScreen()
    host = text_table("ru", screen=screen)
    host.start()
    type_all(host, screen, lines)
    return host, screen


def rows(host: Host, screen: LogScreen, typed: str = "") -> list[tuple[str, str]]:
    return screen_rows(host, screen, typed, 40, 200)


def test_each_count_is_shown_as_entered_and_the_result_while_it_can_be_corrected() -> None:
    host, screen = hosted(LINES[:VOTE])
    assert "кандидаты: 5, 9" in "\n".join(status_lines(host))
    host, screen = hosted(LINES[: VOTE + 1])
    status = "\n".join(status_lines(host))
    assert "итог голосования: 5 (8), 9 (2)" in status  # the host confirms what they see
    assert "голоса подсчитаны" in status


def test_a_resume_in_the_correction_pause_shows_and_says_the_counts_again(tmp_path: Path) -> None:
    settings = config.load(None)
    journal = tmp_path / "game.jsonl"
    run_script(LINES[: VOTE + 1], settings, journal_path=journal).host.close()  # power cut
    resumed = run_script([], settings, journal_path=journal, resume=True)
    said = resumed.transcript
    assert said[0].startswith("Продолжаем")
    assert any("пять" in line and "восемь" in line for line in said[1:]), said
    assert any("девять" in line and "два" in line for line in said[1:]), said
    assert "итог голосования: 5 (8), 9 (2)" in "\n".join(status_lines(resumed.host))


def test_the_timer_shows_its_warning_and_its_end_without_colour() -> None:
    host, screen = hosted(LINES[:6] + ["."])  # night 0 done, the discussion ended: seat 1 speaks
    head, style = rows(host, screen)[0]
    assert "говорит игрок 1" in head and "⚠" not in head and style == "bold"
    assert host.timer is not None and host.timer.warn_at is not None
    host.clock.set(host.timer.warn_at)  # type: ignore[attr-defined]
    host.process_due()
    head, style = rows(host, screen)[0]
    assert "⚠" in head and style == "warning"
    wait_timer(host)
    shown = [text for text, _ in rows(host, screen)]
    assert "■ время вышло" in shown[0]
    assert any("время речи игрока 1 вышло" in line for line in shown)


def test_a_night_foul_reaches_the_table_line_in_the_morning() -> None:
    night_one = LINES[: LINES.index("3")]  # day 1 played, the mafia are awake on night 1
    host, screen = hosted(night_one + ["f 8"])
    assert host.state is not None and host.state.phase.is_night
    table = next(text for text, _ in rows(host, screen) if text.startswith("стол:"))
    assert " 8 " in table and "8✗" not in table and "8!" not in table
    host, screen = hosted(night_one + ["f 8", "3", "wait", "9", "wait", "3", "wait"])
    assert host.state is not None and not host.state.phase.is_night
    table = next(text for text, _ in rows(host, screen) if text.startswith("стол:"))
    assert "8✗!" in table  # disqualified at night: the table hears it in the morning


def test_the_night_mask_does_not_depend_on_what_is_typed() -> None:
    host, screen = hosted(LINES[:1])
    assert host.state is not None and host.state.phase.is_night
    typed = {rows(host, screen, text)[-1][0] for text in ("3", "10", "1 2 3", "f 12", "-")}
    assert typed == {"> •••"}


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_mode_clears_the_night_from_the_scrollback_at_daybreak() -> None:
    out = Terminal()
    screen = LogScreen()
    host = text_table("ru", screen=screen)
    host.start()
    ui = PlainUI(host, screen, lambda: "", out=out)
    for line in ["2 5 9", "wait", "14", "4", "wait", "7", "wait"]:
        if line == "wait":
            wait_timer(host)
        else:
            ui.lines.line(line)
        host.process_pending()
        ui._flush()
    text = out.getvalue()
    assert CLEAR_WITH_SCROLLBACK in text
    after = text.rsplit(CLEAR_WITH_SCROLLBACK, 1)[1]
    assert "•" not in after and "Ввод не принят" not in after and "введено" not in after
    assert "Город просыпается" in after and "день 1" in after  # the day goes on below


def test_yesterdays_counts_are_not_shown_beside_todays_candidates() -> None:
    """Seat 9 had 2 votes on day 1; on day 2 it is a candidate again, and until its count is
    entered the screen (and the board) shows it without one."""
    screen = LogScreen()
    host = text_table("ru", screen=screen)
    host.start()
    for _line in typed(host, screen, LINES):
        state = host.state
        assert state is not None
        if state.day == 2 and state.phase.value == "defence":
            break
    status = "\n".join(status_lines(host))
    assert "кандидаты: 2, 9" in status and "(2)" not in status, status


def test_a_finished_game_shows_no_timer() -> None:
    """A game won in the morning (the Doctor's window ran out, then 9 is killed): the header
    says the game is over, not a clock at «time up»."""
    example = EXAMPLE.with_name("mafia-wins.txt").read_text(encoding="utf-8").splitlines()
    lines = [line for line in map(strip_comment, example) if line]
    host, screen = hosted(lines)
    assert host.over
    head = status_lines(host)[0]
    assert "игра окончена" in head and "⏱" not in head and "время вышло" not in head, head
