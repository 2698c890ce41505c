"""The FIIM rules docs/RULES-FIIM.md adds to the first preset: the win and the draw (MR 1.4,
1.5), last words and the end of the game (MR 7.24, 8.6, 8.19.1), one check a night (MR 8.15),
the best move (MR 8.17.1), fouls and removal (MR 9.5.1 to 9.9, 10.11), and a check that every
rule number the page cites is tested here or in test_fiim.py, or is named below as a rule the
referee keeps and voicehost does not host.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fiimkit import FiimTable, fiim_settings
from gamekit import Table, params_of, timers, until_cards

from voicehost import config
from voicehost.game.effects import PromptKind, Say
from voicehost.game.engine import score_lines
from voicehost.game.inputs import EnterSeats, Remove, TeamLoss
from voicehost.game.model import Phase, Seat, Team, TimerKind

REPO = Path(__file__).resolve().parents[2]


def _day_1(table: FiimTable, plan: dict[int, int] | None = None) -> None:
    table.agree()
    table.speeches(plan)


def _kill_on_night_1(table: FiimTable, victim: int = 3) -> None:
    """Day 1 without a vote, then every black player shoots ``victim``."""
    _day_1(table)
    table.fiim_night(shots=(Seat(victim),) * 3)


# ---------------------------------------------------------------- MR 1.4, 1.5: the end


@pytest.mark.parametrize(
    ("rule", "nights", "expected"),
    [
        ("MR 1.5: three quiet nights with the days between: a draw", 3, "draw"),
        ("MR 1.5: fiim.draw_after_nights 0: never a draw", 0, None),
        ("MR 1.5: a longer count: not yet", 4, None),
    ],
)
def test_mr_1_5_quiet_nights_end_in_a_draw(rule: str, nights: int, expected: str | None) -> None:
    table = FiimTable(fiim_settings(draw_after_nights=nights))
    _day_1(table)
    for _ in range(3):
        assert table.phase is Phase.NIGHT_MAFIA, rule
        table.fiim_night(shots=(None, None, None))  # all miss
        if table.phase is Phase.GAME_OVER:
            break
        table.speeches()  # nobody nominated: nobody leaves
    assert table.state.record["winner"] == expected, rule
    if expected == "draw":
        assert until_cards(table.said())[-1] == "fiim.draw" and table.winner is None
        assert [line["win"] for line in table.state.record["scores"]] == [0] * 10


def test_mr_1_5_a_departure_starts_the_count_again() -> None:
    table = FiimTable()
    _day_1(table)
    table.fiim_night(shots=(None,) * 3)  # quiet night 1
    table.speeches()
    table.fiim_night(shots=(Seat(3),) * 3)  # night 2: a kill
    table.end()  # last words of 3
    for _ in range(2):
        table.speeches()
        table.fiim_night(shots=(None,) * 3)
    assert table.phase is Phase.NOMINATION  # two quiet nights since the kill: no draw yet


@pytest.mark.parametrize(
    ("rule", "final_words", "said_before_the_winner"),
    [
        ("MR 8.19.1: the last to leave speaks, then the winner", True, "day.last_words"),
        ("MR 8.19.1 off: the winner at once", False, "fiim.leaves"),
    ],
)
def test_mr_1_4_8_19_1_the_win_and_the_final_minute(
    rule: str, final_words: bool, said_before_the_winner: str
) -> None:
    """The black team wins at three against three, decided at the kill (MR 1.4)."""
    table = FiimTable(fiim_settings(game_end_last_words=final_words))
    _day_1(table, {1: 4, 3: 1})
    table.votes(7)  # 4 leaves
    table.end()
    table.fiim_night(shots=(Seat(3),) * 3)
    table.end()  # last words of 3 (no best move entered)
    table.speeches({2: 6})  # a lone nominee: 6 leaves
    table.end()
    table.fiim_night(shots=(Seat(7),) * 3)  # 3 black against 3 red
    said = until_cards(table.said())
    if final_words:
        assert table.phase is Phase.LAST_WORDS and table.state.current_speaker == 7, rule
        table.foul(Seat(2))  # nothing in that minute changes the result
        table.end()
        said = until_cards(table.said())
        assert said[-2:] == ["foul.warning", "game.black_wins"], rule
    else:
        assert said[-3:] == ["fiim.morning", "fiim.killed", "game.black_wins"], rule
    assert table.winner is Team.BLACK
    assert said_before_the_winner in said


# ---------------------------------------------------------------- MR 7.24, 8.6, 9.9: last words


@pytest.mark.parametrize(
    ("rule", "how", "minute"),
    [
        ("MR 7.24: a player voted out speaks 60 s", "vote", 60),
        ("MR 8.6: the night's victim speaks 60 s at the start of the day", "kill", 60),
        ("MR 9.7, 9.9: a removed player leaves without a word", "removed", None),
    ],
)
def test_mr_7_24_8_6_9_9_last_words(rule: str, how: str, minute: int | None) -> None:
    table = FiimTable()
    if how == "vote":
        _day_1(table, {1: 6, 3: 7})
        table.votes(8)
    elif how == "kill":
        _kill_on_night_1(table, 6)
    else:
        table.agree()
        table.do(Remove(Seat(6)))
    assert table.state.players[Seat(6)].left_how == how, rule
    last = [t for t in timers(table.effects) if t.timer is TimerKind.LAST_WORDS]
    assert [t.seconds for t in last] == ([minute] if minute else []), rule


# ---------------------------------------------------------------- MR 7.1, 7.15, 7.20: the vote


@pytest.mark.parametrize(
    ("rule", "counts", "expected"),
    [
        ("MR 7.1: only the nominated are voted on", (10, 0), {"left": [6]}),
        ("MR 7.15: the most votes leaves", (3, 4), {"left": [7]}),
        ("MR 7.15: the most votes leaves, first in the order", (6, 1), {"left": [6]}),
        ("MR 7.20: the same number of leaders twice is a repeated tie", (4, 2), "lift"),
    ],
)
def test_mr_7_1_7_15_7_20_the_count(
    rule: str, counts: tuple[int, ...], expected: dict[str, list[int]] | str
) -> None:
    table = FiimTable()
    _day_1(table, {1: 6, 3: 7, 4: 8})  # candidates 6, 7, 8, in that order
    for count in counts[:2]:
        table.votes(count)  # 8 gets the rest
    if expected == "lift":  # 4-2-4: 6 and 8 tie
        table.tie_speeches()
        table.votes(5)  # 6: 5, 8: 5 - two leaders again, though the votes fell differently
        assert table.phase is Phase.THIRD_VOTE, rule
        return
    assert isinstance(expected, dict)
    assert table.state.record["days"][0]["left"] == expected["left"], rule
    voted = table.state.record["days"][0]["votes"][0]["counts"]
    assert set(voted) == {"6", "7", "8"} and sum(voted.values()) == 10, rule


# ---------------------------------------------------------------- MR 8.15: one check a night


@pytest.mark.parametrize("phase", [Phase.NIGHT_DON, Phase.NIGHT_SHERIFF])
def test_mr_8_15_one_check_a_night(phase: Phase) -> None:
    table = FiimTable()
    _day_1(table)
    table.shoot(None, None, None)
    table.time_up()
    if phase is Phase.NIGHT_SHERIFF:
        table.time_up()
    table.enter(Seat(1))
    assert table.reject(EnterSeats((Seat(7),))).code == "fiim_already_checked"


# ---------------------------------------------------------------- MR 8.17.1: the best move


@pytest.mark.parametrize(
    ("rule", "victim", "named", "black", "points"),
    [
        ("three black: fiim.score_best_move_3", 3, (2, 5, 9), 3, 0.7),
        ("two black: fiim.score_best_move_2", 3, (2, 9, 6), 2, 0.5),
        ("one black: nothing", 3, (2, 6, 7), 1, 0.0),
        ("no black: nothing", 3, (1, 6, 7), 0, 0.0),
        ("a black victim earns nothing", 9, (2, 5, 1), 2, 0.0),
    ],
)
def test_mr_8_17_1_the_best_move_is_recorded_and_scored(
    rule: str, victim: int, named: tuple[int, ...], black: int, points: float
) -> None:
    table = FiimTable()
    _kill_on_night_1(table, victim)
    assert table.prompt.action == "best_move" and table.prompt.subject == victim
    assert table.said()[-2:] == ["fiim.best_move", "day.last_words"]
    table.enter(*map(Seat, named))
    assert params_of(table.effects, "fiim.best_move_taken") == [{"seat": victim, "seats": named}]
    record = table.state.record["best_move"]
    assert record == {"seat": victim, "seats": list(named), "black": black}, rule
    assert table.prompt.kind is PromptKind.NONE  # one best move, then the minute goes on
    table.state.record["winner"] = "red"  # as if the town went on to win
    scored = score_lines(table.state.record, fiim_settings().game, table.engine.ruleset)
    line = next(line for line in scored if line["seat"] == victim)
    assert line["best_move"] == points, rule


@pytest.mark.parametrize(
    ("rule", "entry", "code"),
    [
        ("three seats, not two", (2, 5), "wrong_seat_count"),
        ("not one's own seat", (3, 5, 9), "fiim_best_move_self"),
        ("three different seats", (2, 2, 9), "duplicate_seats"),
        ("seats of this table", (2, 5, 11), "no_such_seat"),
    ],
)
def test_mr_8_17_1_a_wrong_best_move_is_refused(
    rule: str, entry: tuple[int, ...], code: str
) -> None:
    table = FiimTable()
    _kill_on_night_1(table, 3)
    assert table.reject(EnterSeats(tuple(map(Seat, entry)))).code == code, rule


@pytest.mark.parametrize(
    ("rule", "setup"),
    [
        ("two left by the vote on day 1: no best move", "two_left"),
        ("night 1 a miss: no best move on night 2", "miss_first"),
        ("fiim.best_move false", "off"),
    ],
)
def test_mr_8_17_1_when_there_is_no_best_move(rule: str, setup: str) -> None:
    table = FiimTable(fiim_settings(best_move=setup != "off"))
    if setup == "two_left":
        _day_1(table, {1: 6, 3: 7})
        table.votes(5)
        table.tie_speeches()
        table.votes(5)
        table.votes(6)  # «поднять всех»: 6 and 7 leave
        table.end()
        table.end()
        table.fiim_night(shots=(Seat(3),) * 3)
    elif setup == "miss_first":
        _day_1(table)
        table.fiim_night(shots=(None,) * 3)
        table.speeches()
        table.fiim_night(shots=(Seat(3),) * 3)
    else:
        _kill_on_night_1(table, 3)
    assert table.phase is Phase.LAST_WORDS and table.state.current_speaker == 3, rule
    assert table.prompt.kind is PromptKind.NONE and "fiim.best_move" not in table.said(), rule


# ---------------------------------------------------------------- MR 9.5.1 to 9.8: fouls


@pytest.mark.parametrize(
    ("rule", "fouls", "said", "left"),
    [
        ("MR 9.5: the first foul is a warning", 1, ["foul.warning"], None),
        ("MR 9.5: the second too", 2, ["foul.warning"], None),
        (
            "MR 9.5.1: the third costs the next speech",
            3,
            ["foul.warning", "fiim.speech_lost"],
            None,
        ),
        ("MR 9.7: the fourth removes at once", 4, ["fiim.removed"], "removed"),
    ],
)
def test_mr_9_5_to_9_7_fouls(rule: str, fouls: int, said: list[str], left: str | None) -> None:
    table = FiimTable()
    table.agree()
    for _ in range(fouls):
        table.foul(Seat(7))
    assert table.said()[-len(said) :] == said, rule
    assert table.state.players[Seat(7)].left_how == left, rule


@pytest.mark.parametrize(
    ("rule", "living_at_the_speech", "key", "seconds"),
    [
        (
            "MR 9.5.1: the next speech is lost; a short window to nominate",
            10,
            "fiim.speech_skipped",
            10,
        ),
        ("MR 9.5.1: at three or four players a 30 s speech instead", 4, "fiim.short_speech", 30),
    ],
)
def test_mr_9_5_1_the_lost_speech(
    rule: str, living_at_the_speech: int, key: str, seconds: int
) -> None:
    table = FiimTable()
    table.agree()
    if living_at_the_speech == 4:
        for seat in (1, 2, 3, 5, 6, 8):  # six removals leave 4, 7, 9, 10: one black, three red
            table.do(Remove(Seat(seat)))
    for _ in range(3):
        table.foul(Seat(7))
    while table.state.current_speaker != 7:
        table.end()
    assert table.said()[-1] == key, rule
    assert timers(table.effects)[-1].seconds == seconds, rule
    resumed = table.engine.resume_effects(table.state)  # after a power cut: the same words
    assert [e.key for e in resumed if isinstance(e, Say)] == ["game.resumed", key], rule
    table.enter(Seat(9))  # the player may still nominate
    assert table.state.nominations[Seat(7)] == [9]


def test_mr_9_5_1_only_the_next_speech_is_lost() -> None:
    table = FiimTable()
    table.agree()
    for _ in range(3):
        table.foul(Seat(1))  # seat 1 is speaking: that speech goes on, the next one is lost
    assert table.state.current_speaker == 1 and table.state.speech_running
    table.speeches()
    table.fiim_night(shots=(None,) * 3)
    table.speeches()  # day 2 opens with seat 2; seat 1 speaks last, and loses it
    table.fiim_night(shots=(None,) * 3)
    assert "fiim.speech_skipped" in table.said()
    table.speeches()  # day 3: normal again
    assert table.said().count("fiim.speech_skipped") == 1


@pytest.mark.parametrize(
    ("rule", "when", "vote_today", "vote_tomorrow"),
    [
        ("MR 9.8: removed during the speeches: no vote today", "speeches", False, True),
        ("MR 9.8: removed during the vote: the vote stops", "vote", False, True),
        ("MR 9.8: removed after the result: no vote tomorrow", "last_words", True, False),
        ("fiim.removal_cancels_vote false: the vote goes on", "off", True, True),
    ],
)
def test_mr_9_8_what_a_removal_does_to_the_vote(
    rule: str, when: str, vote_today: bool, vote_tomorrow: bool
) -> None:
    table = FiimTable(fiim_settings(removal_cancels_vote=when != "off"))
    table.agree()
    plan = {1: 6, 3: 7}
    if when in ("speeches", "off"):
        table.do(Remove(Seat(10)))
        table.speeches(plan)
    else:
        table.speeches(plan)
        if when == "vote":
            table.do(Remove(Seat(10)))
        else:
            table.votes(8)
            assert table.phase is Phase.LAST_WORDS
            table.do(Remove(Seat(10)))
            table.end()
    if table.phase is Phase.VOTE:
        table.votes(7)
        table.end()  # last words of 6
    day1 = table.state.record["days"][0]
    assert bool(day1["votes"]) is vote_today, rule
    assert day1.get("vote_cancelled", False) is not vote_today, rule
    table.fiim_night(shots=(None,) * len(table.state.night_actions.shots or [0, 0, 0]))
    table.speeches({2: 1, 4: 8})
    assert (table.phase is Phase.VOTE) is vote_tomorrow, rule


@pytest.mark.parametrize(
    ("rule", "preset", "code"),
    [
        ("MR 10.11 to 10.20: removal at once", "fiim", None),
        ("the club rules remove by fouls only (RULES.md)", "club", "remove_not_in_club"),
    ],
)
def test_mr_10_11_removal_at_once(rule: str, preset: str, code: str | None) -> None:
    table = FiimTable() if preset == "fiim" else Table(config.loads(""))
    if preset == "fiim":
        table.agree()  # type: ignore[attr-defined]
        table.do(Remove(Seat(6)))
        assert table.state.players[Seat(6)].left_how == "removed", rule
        assert table.reject(Remove(Seat(6))).code == "seat_left"
    else:
        assert table.reject(Remove(Seat(6))).code == code, rule


@pytest.mark.parametrize(
    ("rule", "when", "seat", "winner"),
    [
        ("MR 10.21 to 10.24: a black player's fault by day: red wins", "day", 2, Team.RED),
        ("MR 10.21 to 10.24: a red player's fault at night: black wins", "night", 7, Team.BLACK),
        ("MR 10.21 to 10.24: a player who has left can still cost the team", "left", 6,
         Team.BLACK),
    ],
)  # fmt: skip
def test_mr_10_21_to_10_24_a_team_loss_ends_the_game(
    rule: str, when: str, seat: int, winner: Team
) -> None:
    table = FiimTable()
    table.agree()
    if when == "night":
        table.speeches()
    elif when == "left":
        table.do(Remove(Seat(6)))
    assert table.reject(TeamLoss(Seat(seat))).code == "team_loss_confirm", rule
    table.do(TeamLoss(Seat(seat), confirmed=True))
    assert table.phase is Phase.GAME_OVER and table.winner is winner, rule
    assert until_cards(table.said())[-2:] == ["fiim.team_loss", f"game.{winner.value}_wins"], rule
    assert params_of(table.effects, "fiim.team_loss") == [{"seat": seat}], rule
    scores = {line["seat"]: line for line in table.state.record["scores"]}
    removal = -0.5 if when == "left" else 0.0
    assert scores[Seat(seat)]["penalty"] == pytest.approx(removal - 0.7), rule
    assert scores[Seat(seat)]["win"] == 0, rule
    assert sum(line["win"] for line in scores.values()) == (7 if winner is Team.RED else 3)
    assert table.state.record["team_loss"]["seat"] == seat, rule


def test_mr_10_21_a_team_loss_waits_for_the_roles_and_is_not_the_club_s() -> None:
    table = FiimTable()
    table.enter(Seat(2), Seat(5), Seat(9))  # night 0: the black team is still being seen
    assert table.reject(TeamLoss(Seat(2), confirmed=True)).code == "team_loss_before_morning"
    club = Table(config.loads(""))
    assert club.reject(TeamLoss(Seat(2), confirmed=True)).code == "team_loss_not_in_club"


def test_mr_9_7_a_removal_at_night_is_told_in_the_morning() -> None:
    table = FiimTable()
    _day_1(table)
    table.shoot(Seat(3))
    for _ in range(4):
        table.foul(Seat(7))  # silent at night: no seat number is spoken
    assert "fiim.removed" not in table.said()
    table.shoot(Seat(3), Seat(3))
    for _ in range(3):
        table.time_up()
    said = table.said()
    morning = said.index("fiim.morning", len(said) - 6)
    assert said[morning : morning + 3] == ["fiim.morning", "fiim.killed", "fiim.removed"]
    assert params_of(table.effects, "fiim.removed") == [{"seat": 7}]
    assert table.state.record["nights"][1]["disqualified"] == [7]


# ---------------------------------------------------------------- every rule number is tested

#: The rules the page cites that voicehost leaves to the referee, each with the reason.
NOT_HOSTED = {
    "MR 1.3": "the referee and side referees are people",
    "MR 4.2": "the seats are drawn by the tournament",
    "MR 4.4": "the cards are dealt by hand; the host waits for the deal",
    "MR 4.5": "the night pose is the players'",
    "MR 6.3.2": "the other leagues' rotation (next_closer) is not offered",
    "MR 6.6": "«Пас»/«Спасибо» are the stop words, tested in tests/voice_in",
    "MR 6.7.1": "naming colours on record has no effect: nothing to host",
    "MR 7.7": "a question to the referee is the referee's to refuse",
    "MR 7.9": "the two seconds of a count are the referee's",
    "MR 7.14": "a hand pulled back is the referee's to count",
    "MR 7.18.1": "the reversed revote order of other leagues is not offered",
    "MR 7.21.2": "the lift of the whole table as a draw (other leagues) is not offered",
    "MR 7.23.3": "the lift of three at nine on later days (other leagues) is not offered",
    "MR 8.1": "masks go on at the host's «Наступает ночь»",
    "MR 8.16": "the night behaviour is the players'",
    "MR 9.3": "the scale of penalties: each step is tested by its own rule",
    "MR 9.4": "tournament penalties are the regulation's (extra points at --score)",
    "MR 9.6.1": "FIIM has no technical fouls: nothing to host",
    "MR 10.1": "which act is a foul is the referee's judgement; the host counts fouls",
    "MR 8.20": "the referee's extra points: tests/host/test_fiim_scores.py",
}


def _cited(text: str) -> set[str]:
    return {f"MR {m}" for m in re.findall(r"MR (\d+\.\d+(?:\.\d+)?)", text)}


def _tested() -> set[str]:
    found: set[str] = set()
    for path in [*(REPO / "tests").rglob("test_*.py"), REPO / "tests/game/golden/fiim.script"]:
        text = path.read_text(encoding="utf-8")
        found |= _cited(text) | _ranges(text)
        for name in re.findall(r"def test_mr_((?:\d+_)+)(?!to_)", text):
            parts = [p for p in name.split("_") if p]
            found |= _named(parts)
    return found


def _named(parts: list[str]) -> set[str]:
    """``test_mr_7_17_7_18_...`` names MR 7.17 and MR 7.18; an odd number of parts ends in a
    third level (``test_mr_6_1_6_3_1``: MR 6.1 and MR 6.3.1)."""
    pairs = [f"MR {parts[i]}.{parts[i + 1]}" for i in range(0, len(parts) - 1, 2)]
    if len(parts) % 2 and pairs:
        pairs.append(f"{pairs[-1]}.{parts[-1]}")  # the rule and its point: MR 8.17, 8.17.1
    return set(pairs)


def _ranges(text: str) -> set[str]:
    """``test_mr_8_8_to_8_14`` names MR 8.8 to MR 8.14."""
    cited: set[str] = set()
    for major, low, _, high in re.findall(r"def test_mr_(\d+)_(\d+)_to_(\d+)_(\d+)", text):
        cited |= {f"MR {major}.{n}" for n in range(int(low), int(high) + 1)}
    return cited


def test_every_rule_the_page_cites_is_tested_or_named_as_the_referees() -> None:
    page = (REPO / "docs" / "RULES-FIIM.md").read_text(encoding="utf-8")
    cited = _cited(page)
    missing = sorted(
        cited - _tested() - set(NOT_HOSTED), key=lambda r: [int(x) for x in r[3:].split(".")]
    )
    assert missing == [], f"no test cites {missing}; add a table row citing it or a reason"
    assert set(NOT_HOSTED) <= cited, "a reason for a rule the page does not cite"
