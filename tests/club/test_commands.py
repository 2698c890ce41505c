"""The club's commands as a person runs them: an evening opened, shown and closed; the season's
standings printed, exported and drawn; a folder imported twice; marks typed after a game."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from clubkit import finished_journals
from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost.__main__ import main
from voicehost.club import marks, records, standings
from voicehost.club.db import Standing
from voicehost.club.standings import safe_cell
from voicehost.game.model import Role
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
    # A second «start» typed by mistake tonight would split the evening: refused, kept open.
    assert main(["--config", str(config), "evening", "start"]) == 1
    out = capsys.readouterr().out
    assert f"Вечер {opened['id']} ещё идёт: сыграно игр: 2" in out and "--new" in out
    assert records.evening.current(tmp_path / "club")["id"] == opened["id"]  # type: ignore[index]
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
    assert "мирный житель: игры" in rows[0] and "Дон: победы" in rows[0]  # every column Russian
    assert not any(re.search(r"[A-Za-z]", head) for head in rows[0]), rows[0]
    assert sum(int(row[3]) for row in rows[1:]) == 60
    records.forget(records.club_settings_of(config))


def test_standings_of_games_without_names_say_why_the_table_is_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Games played by numbered seats count for the season, but the rating is by name: the
    host is told how to give names, not that there are no games."""
    config = config_in(tmp_path)
    stick = tmp_path / "stick"
    for journal in finished_journals(stick, 2):
        header, rest = journal.read_text(encoding="utf-8").split("\n", 1)
        unnamed = {key: value for key, value in json.loads(header).items() if key != "names"}
        journal.write_text(json.dumps(unnamed, ensure_ascii=False) + "\n" + rest, "utf-8")
    assert main(["--config", str(config), "club", "import", str(stick)]) == 0
    capsys.readouterr()
    assert main(["--config", str(config), "club", "standings"]) == 0
    out = capsys.readouterr().out
    assert "игр: 2" in out and "игр ещё нет" not in out
    assert "имя 5 Анна" in out and "--roster" in out
    records.forget(records.club_settings_of(config))


def test_a_scripted_game_takes_its_names_from_the_roster_into_the_protocol_and_the_season(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`play --script FILE --roster R`: the names reach the protocol and the journal, so the
    game imported into the club's records ranks its players (the roster was ignored)."""
    config = config_in(tmp_path)
    roster = tmp_path / "roster.txt"
    roster.write_text('Анна\nБорис\n5 O\'Neil "Дед" 🎲\n', encoding="utf-8")
    journal = tmp_path / "played" / "game.jsonl"
    example = Path(__file__).resolve().parents[2] / "examples" / "town-wins.txt"
    command = ["play", "--script", str(example), "--roster", str(roster), "--journal", str(journal)]
    assert main(["--config", str(config), *command]) == 0
    out = capsys.readouterr().out
    assert "Анна" in out and 'O\'Neil "Дед" 🎲' in out  # the protocol's name column
    assert main(["--config", str(config), "club", "import", str(journal.parent)]) == 0
    capsys.readouterr()
    assert main(["--config", str(config), "club", "standings"]) == 0
    out = capsys.readouterr().out
    assert "Анна" in out and "Борис" in out and "Дед" in out
    records.forget(records.club_settings_of(config))


def test_a_club_server_that_does_not_answer_is_said_in_the_games_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing listens at the club's server: the games wait in the outbox, and the host reads
    why in Russian (the driver's own words inside), not an English sentence."""
    nowhere = 'club:\n  database: "postgresql://club@127.0.0.1:1/mafia"\n'
    nowhere += "  sync_timeout_seconds: 1\n"
    config = tmp_path / "config.yaml"
    config.write_text(nowhere, encoding="utf-8")
    finished_journals(tmp_path / "stick", 1)
    assert main(["--config", str(config), "club", "import", str(tmp_path / "stick")]) == 0
    out = capsys.readouterr().out
    assert "В исходящих ждут игр: 1" in out and "база клуба" in out and "недоступна" in out
    assert "cannot be used" not in out
    assert main(["--config", str(config), "club", "standings"]) == 1
    err = capsys.readouterr().err
    assert "база клуба" in err and "cannot be used" not in err and "Traceback" not in err
    records.forget(records.club_settings_of(config))


def test_the_standings_count_every_card_of_every_rule_set() -> None:
    """A season with city games: the Maniac's, the «путана»'s and the Immortal's games and wins
    have their columns in the table and the CSV, as every other card's."""
    by_role = {"maniac": (2, 1), "putana": (1, 0), "immortal": (1, 1), "mafia": (1, 1)}
    row = Standing("Зоя", 5, 3, 3.0, 0, by_role)
    say = lambda key, **params: RU.screen(f"club_{key}", params)  # noqa: E731
    table = standings.table([row], say, RU.word)
    head, line = table.splitlines()[:2]
    for word, cell in (("маньяк", "1/2"), ("путана", "0/1"), ("бессмертный", "1/1")):
        assert word in head and cell in line, table
    assert {role.value for role in Role} <= set(standings.ROLES)  # no card is left out
    headers = standings.csv_headers(say, RU.word)
    rows = list(csv.DictReader(io.StringIO(standings.to_csv([row], headers))))
    assert rows[0]["маньяк: игры"] == "2" and rows[0]["маньяк: победы"] == "1"
    assert rows[0]["путана: игры"] == "1" and rows[0]["бессмертный: победы"] == "1"


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
