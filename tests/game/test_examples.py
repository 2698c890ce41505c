"""Every script in examples/ plays a whole game to a win, and shows what it says it shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from gamekit import REPO

from voicehost import config
from voicehost.console.commandline import strip_comment
from voicehost.console.script import ScriptResult, run_script
from voicehost.host import protocol as protocol_module

EXAMPLES = REPO / "examples"


def _said(result: ScriptResult, text: str) -> int:
    return sum(1 for line in result.transcript if text in line)


def _departures(result: ScriptResult, how: str) -> list[int]:
    return [d["seat"] for d in result.protocol["departures"] if d["how"] == how]


def town_wins(result: ScriptResult, protocol: dict[str, Any]) -> None:
    assert protocol["winner"] == "red"
    assert _departures(result, "vote") == [5, 9, 2]
    assert [n["saved"] for n in protocol["nights"][1:]] == [True, True]


def mafia_wins(result: ScriptResult, protocol: dict[str, Any]) -> None:
    assert protocol["winner"] == "black"
    assert _said(result, "Не вижу согласованного выстрела!") == 1
    assert _said(result, "Комиссар покидает стол без последнего слова.") == 1
    night1 = protocol["nights"][1]
    assert (night1["killed"], night1["check"], night1["check_announced"]) == (3, 8, False)
    assert not any("Комиссар нашёл" in line for line in result.transcript)
    # the morning of night 2: 3 black against 3 red
    seats = {s["seat"]: s for s in protocol["seats"]}
    black = [s for s, v in seats.items() if v["at_table"] and v["role"] == "mafia"]
    red = [s for s, v in seats.items() if v["at_table"] and v["role"] != "mafia"]
    assert len(black) == len(red) == 3


def revote_and_third_vote(result: ScriptResult, protocol: dict[str, Any]) -> None:
    assert protocol["winner"] == "red"
    day1, day2 = protocol["days"]
    assert [v["round"] for v in day1["votes"]] == [1, 2]
    assert day1["third_vote"]["outcome"] == "all_stay"
    assert (day1["third_vote"]["votes_for"], day1["third_vote"]["voters"]) == (4, 8)
    assert [v["round"] for v in day2["votes"]] == [1, 2]
    assert day2["third_vote"]["outcome"] == "all_leave"
    assert (day2["third_vote"]["votes_for"], day2["third_vote"]["voters"]) == (4, 6)
    assert day2["left"] == [3, 6, 9]
    assert _said(result, "Повторное голосование") == 2


def doctor_save(result: ScriptResult, protocol: dict[str, Any]) -> None:
    assert protocol["winner"] == "red"
    nights = protocol["nights"][1:]
    assert [(n["shot"], n["heal"], n["saved"]) for n in nights] == [(1, 1, True), (6, 6, True)]
    assert _said(result, "Этой ночью доктор спас жителя города.") == 2
    assert _departures(result, "kill") == []


def disqualification(result: ScriptResult, protocol: dict[str, Any]) -> None:
    assert protocol["winner"] == "red"
    assert _departures(result, "disqualified") == [6, 7, 8]
    night_foul = [f for f in protocol["fouls"] if f["phase"].startswith("night")]
    assert [(f["seat"], f["disqualified"]) for f in night_foul] == [(6, True)]
    assert _said(result, "Ночью за нарушение дисквалифицирован игрок номер шесть") == 1
    assert _said(result, "Замечание игроку") == 4
    assert not any(
        line.startswith("Последнее слово игроку номер семь") for line in result.transcript
    )


def fiim_town_wins(result: ScriptResult, protocol: dict[str, Any]) -> None:
    """docs/RULES-FIIM.md: hidden cards, agreed shots, private checks, a lone nominee."""
    assert protocol["winner"] == "red"
    assert _departures(result, "vote") == [5, 9, 2] and _departures(result, "kill") == [3, 1]
    assert [n.get("shots") for n in protocol["nights"][1:]] == [{"2": 3, "9": 3}, {"2": 1}]
    assert [n["sheriff_found_black"] for n in protocol["nights"][1:]] == [True, True]
    assert not any("Роль игрока" in line or "Шериф нашёл" in line for line in result.transcript)
    assert [d["nominations"] for d in protocol["days"]][1] == {"4": [9], "6": [2]}
    assert _said(result, "Выставлен один игрок, номер два: все голоса против него.") == 1


def _score(protocol: dict[str, Any], seat: int) -> dict[str, Any]:
    return next(line for line in protocol["scores"] if line["seat"] == seat)


def _verdict(result: ScriptResult, lines: int = 1) -> list[str]:
    """The last ``lines`` said before the cards are opened at the end."""
    opened = result.transcript.index("Открываем карты.")
    return result.transcript[opened - lines : opened]


def fiim_black_wins(result: ScriptResult, protocol: dict[str, Any]) -> None:
    """§1: black wins at three against three; §7: a best move with no black seat scores 0."""
    assert protocol["winner"] == "black"
    assert _departures(result, "vote") == [4, 6] and _departures(result, "kill") == [3, 7]
    assert protocol["best_move"] == {"seat": 3, "seats": [1, 6, 7], "black": 0}
    assert [_score(protocol, seat)["total"] for seat in (2, 3, 5)] == [1, 0, 1]
    assert _said(result, "Выставлен один игрок, номер шесть: все голоса против него.") == 1
    assert _verdict(result) == ["Игра окончена. Победила мафия!"]


def fiim_best_move(result: ScriptResult, protocol: dict[str, Any]) -> None:
    """§7 (MR 8.17.1): the first night's victim names three seats; two black score 0.5."""
    assert protocol["winner"] == "red"
    assert protocol["best_move"] == {"seat": 3, "seats": [2, 6, 9], "black": 2}
    assert _score(protocol, 3) | {"comment": ""} == {
        "seat": 3, "win": 1, "best_move": 0.5, "penalty": 0.0, "extra": 0.0, "comment": "",
        "total": 1.5,
    }  # fmt: skip
    assert _said(result, "Лучший ход: игрок номер три, назовите три номера.") == 1
    assert _said(result, "Лучший ход игрока номер три: номера два, шесть и девять.") == 1


def fiim_fourth_foul(result: ScriptResult, protocol: dict[str, Any]) -> None:
    """§9 (MR 9.5.1, 9.7, 9.8): warnings, a lost speech, removal, the day's vote cancelled."""
    assert protocol["winner"] == "red"
    assert _departures(result, "removed") == [9]
    assert [f["count"] for f in protocol["fouls"]] == [1, 2, 3, 4]
    assert _said(result, "Третье замечание: игрок номер девять пропускает") == 1
    assert _said(result, "Игрок номер девять пропускает речь") == 1
    assert not any(line.startswith("Слово игроку номер девять") for line in result.transcript)
    assert _said(result, "Игрок номер девять удалён и покидает стол без последнего слова.") == 1
    assert not any(
        line.startswith("Последнее слово игроку номер девять") for line in result.transcript
    )
    day1 = protocol["days"][0]
    assert day1["vote_cancelled"] and day1["votes"] == [] and day1["candidates"] == [5]
    assert _score(protocol, 9)["penalty"] == -0.5
    assert [n["shots"] for n in protocol["nights"][1:]] == [{"2": 3, "5": 3}, {"2": 1}]


def fiim_lift_all(result: ScriptResult, protocol: dict[str, Any]) -> None:
    """§5 (MR 7.17 to 7.20): tie, 30 s speeches, a tie again, «поднять всех»; §7: no best move
    after two left by the vote on day 1."""
    day1 = protocol["days"][0]
    assert [v["counts"] for v in day1["votes"]] == [{"5": 5, "7": 5}] * 2
    assert day1["third_vote"] == {"candidates": [5, 7], "votes_for": 6, "voters": 10,
                                  "outcome": "all_leave", "four_players": False}  # fmt: skip
    assert day1["left"] == [5, 7]
    assert _said(result, "Повторная речь игроку номер") == 2
    assert _said(result, "Кто за то, чтобы все игроки номер пять и семь покинули стол?") == 1
    assert protocol["best_move"] is None and not _said(result, "Лучший ход")
    assert protocol["winner"] == "red"


def fiim_team_loss(result: ScriptResult, protocol: dict[str, Any]) -> None:
    """§9 (MR 10.21 to 10.24): a grave fault costs the whole team the game at once."""
    assert protocol["winner"] == "red"
    assert protocol["team_loss"] == {"seat": 9, "team": "black", "day": 1, "night": 0,
                                     "phase": "nomination"}  # fmt: skip
    assert _verdict(result, 2) == [
        "По решению судьи команда игрока номер девять получает поражение.",
        "Игра окончена. Победили красные: мирный город!",
    ]
    assert _score(protocol, 9)["penalty"] == pytest.approx(-0.7)
    assert [_score(protocol, seat)["win"] for seat in (1, 2, 4, 5, 9)] == [1, 0, 1, 0, 0]


def city_town_wins(result: ScriptResult, protocol: dict[str, Any]) -> None:
    """docs/RULES-CITY.md: the Immortal survives the mafia's shot, the «путана»'s client does
    not vote, a blocked Maniac kills nobody, the Doctor heals himself once."""
    assert protocol["winner"] == "red"
    assert _said(result, "Этой ночью убит игрок номер десять.") == 1  # the Maniac's, night 1
    assert _said(result, "Игрок номер шесть провёл ночь с путаной: сегодня он не голосует.") == 2
    assert 3 not in [d["seat"] for d in protocol["departures"]]  # shot twice, immortal
    day2 = protocol["days"][1]
    assert sum(day2["votes"][0]["counts"].values()) == 7  # eight at the table, 6 does not vote
    assert _departures(result, "vote") == [9, 2, 5, 8]
    assert _said(result, "Этой ночью никто не погиб: жителя города спасли.") == 1


def city_mafia_wins(result: ScriptResult, protocol: dict[str, Any]) -> None:
    assert protocol["winner"] == "black"
    assert _departures(result, "vote") == [8, 7]  # the Maniac, then the Doctor
    assert _departures(result, "kill") == [4, 10]
    assert _said(result, "Игра окончена. Победила мафия!") == 1


def city_maniac_wins(result: ScriptResult, protocol: dict[str, Any]) -> None:
    """Two kills in one night are told together; the Maniac wins alone."""
    assert protocol["winner"] == "maniac"
    assert _said(result, "Этой ночью убиты игроки номер один и семь.") == 1
    assert _said(result, "Игрок номер два провёл ночь с путаной: сегодня он не голосует.") == 1
    night1 = protocol["nights"][1]
    assert night1["killed"] == 4  # the Maniac's; the mafia's client-blocked shot did not happen
    assert _verdict(result) == ["Игра окончена. Маньяк победил в одиночку!"]
    table = protocol_module.to_table(result.protocol, result.host.book)
    assert table.endswith("Победа: маньяк (в одиночку)")
    assert "маньяк: выстрел 7" in table and "убиты: 1, 7" in table
    living = [s["seat"] for s in protocol["seats"] if s["at_table"]]
    assert living == [3, 8]


FACTS: dict[str, Callable[[ScriptResult, dict[str, Any]], None]] = {
    "town-wins.txt": town_wins,
    "mafia-wins.txt": mafia_wins,
    "revote-and-third-vote.txt": revote_and_third_vote,
    "doctor-save.txt": doctor_save,
    "disqualification.txt": disqualification,
    "fiim-town-wins.txt": fiim_town_wins,
    "fiim-black-wins.txt": fiim_black_wins,
    "fiim-best-move.txt": fiim_best_move,
    "fiim-fourth-foul.txt": fiim_fourth_foul,
    "fiim-lift-all.txt": fiim_lift_all,
    "fiim-team-loss.txt": fiim_team_loss,
    "city-town-wins.txt": city_town_wins,
    "city-mafia-wins.txt": city_mafia_wins,
    "city-maniac-wins.txt": city_maniac_wins,
}


ALL = sorted(p.name for p in EXAMPLES.glob("*.txt"))


def test_the_examples_the_issue_asks_for_exist() -> None:
    assert set(FACTS) <= set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_the_example_plays_to_a_win_without_a_rejected_line(name: str) -> None:
    lines = (EXAMPLES / name).read_text(encoding="utf-8").splitlines()
    result = run_script(lines, config.loads(""))
    assert result.errors == []
    assert result.host.over
    assert result.protocol["winner"] in ("red", "black", "maniac")
    said = result.transcript
    opened = said.index("Открываем карты.")  # then each card the rule set names, with its seats
    assert said[opened - 1].startswith("Игра окончена")
    roles = {seat["role"] for seat in result.protocol["seats"]} - {"civilian"}
    assert len(said) - opened - 1 == len(roles)
    black = [s["seat"] for s in result.protocol["seats"] if s["role"] == "mafia"]
    assert any(line.startswith("Мафия — игрок") for line in said[opened:]) == bool(black)
    if name in FACTS:
        FACTS[name](result, result.protocol)


@pytest.mark.parametrize("name", sorted(FACTS))
def test_the_example_ends_on_its_last_command(name: str) -> None:
    lines = (EXAMPLES / name).read_text(encoding="utf-8").splitlines()
    last_command = max(i for i, line in enumerate(lines) if strip_comment(line))
    result = run_script(lines[:last_command], config.loads(""))
    assert result.errors == []
    assert not result.host.over


@pytest.mark.parametrize("name", sorted(FACTS))
def test_the_example_explains_itself(name: str) -> None:
    """Line by line: a header saying what the game shows, and comments on the commands."""
    lines = (EXAMPLES / name).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# A 10-player game")
    commands = [line for line in lines if strip_comment(line)]
    commented = [line for line in commands if "#" in line]
    assert len(commented) >= len(commands) // 3
    sections = [line for line in lines if line.startswith("# ----")]
    assert any("Night 0" in line for line in sections) and any("Day 1" in line for line in sections)


def test_the_city_mafia_step_sounds_the_same_whether_the_mafia_are_slow_blocked_or_gone() -> None:
    """docs/RULES-CITY.md §3: the city's mafia step has no «не вижу согласованного выстрела»;
    whether the black players enter nothing, are blocked by the «путана» or have all left (the
    Maniac plays on), the town hears the mafia wake and fall asleep, nothing between."""
    script = (EXAMPLES / "city-maniac-wins.txt").read_text(encoding="utf-8")
    blocked_then_gone = run_script(script.splitlines(), config.loads(""))
    night1 = script.index("# ---- Night 1")
    slow = script[:night1] + "6\nwait\nwait\n"  # a civilian visited; the mafia enter nothing
    present = run_script(slow.splitlines(), config.loads(""))
    assert blocked_then_gone.errors == [] and present.errors == []
    for result in (blocked_then_gone, present):
        said = result.transcript
        wakes = [i for i, line in enumerate(said) if line == "Просыпается мафия!"]
        assert wakes
        assert all(said[i + 1] == "Мафия засыпает." for i in wakes), said
        assert "Не вижу согласованного выстрела!" not in said
