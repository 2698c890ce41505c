"""Rule sets as data: every preset reads cleanly, and a club's file with mistakes has each one
named with its line (`voicehost rules check`)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from gamekit import REPO

from voicehost.cli.rules import run
from voicehost.phrases import PhraseBook
from voicehost.rulesets import RuleSetError, load_preset, parse, preset_names

BROKEN = """\
name: mine
players: [8, 30]
black: rules.mafia_count
cards: open
roles:
  civilian: {team: red}
  mafia: {team: black, action: kill}
  wizard: {team: red}
night0:
  opening: night0.start
  steps:
    - {role: mafia, wake: night.mafia_wakes, sleep: night.mafia_sleeps, window: night.nope}
  morning: morning.nope
night:
  opening: night.start
  call_departed: maybe
  agreement: one_entry
  morning: [kills]
  record: shot_check_heal
"""


@pytest.mark.parametrize("name", preset_names())
def test_every_preset_reads_and_names_only_known_phrases(name: str) -> None:
    text = (REPO / "voicehost" / "game" / "presets" / f"{name}.yaml").read_text(encoding="utf-8")
    for language in ("ru", "en"):
        known = set(PhraseBook.load(language).keys())
        assert parse(text, name, known.__contains__) == load_preset(name)


def test_a_club_file_has_every_mistake_named_with_its_line() -> None:
    known = set(PhraseBook.load("ru").keys())
    with pytest.raises(RuleSetError) as caught:
        parse(BROKEN, "mine.yaml", known.__contains__)
    found = {(line, message.split(" ")[0]) for line, message in caught.value.problems}
    assert {
        (2, "players"),
        (8, "roles.wizard"),
        (12, "night0.steps[1].window"),
        (13, "night0.morning:"),
        (16, "night.call_departed"),
        (1, "the"),  # the day and end sections are missing
    } <= found


def test_rules_check_prints_each_mistake_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(BROKEN, encoding="utf-8")
    assert run(argparse.Namespace(rules_action="check", file=str(path))) == 1
    out = capsys.readouterr().out
    assert f"{path}:8: roles.wizard" in out and f"{path}:16: night.call_departed" in out
    club = REPO / "voicehost" / "game" / "presets" / "club.yaml"
    assert run(argparse.Namespace(rules_action="check", file=str(club))) == 0
