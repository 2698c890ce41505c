"""A new game's journal never falls on another game's file: two games started in the same
second (two tables on one machine) get two journals, and a journal given that exists already
is refused in the game's language, naming the command that carries it on."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from voicehost import config
from voicehost.__main__ import main
from voicehost.cli.session import new_journal_path
from voicehost.host.journal import Journal


def test_two_games_started_in_one_second_get_two_journals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = config.load(None)
    settings = dataclasses.replace(
        settings, storage=dataclasses.replace(settings.storage, journal_dir=str(tmp_path))
    )
    monkeypatch.setattr("time.strftime", lambda *_: "2026-12-04_17-47-49")  # one second
    paths = []
    for _ in range(3):
        path = new_journal_path(settings)
        Journal.create(path, settings).close()
        paths.append(path.name)
    assert paths == [
        "game-2026-12-04_17-47-49.jsonl",
        "game-2026-12-04_17-47-49-2.jsonl",
        "game-2026-12-04_17-47-49-3.jsonl",
    ]


def test_a_journal_that_exists_is_refused_in_the_games_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "night0.txt"
    script.write_text("2 5 9\n", encoding="utf-8")
    journal = tmp_path / "game.jsonl"
    assert main(["play", "--script", str(script), "--journal", str(journal)]) == 0
    capsys.readouterr()
    assert main(["play", "--script", str(script), "--journal", str(journal)]) != 0
    err = capsys.readouterr().err
    assert "уже есть" in err and f"voicehost resume {journal}" in err
    assert "already exists" not in err and "Traceback" not in err
