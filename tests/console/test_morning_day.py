"""The morning belongs to the next day (issue 23): after night N the screen says «день N+1», a
foul in the night victim's minute is the next day's in the protocol, and a resume in that minute
says the same; club and FIIM alike."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from screenkit import typed_screens

from voicehost import config
from voicehost.console.script import run_script
from voicehost.console.view import status_lines
from voicehost.host import protocol
from voicehost.phrases import PhraseBook

# The club: town-wins' night 0 and day 1 (seat 5 voted out), then night 1: the mafia shoot 3,
# the Commissar checks 9, the Doctor heals 7: seat 3 is killed and speaks in the morning.
CLUB_DAY_1 = [
    "2 5 9", "wait", "4", "wait", "7", "wait", "wait",
    "5", ".", "5 9", ".", "5", ".", "9", ".", "1", ".", "5", ".", "5", ".", "9", ".", "5",
    "wait", "5", ".", "wait", "wait", "8", ".", "wait",
]  # fmt: skip
CLUB_NIGHT_1 = ["3", "wait", "9", "wait", "7", "wait"]
# FIIM (as tests/console/test_fiim_screen.py): every black player shoots 3 on night 1; seat 3's
# minute opens with the best move.
FIIM_DAY_1 = [
    "2 5 9", "wait", "5", "wait", "4", "wait", "wait",
    "f 9", "6", ".", ".", "7", "f 9", "f 9", *["."] * 6, "wait", ".",
    "5", ".", ".", ".", "5", ".", "4", ".",
]  # fmt: skip
FIIM_NIGHT_1 = ["3", "3", "3", "wait", "4", "wait", "9", "wait"]


def _fiim(language: str = "ru") -> config.Settings:
    settings = dataclasses.replace(config.load(None), language=language)
    return config.with_preset(settings, "fiim")


def _club(language: str = "ru") -> config.Settings:
    return dataclasses.replace(config.load(None), language=language)


@pytest.mark.parametrize(
    ("preset", "language", "head"),
    [
        ("club", "ru", "день 2 · последнее слово · говорит игрок 3"),
        ("club", "en", "day 2 · last words · speaking: seat 3"),
        ("fiim", "ru", "день 2 · последнее слово · говорит игрок 3"),
        ("fiim", "en", "day 2 · last words · speaking: seat 3"),
    ],
)
def test_the_morning_after_night_1_is_day_2_on_the_screen(
    preset: str, language: str, head: str
) -> None:
    club = preset == "club"
    settings = _club(language) if club else _fiim(language)
    day, night = (CLUB_DAY_1, CLUB_NIGHT_1) if club else (FIIM_DAY_1, FIIM_NIGHT_1)
    shown = typed_screens(day + night, settings=settings)
    evening = shown[len(day) - 2][1][0]  # the day's last screen before night falls
    assert evening.startswith("день 1" if language == "ru" else "day 1"), evening
    morning = shown[-1][1][0]
    assert morning.startswith(head), morning


@pytest.mark.parametrize("preset", ["club", "fiim"])
def test_a_foul_in_the_victims_minute_is_the_next_days_in_the_protocol(preset: str) -> None:
    club = preset == "club"
    settings = _club() if club else _fiim()
    day, night = (CLUB_DAY_1, CLUB_NIGHT_1) if club else (FIIM_DAY_1, FIIM_NIGHT_1)
    played = run_script([*day, *night, "f 8"], settings)
    assert played.errors == []
    record = protocol.build(played.host.state)  # type: ignore[arg-type]
    foul = record["fouls"][-1]
    assert (foul["seat"], foul["day"], foul["night"], foul["phase"]) == (8, 2, 1, "last_words")
    assert json.loads(protocol.to_json(record))["fouls"][-1]["day"] == 2
    table = protocol.to_table(record, PhraseBook.load("ru"))
    assert "игрок 8: фол 1 (день 2)" in table
    english = protocol.to_table(record, PhraseBook.load("en"))
    assert "seat 8: foul 1 (day 2)" in english


@pytest.mark.parametrize("preset", ["club", "fiim"])
def test_a_resume_in_the_victims_minute_is_day_2(preset: str, tmp_path: Path) -> None:
    club = preset == "club"
    settings = _club() if club else _fiim()
    day, night = (CLUB_DAY_1, CLUB_NIGHT_1) if club else (FIIM_DAY_1, FIIM_NIGHT_1)
    journal = tmp_path / "game.jsonl"
    run_script([*day, *night], settings, journal_path=journal).host.close()  # power cut
    resumed = run_script(["f 8"], settings, journal_path=journal, resume=True)
    assert resumed.errors == []
    assert status_lines(resumed.host)[0].startswith("день 2 · последнее слово · говорит игрок 3")
    record = protocol.build(resumed.host.state)  # type: ignore[arg-type]
    assert record["fouls"][-1]["day"] == 2


def test_yesterdays_counts_are_not_shown_beside_todays_candidates() -> None:
    """Day 1: 5 gets 8 votes and 9 gets 2; on day 2 9 is a candidate again: the screen shows
    no count for 9 before today's vote (it once showed «9 (2)» during the defence)."""
    day_2 = [".", *[x for _ in range(6) for x in ("9", ".")], "4", ".", "9", "."]
    shown = typed_screens([*CLUB_DAY_1, *CLUB_NIGHT_1, ".", *day_2], settings=_club())
    defence = [rows for _, rows in shown if rows[0].startswith("день 2 · оправдательное слово")]
    assert defence
    for rows in defence:
        line = next(row for row in rows if row.startswith("кандидаты:"))
        assert "(" not in line, line
