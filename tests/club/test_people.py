"""A player is a person: a rename during a game is an edit of that person (the old name kept as
theirs), in the season's standings and in the evening's table, on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from clubkit import EXAMPLES, club_settings

from voicehost.__main__ import main
from voicehost.club import db, evening, records
from voicehost.config import Settings
from voicehost.console.script import ScriptFeed
from voicehost.testing.table import text_table

TOWN_WINS = (EXAMPLES / "town-wins.txt").read_text(encoding="utf-8").splitlines()


def play(
    settings: Settings, folder: Path, stem: str, names: dict[int, str], *, at: str = "", typed=()
) -> tuple[Path, list[str]]:
    """A finished game with ``names`` at its start and ``typed`` lines after the script's line
    ``at``; its journal and what the screen showed."""
    host = text_table(settings=settings)
    host.journal_path = folder / "journals" / f"{stem}.jsonl"
    host.journal_path.parent.mkdir(parents=True, exist_ok=True)
    host.header = records.header_data(settings)
    for seat, name in names.items():
        host.set_name(seat, name)
    host.start()
    lines = list(TOWN_WINS)
    if typed:
        where = lines.index(at) + 1
        lines[where:where] = list(typed)
    host.run(feed=ScriptFeed(host, host.clock, lines, None))
    host.close()
    assert host.over
    records.record_finished(settings, host.journal_path, background=False)
    return host.journal_path, list(host.screen.lines)


def standings_of(settings: Settings) -> dict[str, int]:
    database = records.connect(settings)
    return {row.name: row.games for row in database.standings()}


def test_a_player_renamed_mid_game_stays_one_person(tmp_path: Path, backend: str) -> None:
    settings = club_settings(tmp_path, backend)
    evening.start(records.data_dir(settings), "стол 1", "2026")
    play(settings, tmp_path, "one", {4: "Глеб", 1: "Анна"})
    _, screen = play(
        settings, tmp_path, "two", {4: "Глеб", 1: "Анна"},
        at="# ---- Day 1", typed=["имя 4 Глеб Петров"],
    )  # fmt: skip
    assert any("«Глеб» теперь «Глеб Петров» — тот же игрок" in line for line in screen)
    play(settings, tmp_path, "three", {4: "глеб"})  # the old name, from a table not told
    seasons = standings_of(settings)
    assert seasons["Глеб Петров"] == 3 and "Глеб" not in seasons, seasons
    database = records.connect(settings)
    assert database.person_name("ГЛЕБ") == "Глеб Петров"
    assert len(database.series("Глеб")) == len(database.series("Глеб Петров")) == 3
    tonight = evening.current(records.data_dir(settings))
    assert tonight is not None
    lines = {line.name: line.games for line in evening.table_of(tonight)}
    assert lines["Глеб Петров"] == 3 and "Глеб" not in lines and "глеб" not in lines, lines
    records.forget(settings)


def test_a_name_changed_before_the_first_day_is_another_person(
    tmp_path: Path, backend: str
) -> None:
    settings = club_settings(tmp_path, backend)
    play(settings, tmp_path, "one", {4: "Глеб"})
    night_zero = next(line for line in TOWN_WINS if line.startswith("# ---- Night 0"))
    _, screen = play(settings, tmp_path, "two", {4: "Глеб"}, at=night_zero, typed=["имя 4 Вера"])
    assert not any("тот же игрок" in line for line in screen)
    assert standings_of(settings) == {"Глеб": 1, "Вера": 1}
    records.forget(settings)


def test_a_rename_never_joins_two_people_the_club_knows(tmp_path: Path, backend: str) -> None:
    settings = club_settings(tmp_path, backend)
    play(settings, tmp_path, "one", {4: "Глеб", 5: "Вера"})
    play(settings, tmp_path, "two", {4: "Глеб"}, at="# ---- Day 1", typed=["имя 4 Вера"])
    assert standings_of(settings) == {"Глеб": 1, "Вера": 2}
    records.forget(settings)


def test_a_season_kept_before_names_were_people_keeps_its_players(
    tmp_path: Path, backend: str
) -> None:
    settings = club_settings(tmp_path, backend)
    url = records.database_url(settings)
    old = db.ClubDatabase(url)
    old._upgrade("0001")  # the schema as an earlier voicehost left it, with a player in it
    with old.transaction() as connection:
        from sqlalchemy import text

        connection.execute(text("INSERT INTO players (key, name) VALUES ('глеб', 'Глеб')"))
    old.close()
    play(settings, tmp_path, "two", {4: "Глеб"}, at="# ---- Day 1", typed=["имя 4 Глеб Петров"])
    database = records.connect(settings)
    assert database.version() == db.HEAD
    rows = database.standings()
    assert [(row.name, row.games, row.person) for row in rows if "Глеб" in row.name] == [
        ("Глеб Петров", 1, 1)
    ]
    records.forget(settings)


def test_a_rename_is_an_edit_and_two_names_of_one_person_can_be_joined(
    tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = club_settings(tmp_path, backend)
    config = tmp_path / "config.yaml"
    config.write_text(
        f'club:\n  database: "{backend}"\n  table: "стол 1"\n'
        "storage:\n  journal_dir: journals\n  protocol_dir: protocols\n",
        encoding="utf-8",
    )
    play(settings, tmp_path, "one", {4: "Глеб", 5: "Вера"})
    play(settings, tmp_path, "two", {6: "Глеб П.", 5: "Вера"})  # split by an earlier version
    play(settings, tmp_path, "three", {4: "Глеб", 6: "Глеб П."})  # two people at one table
    run = ["--config", str(config), "club", "rename"]
    assert main([*run, "Глеб П.", "Глеб Петров"]) == 0
    assert "«Глеб П.» теперь «Глеб Петров»: игр — 2" in capsys.readouterr().out
    assert standings_of(settings)["Глеб Петров"] == 2
    assert main([*run, "Глеб", "глеб петров"]) == 1  # another person: not joined unasked
    out = capsys.readouterr().out
    assert "другой игрок клуба (игр: 2)" in out and f"--config {config}" in out
    assert "club rename 'Глеб' 'глеб петров' --merge" in out
    assert main([*run, "Глеб", "Глеб Петров", "--merge"]) == 1  # they sat in game three
    assert "играли в одной игре" in capsys.readouterr().out
    assert main([*run, "Вера", "Вера Ким"]) == 0 and main([*run, "Ира", "Вера"]) == 1
    assert "«Ира» в клубе не играл" in capsys.readouterr().out
    assert standings_of(settings) == {"Глеб": 2, "Глеб Петров": 2, "Вера Ким": 2}
    play(settings, tmp_path, "four", {1: "Дима"})
    play(settings, tmp_path, "five", {1: "Дмитрий"})
    assert main([*run, "Дима", "Дмитрий", "--merge"]) == 0
    assert "игр — 2; другие имена игрока: Дима" in capsys.readouterr().out
    assert standings_of(settings)["Дмитрий"] == 2 and "Дима" not in standings_of(settings)
    play(settings, tmp_path, "six", {1: "дима"})  # the old name is his
    assert standings_of(settings)["Дмитрий"] == 3
    records.forget(settings)


def test_two_new_names_swapped_by_day_stay_two_people(tmp_path: Path, backend: str) -> None:
    settings = club_settings(tmp_path, backend)
    evening.start(records.data_dir(settings), "стол 1", "2026")
    swap = ["имя 5", "имя 6 Анна", "имя 5 Вера"]  # Вера and Анна were typed at each other's seat
    play(settings, tmp_path, "one", {5: "Анна", 6: "Вера"}, at="# ---- Day 1", typed=swap)
    play(settings, tmp_path, "two", {5: "Вера"})
    assert standings_of(settings) == {"Анна": 1, "Вера": 2}
    tonight = evening.current(records.data_dir(settings))
    assert tonight is not None
    assert {line.name: line.games for line in evening.table_of(tonight)} == {"Анна": 1, "Вера": 2}
    records.forget(settings)


def test_a_known_name_swapped_with_a_new_one_stays_its_own(tmp_path: Path, backend: str) -> None:
    settings = club_settings(tmp_path, backend)
    play(settings, tmp_path, "one", {5: "Вера"})
    swap = ["имя 5", "имя 6 Анна", "имя 5 Вера"]
    play(settings, tmp_path, "two", {5: "Анна", 6: "Вера"}, at="# ---- Day 1", typed=swap)
    assert standings_of(settings) == {"Анна": 1, "Вера": 2}
    records.forget(settings)
