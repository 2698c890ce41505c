"""One evening whatever the config file: every command finds the club's open evening, every
hint repeats the options it needs, and a game that will not be counted says so and why."""

from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from clubkit import finished_journals

from voicehost.__main__ import main
from voicehost.cli.play import starting_names
from voicehost.club import evening, records
from voicehost.config import load
from voicehost.game.model import Seat


def config_at(folder: Path, name: str, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f'club:\n  table: "Стол 1"\n{extra}', encoding="utf-8")
    return path


def test_an_evening_started_without_config_is_the_evening_of_every_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    city = config_at(tmp_path / "elsewhere", "city.yaml", "rules:\n  preset: city\n")
    assert main(["evening", "start"]) == 0  # voicehost's own config.yaml
    opened = capsys.readouterr().out
    assert main(["--config", str(city), "evening", "status"]) == 0
    out = capsys.readouterr().out
    assert "Вечер не начат" not in out and "· игр: 0" in out, (opened, out)
    # A game played with the other file goes into that evening and its table.
    header = records.header_data(load(city))
    assert header.get("evening") is not None, "the city game would not be counted"
    finished_journals(tmp_path / "elsewhere", 1, evening=header["evening"])
    assert main(["--config", str(city), "evening", "status"]) == 0
    assert "· игр: 1" in capsys.readouterr().out
    assert main(["evening", "end"]) == 0
    assert "закрыт · игр: 1" in capsys.readouterr().out


def test_every_hint_repeats_the_config_it_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    city = config_at(tmp_path / "elsewhere", "my.yaml")
    assert main(["--config", str(city), "evening", "status"]) == 0
    out = capsys.readouterr().out
    assert f"Вечер не начат: `voicehost --config {city} evening start`." in out, out
    assert main(["--config", str(city), "evening", "start"]) == 0
    assert f"voicehost --config {city} evening status" in capsys.readouterr().out
    finished_journals(tmp_path / "elsewhere", 1, evening=records.header_data(load(city))["evening"])
    assert main(["--config", str(city), "evening", "start"]) == 1  # tonight's, with a game
    out = capsys.readouterr().out
    assert f"voicehost --config {city} evening end" in out
    assert f"voicehost --config {city} evening start --new" in out


def test_a_config_that_keeps_a_club_apart_is_told_where_the_evening_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = config_at(tmp_path / "a", "config.yaml")
    apart = config_at(tmp_path / "b", "old.yaml", "  data_dir: club\n")
    assert main(["--config", str(shared), "evening", "start"]) == 0
    capsys.readouterr()
    assert main(["--config", str(apart), "evening", "status"]) == 0
    out = capsys.readouterr().out
    assert "открыт в общей папке клуба" in out and "Уберите club.data_dir" in out, out
    assert str(tmp_path / "b" / "club") in out


def test_a_scripted_game_says_it_is_not_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_at(tmp_path, "config.yaml")
    assert main(["--config", str(config), "evening", "start"]) == 0
    capsys.readouterr()
    script = ["--config", str(config), "play", "--script", "examples/town-wins.txt"]
    assert main(script) == 0
    out = capsys.readouterr().out
    assert "Игра по сценарию не вошла ни в вечер" in out and "ни в рейтинг" in out
    current = evening.current(records.data_dir(load(config)))
    assert current is not None and current["games"] == []


def _plain_game(config: Path) -> str:
    """What the screen shows of a game started at a terminal-less table (and left at once)."""
    result = subprocess.run(
        [sys.executable, "-m", "voicehost", "--config", str(config), "play", "--text", "--plain"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_game_says_which_evening_it_counts_in_or_why_none(tmp_path: Path) -> None:
    config = config_at(tmp_path, "config.yaml", f"storage:\n  journal_dir: {tmp_path}/j\n")
    out = _plain_game(config)
    assert "Вечер не начат: игра войдёт в рейтинг сезона, но не в таблицу вечера" in out
    assert f"voicehost --config {config} evening start" in out
    assert main(["evening", "start"]) == 0
    assert "Игра войдёт в вечер" in _plain_game(config)


class Terminal(io.StringIO):
    """What the host types at the terminal before a game."""

    def isatty(self) -> bool:
        return True


def _evening_of_ten(tmp_path: Path) -> tuple[Path, dict[int, str]]:
    """An open evening whose last game had ten named players; its config and those names."""
    config = config_at(tmp_path, "config.yaml")
    assert main(["--config", str(config), "evening", "start"]) == 0
    settings = load(config)
    finished_journals(tmp_path, 1, evening=records.header_data(settings)["evening"])
    records.catch_up(settings)
    names = evening.carried_names(records.data_dir(settings))
    assert len(names) == 10
    return config, {int(seat): name for seat, name in names.items()}


def _at_eight(config: Path) -> object:
    return dataclasses.replace(load(config), players=8)


def test_a_smaller_table_asks_who_is_not_there_and_drops_nobody_unasked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config, last = _evening_of_ten(tmp_path)
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", Terminal("11\n3 7\n"))
    names = starting_names(_at_eight(config), None)  # type: ignore[arg-type]
    out = capsys.readouterr().out
    assert "За этим столом мест: 8" in out and "Кого нет в этой игре?" in out
    assert "«11»: такого места нет" in out  # a wrong number is named, and asked again
    # 3 and 7 went home; the players of seats 9 and 10 took their chairs; nobody else moved.
    assert names == {
        **{seat: last[seat] for seat in (1, 2, 4, 5, 6, 8)},
        3: last[9],
        7: last[10],
    }
    assert f"3 {last[9]}" in out and f"7 {last[10]}" in out


def test_a_smaller_table_asks_again_when_too_few_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config, last = _evening_of_ten(tmp_path)
    monkeypatch.setattr(sys, "stdin", Terminal("10\n\n"))
    assert starting_names(_at_eight(config), None) == {}  # type: ignore[arg-type]
    out = capsys.readouterr().out
    assert "назовите ещё хотя бы 1" in out and "Игра начинается без имён прошлой игры" in out


def test_without_a_terminal_a_smaller_table_starts_without_names_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config, _ = _evening_of_ten(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert starting_names(_at_eight(config), None) == {}  # type: ignore[arg-type]
    out = capsys.readouterr().out
    assert "нет терминала" in out and "play --roster" in out


@pytest.mark.parametrize(
    ("players", "away", "seated"),
    [
        (8, [3, 7], {1: "a", 2: "b", 3: "i", 4: "d", 5: "e", 6: "f", 7: "j", 8: "h"}),
        (8, [9, 10], {1: "a", 2: "b", 3: "c", 4: "d", 5: "e", 6: "f", 7: "g", 8: "h"}),
        (8, [1, 2, 3], {1: "i", 2: "j", 4: "d", 5: "e", 6: "f", 7: "g", 8: "h"}),
    ],
)
def test_who_stays_keeps_a_seat_and_the_rest_take_the_free_ones(
    players: int, away: list[int], seated: dict[int, str]
) -> None:
    from voicehost.host.names import NameRefused, at_smaller_table

    ten = {Seat(seat): name for seat, name in zip(range(1, 11), "abcdefghij", strict=True)}
    assert at_smaller_table(ten, players, away) == seated
    with pytest.raises(NameRefused):
        at_smaller_table(ten, players, [1])


def test_a_server_away_names_the_sync_command_with_its_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    away = 'club:\n  database: "postgresql://club:secret@127.0.0.1:9/mafia"\n'
    config = config_at(tmp_path, "my.yaml", "  sync_timeout_seconds: 1\n")
    config.write_text(config.read_text(encoding="utf-8").replace("club:\n", away), "utf-8")
    finished_journals(tmp_path, 1)
    assert main(["--config", str(config), "club", "sync"]) == 1
    out = capsys.readouterr().out
    assert "В исходящих ждут игр: 1" in out and "secret" not in out
    assert f"отправить: `voicehost --config {config} club sync`" in out, out


def test_a_smaller_table_with_room_for_everyone_seats_them_without_asking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config, last = _evening_of_ten(tmp_path)
    folder = records.data_dir(load(config))
    data = evening.current(folder)
    assert data is not None
    data["names"] = {seat: name for seat, name in data["names"].items() if seat != "3"}
    evening.path_in(folder).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # nobody to ask, nobody needs asking
    names = starting_names(dataclasses.replace(load(config), players=9), None)
    assert names == {**{s: last[s] for s in (1, 2, 4, 5, 6, 7, 8, 9)}, 3: last[10]}
    assert f"3 {last[10]}" in capsys.readouterr().out
