"""The club's commands as a person runs them: an evening opened, shown and closed; the season's
standings printed, exported and drawn; a folder imported twice; marks typed after a game."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from clubkit import finished_journals
from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost.__main__ import main
from voicehost.club import marks, records
from voicehost.club.standings import safe_cell
from voicehost.host.names import NameRefused, parse_roster
from voicehost.phrases import PhraseBook

RU = PhraseBook.load("ru")


def config_in(folder: Path, extra: str = "") -> Path:
    path = folder / "config.yaml"
    path.write_text(f'club:\n  table: "Стол 1"\n{extra}', encoding="utf-8")
    return path


def test_an_evening_is_opened_shown_and_closed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_in(tmp_path)
    assert main(["--config", str(config), "evening", "status"]) == 0
    assert "Вечер не начат" in capsys.readouterr().out
    assert main(["--config", str(config), "evening", "start"]) == 0
    out = capsys.readouterr().out
    assert "Вечер начат" in out and "Стол 1" in out
    opened = records.evening.current(tmp_path / "club")
    assert opened is not None
    finished_journals(tmp_path, 2, evening=opened["id"])
    assert main(["--config", str(config), "evening", "status"]) == 0
    out = capsys.readouterr().out
    assert "игр: 2" in out and "баллы" in out  # the games were recorded on the way
    assert main(["--config", str(config), "evening", "end"]) == 0
    assert "закрыт · игр: 2" in capsys.readouterr().out
    assert main(["--config", str(config), "evening", "end"]) == 1
    records.forget(records.club_settings_of(config))


def test_standings_print_export_and_draw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_in(tmp_path)
    stick = tmp_path / "stick"
    finished_journals(stick, 6)
    assert main(["--config", str(config), "club", "import", str(stick)]) == 0
    assert "новых в базе: 6" in capsys.readouterr().out
    assert main(["--config", str(config), "club", "import", str(stick)]) == 0
    assert "новых в базе: 0; уже были: 6" in capsys.readouterr().out
    chart = tmp_path / "season.png"
    table = tmp_path / "season.csv"
    command = ["club", "standings", "--csv", str(table), "--chart", str(chart)]
    assert main(["--config", str(config), *command, "--player", "анна"]) == 0
    out = capsys.readouterr().out
    assert "Рейтинг клуба" in out and 'O\'Neil "Дед" 🎲' in out
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and chart.stat().st_size > 10_000
    rows = list(csv.reader(io.StringIO(table.read_text(encoding="utf-8-sig"))))
    assert rows[0][1] == "Игрок" and len(rows) == 14  # the heading and 13 players
    assert "мирный житель: игры" in rows[0] and "дон: победы" in rows[0]  # every column Russian
    assert not any(re.search(r"[A-Za-z]", head) for head in rows[0]), rows[0]
    assert sum(int(row[3]) for row in rows[1:]) == 60
    records.forget(records.club_settings_of(config))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_a_csv_cell_is_never_a_formula(text: str) -> None:
    cell = safe_cell(text)
    assert not cell.startswith(("=", "+", "-", "@", "\t", "\r"))
    assert cell.removeprefix("'") == text or cell == text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=30), max_size=15))
def test_any_roster_is_taken_or_refused_with_its_line(lines: list[str]) -> None:
    try:
        names = parse_roster(lines, 10)
    except NameRefused as refused:
        assert refused.params.get("line") or refused.code.startswith("roster")
        assert "строка" in refused.in_words(RU)
        return
    assert all(1 <= seat <= 10 and name for seat, name in names.items())
    assert len({name.casefold() for name in names.values()}) == len(names)


def test_marks_are_asked_one_by_one_and_a_wrong_line_is_asked_again() -> None:
    book = PhraseBook.load("ru")
    told: list[str] = []
    typed = iter(["11", "5", "", "4 +0.5 нашёл мафию", "4 много", "4 30", "", "9", "2 -1 спор", ""])
    given = marks.ask(10, typed, told.append, lambda key, **p: book.screen(key, p))
    assert given["best_player"] == 5 and given["best_move"] is None
    assert given["extra"] == [{"seat": 4, "points": 0.5, "comment": "нашёл мафию"}]
    assert given["penalty"] == [
        {"seat": 9, "points": 0.0, "comment": ""},
        {"seat": 2, "points": -1.0, "comment": "спор"},
    ]
    refusals = [line for line in told if line.startswith("  ✗")]
    assert len(refusals) == 3, told
    assert "места от 1 до 10" in refusals[0]
    assert "не указаны баллы" in refusals[1]
    assert "вне пределов" in refusals[2]


def test_a_wrong_roster_stops_play_before_the_game_with_its_line(tmp_path: Path) -> None:
    from voicehost import config
    from voicehost.cli.play import starting_names
    from voicehost.errors import VoicehostError

    roster = tmp_path / "roster.txt"
    roster.write_text("Анна\nБорис\n2 Вера\n", encoding="utf-8")
    with pytest.raises(VoicehostError, match="строка 3: место 2 уже дано в строке 2"):
        starting_names(config.load(None), roster)
    roster.write_text("5 Анна\nБорис\n", encoding="utf-8")
    assert starting_names(config.load(None), roster) == {5: "Анна", 6: "Борис"}
