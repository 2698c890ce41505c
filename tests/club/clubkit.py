"""Finished games for the club's tests: one game played through the host once, then copies
that differ as real games do (when they started, who sat where), each a journal of its own."""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
from functools import cache
from pathlib import Path

from voicehost import config
from voicehost.console.script import ScriptFeed
from voicehost.testing.table import text_table

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PEOPLE = ["Анна", "Борис", "Вера", "Глеб", "Даша", "Егор", "Жанна", "Зоя", "Илья", "Кира",
          "Лев", "Мила", "O'Neil \"Дед\" 🎲"]  # fmt: skip


def club_settings(folder: Path, database: str = "", **club: object) -> config.Settings:
    settings = config.load(None)
    return dataclasses.replace(
        settings,
        base_dir=str(folder),
        club=dataclasses.replace(settings.club, database=database, table="стол 1", **club),
        storage=config.StorageSettings("journals", "protocols"),
    )


@cache
def _played() -> str:
    folder = Path(tempfile.mkdtemp(prefix="voicehost-club-"))
    settings = club_settings(folder)
    host = text_table(settings=settings)
    host.journal_path = folder / "template.jsonl"
    host.start()
    script = (EXAMPLES / "town-wins.txt").read_text(encoding="utf-8").splitlines()
    host.run(feed=ScriptFeed(host, host.clock, script, None))
    host.close()
    assert host.over
    text = host.journal_path.read_text(encoding="utf-8")
    shutil.rmtree(folder, ignore_errors=True)
    return text


def finished_journals(
    folder: Path, count: int, *, table: str = "стол 1", evening: str | None = None, offset: int = 0
) -> list[Path]:
    """``count`` finished journals in ``folder`` (journals/), each a different game."""
    text = _played()
    header_line, rest = text.split("\n", 1)
    journals = folder / "journals"
    journals.mkdir(parents=True, exist_ok=True)
    made = []
    for number in range(offset, offset + count):
        header = json.loads(header_line)
        month, minute, second = 1 + number // 2000 % 12, number // 60 % 60, number % 60
        header["started"] = f"2026-{month:02d}-01T19:{minute:02d}:{second:02d}+0000 #{number}"
        header["table"] = table
        if evening:
            header["evening"] = evening
        header["names"] = {
            str(seat): PEOPLE[(seat + number) % len(PEOPLE)] for seat in range(1, 11)
        }
        path = journals / f"game-{number:05d}.jsonl"
        path.write_text(json.dumps(header, ensure_ascii=False) + "\n" + rest, encoding="utf-8")
        path.with_suffix(".finished").touch()
        made.append(path)
    return made


def copy_tree(source: Path, target: Path) -> None:
    shutil.copytree(source, target, dirs_exist_ok=True)
