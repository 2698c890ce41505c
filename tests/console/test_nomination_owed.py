"""A club speaker must nominate (docs/RULES.md §3, the club's text: «Не выставить на голосование
ни одну кандидатуру игрок не имеет права»). When the speech ends without a name, by «спасибо»
(`.`) or by the clock, the table hears that a candidate is still owed and the screen says the
same (not «время вышло» when the time did not run out); an undo that gives the floor back to an
earlier speaker tells the table so (issue 23)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from screenkit import type_all

from voicehost import config
from voicehost.console.script import run_script
from voicehost.console.terminal import LogScreen, screen_rows
from voicehost.host.loop import Host
from voicehost.host.table import prompt_text
from voicehost.testing.table import text_table

# night 0 of examples/town-wins.txt, then the discussion runs out: seat 1 has the floor
DAY_1 = ["2 5 9", "wait", "4", "wait", "7", "wait", "wait"]
OWED = "Игрок номер один, назовите кандидатуру: не выставить никого нельзя."


def hosted(lines: list[str], language: str = "ru", preset: str = "club") -> tuple[Host, LogScreen]:
    settings = dataclasses.replace(config.load(None), language=language)
    if preset != "club":
        settings = config.with_preset(settings, preset)
    screen = LogScreen()
    host = text_table(settings=settings, screen=screen)
    host.start()
    type_all(host, screen, lines)
    return host, screen


def shown(host: Host, screen: LogScreen) -> str:
    return "\n".join(text for text, _ in screen_rows(host, screen, "", 40, 200))


def test_thanks_before_a_name_is_heard_and_shown_as_a_candidate_owed() -> None:
    host, screen = hosted([*DAY_1, "."])
    assert host.transcript[-1] == OWED
    assert prompt_text(host) == "речь игрока 1 окончена, кандидатура обязательна: введите номер"
    screen_text = shown(host, screen)
    assert "время вышло" not in screen_text and "всё ещё ждём" not in screen_text
    assert OWED in screen_text  # the announcement is on the screen too
    host, _ = hosted([*DAY_1, ".", "5"])
    assert host.transcript[-2:] == ["Номер пять принят.", "Слово игроку номер два."]


def test_a_speech_that_runs_out_without_a_name_says_the_same() -> None:
    host, _ = hosted([*DAY_1, "wait"])
    assert host.transcript[-1] == OWED
    assert prompt_text(host).startswith("речь игрока 1 окончена, кандидатура обязательна")


def test_english_says_it_too() -> None:
    host, _ = hosted([*DAY_1, "."], language="en")
    assert host.transcript[-1] == (
        "Player number one, name a candidate: nominating nobody is not allowed."
    )
    assert prompt_text(host) == (
        "seat 1's speech is over and a nomination is required: enter a seat"
    )


def test_undoing_the_nomination_that_ended_the_wait_gives_the_floor_back_aloud() -> None:
    host, screen = hosted([*DAY_1, ".", "5"])
    assert host.transcript[-1] == "Слово игроку номер два."
    assert host.undo()
    host.process_pending()
    assert host.transcript[-2:] == ["Отмена. Слово снова у игрока номер один.", OWED]
    assert host.state is not None and host.state.current_speaker == 1
    assert "говорит игрок 2" not in shown(host, screen)
    assert prompt_text(host).startswith("речь игрока 1 окончена")


def test_an_undo_within_one_speech_says_nothing_more() -> None:
    host, _ = hosted([*DAY_1, "5", ".", "3"])  # seat 2 nominates 3 in the speech
    said = len(host.transcript)
    assert host.undo()
    assert len(host.transcript) == said  # the floor stays with seat 2: nothing to tell
    assert host.state is not None and host.state.current_speaker == 2


def test_a_resume_while_a_candidate_is_owed_says_so_again(tmp_path: Path) -> None:
    settings = config.load(None)
    journal = tmp_path / "game.jsonl"
    run_script([*DAY_1, "."], settings, journal_path=journal).host.close()  # power cut
    resumed = run_script([], settings, journal_path=journal, resume=True)
    assert resumed.transcript == ["Продолжаем игру.", OWED]


def test_fiim_a_speech_may_end_without_a_nomination() -> None:
    """MR 7.6: one nomination or none; «спасибо» passes the floor on."""
    night0 = [".", "2 5 9", "wait", "5", "wait", "4", "wait", "wait"]
    host, _ = hosted([*night0, "."], preset="fiim")
    assert host.transcript[-1] == "Слово игроку номер два."
    assert not any("назовите кандидатуру" in line for line in host.transcript)
