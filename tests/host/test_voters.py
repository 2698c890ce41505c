"""Votes as clubs record them: `3: 1 4 6 9` names who raised their mask; the list is checked
against the table, the count follows from it, undo takes it back, and the protocol keeps it."""

from __future__ import annotations

from pathlib import Path

from voicehost import config
from voicehost.console.script import run_script
from voicehost.host import protocol
from voicehost.host.votes import voters_in

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def town_wins(replace: dict[str, list[str]]) -> list[str]:
    """town-wins.txt with the line whose comment starts with a key replaced by lines."""
    lines = []
    for line in (EXAMPLES / "town-wins.txt").read_text(encoding="utf-8").splitlines():
        key = next((key for key in replace if key in line), None)
        lines.extend(replace.pop(key) if key else [line])
    return lines


def test_a_voter_list_is_a_count_and_the_protocol_says_who_voted(tmp_path: Path) -> None:
    journal = tmp_path / "game.jsonl"
    script = town_wins({"# 8 votes against 5": ["5: 1 2 3 4 6 7 8 10"]})
    result = run_script(script, config.load(None), journal_path=journal)
    assert not result.errors, result.errors
    counts = result.protocol["days"][0]["votes"][0]["counts"]
    assert counts == {"5": 8, "9": 2}
    assert result.protocol["voters"] == [
        {"day": 1, "round": 1, "candidate": 5, "seats": [1, 2, 3, 4, 6, 7, 8, 10]}
    ]
    assert [v.voters for v in voters_in(journal)] == [(1, 2, 3, 4, 6, 7, 8, 10)]
    table = protocol.to_table(result.protocol, result.host.book)
    assert "против 5 — 1, 2, 3, 4, 6, 7, 8, 10" in table


def test_a_wrong_voter_list_is_refused_with_its_reason_and_nothing_changes(
    tmp_path: Path,
) -> None:
    wrong = ["9: 1 2", "5: 5 1", "5: 1 1", "5: 14", "5: 0"]
    script = town_wins({"# 8 votes against 5": [*wrong, "5: 1 2 3 4 6 7 8 10"]})
    result = run_script(script, config.load(None), journal_path=tmp_path / "g.jsonl")
    reasons = [error.split(": ", 1)[1] for error in result.errors]
    assert len(reasons) == 5, result.errors
    assert "против игрока 5, не 9" in reasons[0]
    assert "не голосует против себя" in reasons[1]
    assert "дважды" in reasons[2]
    assert "Места 14 нет" in reasons[3]
    assert "Места 0 нет" in reasons[4]
    assert result.host.over
    assert result.protocol["days"][0]["votes"][0]["counts"] == {"5": 8, "9": 2}


def test_undo_takes_the_voters_back_with_their_count(tmp_path: Path) -> None:
    journal = tmp_path / "game.jsonl"
    script = town_wins({"# 8 votes against 5": ["5: 1 2 3", "u", "5: 1 2 3 4 6 7 8 10"]})
    result = run_script(script, config.load(None), journal_path=journal)
    assert not result.errors, result.errors
    assert [v.voters for v in voters_in(journal)] == [(1, 2, 3, 4, 6, 7, 8, 10)]
    assert len(result.protocol["voters"]) == 1


def test_a_player_who_left_does_not_vote(tmp_path: Path) -> None:
    # Day 2: seat 5 left by the vote on day 1
    script = town_wins({"# 8 votes against 5": ["5: 1 2 3 4 6 7 8 10"]})
    at = script.index("# candidates: 9 and 2")
    rest = script[at:]
    vote = next(n for n, line in enumerate(rest) if line.strip().split("#")[0].strip().isdigit())
    rest[vote] = "2: 5 1"  # seats are voted on in seat order: 2 first
    result = run_script(script[:at] + rest, config.load(None), journal_path=tmp_path / "g.jsonl")
    assert any("Игрок 5 уже покинул стол" in error for error in result.errors), result.errors


# A city game of 10 (Don 2, mafia 5 and 9): seat 8 leaves on day 1; on night 1 the «путана»
# spends the night with seat 6, who does not vote on day 2. Nine at the table (seat 8 left),
# eight voters.
def city_to_day_2(client: int = 6) -> list[str]:
    """The script to day 2's vote (candidates 6 and 10), the «путана» with ``client``."""
    return (
        ["preset city", "2 5 9", *["wait", "5", "wait", "4", "wait", "7", "wait", "1", "wait"]]
        + ["8", "wait", "3", "wait", "."]
        + [line for seat in (8, 8, 8, 8, 8, 8, 8, 1, 8, 8) for line in (str(seat), ".")]
        + ["wait", "wait", "1", ".", "wait", str(client), "wait", "miss", *["wait"] * 5, "."]
        + [line for seat in (6, 6, 6, 6, 6, 10, 6, 6, 6) for line in (str(seat), ".")]
        + ["wait", "wait"]
    )


def test_a_candidate_who_spent_the_night_with_the_putana_can_get_every_voter_s_vote() -> None:
    # Seat 6 does not vote today, so no vote of theirs is kept back: all eight voters may
    # raise their masks against them (a unanimous vote); nine would be more than the voters.
    settings = config.load(None)
    result = run_script([*city_to_day_2(), "9", "8"], settings)
    [refused] = result.errors
    assert "Голосуют 8 игроков (игрок 6 сегодня не голосует: ночь с путаной)" in refused
    assert "а введено 9" in refused
    said = [line for line in result.transcript if "Против игрока номер шесть" in line]
    assert said and "восемь голосов" in said[-1]


def test_a_voter_list_naming_the_putana_s_client_is_refused() -> None:
    settings = config.load(None)
    script = [*city_to_day_2(client=7), "6: 1 2 3 4 5 7 9 10", "6: 1 2 3 4 5 9 10"]
    result = run_script(script, settings)
    assert len(result.errors) == 1 and "Игрок 7 сегодня не голосует" in result.errors[0]
    assert "провёл ночь с путаной" in result.errors[0]
    assert result.protocol["voters"][-1]["seats"] == [1, 2, 3, 4, 5, 9, 10]


def test_a_count_stopped_by_a_disqualification_stays_in_the_protocol() -> None:
    # 5 : 5 counted (a tie); in the pause before anyone leaves seat 9 gets a third foul and is
    # disqualified: the vote starts again with 5 alone, and the protocol keeps the count the
    # table gave as well as the one that sent 5 away.
    script = town_wins({"# 8 votes against 5": ["5", "f 9", "f 9", "f 9"]})
    result = run_script(script, config.load(None))
    votes = result.protocol["days"][0]["votes"]
    assert votes[0] == {"round": 1, "counts": {"5": 5, "9": 5}, "interrupted_by": 9}
    assert votes[-1]["counts"] == {"5": 8}  # nine at the table, the candidate keeps his own
    table = protocol.to_table(result.protocol, result.host.book)
    assert "голосование (прервано: игрок 9 удалён, голосование начато заново): 5: 5, 9: 5" in table


def test_after_a_vote_starts_again_its_voters_may_vote_again() -> None:
    # Day 2 of revote-and-third-vote.txt: candidates 3, 6 and 9. Seats 1, 2 and 4 vote against
    # 3; then seat 9 is removed and the vote starts again: they raise their masks again.
    lines = (EXAMPLES / "revote-and-third-vote.txt").read_text(encoding="utf-8").splitlines()
    cut = next(i for i, line in enumerate(lines) if "# 3 votes against seat 3" in line)
    again = ["3: 1 2 4", "f 9", "f 9", "f 9", "3: 1 2 4"]  # the third foul disqualifies
    result = run_script([*lines[:cut], *again], config.load(None))
    assert not result.errors, result.errors
    assert result.protocol["days"][1]["votes"][0]["interrupted_by"] == 9
    assert [v["seats"] for v in result.protocol["voters"]] == [[1, 2, 4], [1, 2, 4]]


def test_a_city_protocol_marks_what_the_putana_s_client_did_and_names_each_check_once() -> None:
    # city-town-wins.txt, night 2: the «путана» visits the Maniac (8), whose shot at 4 is
    # entered but takes nobody; the Commissar's check is the night's «проверка» line only.
    lines = (EXAMPLES / "city-town-wins.txt").read_text(encoding="utf-8").splitlines()
    result = run_script(lines, config.load(None))
    table = protocol.to_table(result.protocol, result.host.book)
    night_2 = table.split("Ночь 2")[1].split("День 3")[0]
    assert "маньяк: выстрел 4 (без последствий: ночь с путаной)" in night_2
    assert "Дон: проверка 1\n" in night_2  # the Don was not her client: his check stands
    assert "проверка: 5 (мафия)" in night_2 and "комиссар: проверка" not in table


def test_a_fiim_protocol_names_the_lift_vote_as_the_game_said_it() -> None:
    lines = (EXAMPLES / "fiim-lift-all.txt").read_text(encoding="utf-8").splitlines()
    result = run_script(lines, config.load(None))
    table = protocol.to_table(result.protocol, result.host.book)
    assert "голосование «поднять всех»: 6 из 10 за -> все уходят" in table
    assert "«уходят все»" not in table


def test_a_lift_the_rules_bar_is_said_so_not_as_none_of_none() -> None:
    # MR 7.21 to 7.23: the table cannot be split (nine players, three tied): no vote is held.
    from voicehost.host.protocol import _day_lines
    from voicehost.phrases import PhraseBook

    book = PhraseBook.load("ru")
    day = {
        "day": 2, "nominations": {}, "candidates": [1, 2, 3], "votes": [], "left": [],
        "third_vote": {"candidates": [1, 2, 3], "votes_for": None, "voters": None,
                       "outcome": "all_stay", "four_players": False},
    }  # fmt: skip
    said = "\n".join(_day_lines(day, lambda key, **p: book.screen(f"protocol_{key}", p), True))
    assert "«поднять всех» не голосуют по правилам (стол не разделить) -> все остаются" in said
    assert "None" not in said


def test_a_vote_started_again_is_voted_afresh_after_a_resume_too(tmp_path: Path) -> None:
    # The same as above, with the power cut between the removal and the second list.
    lines = (EXAMPLES / "revote-and-third-vote.txt").read_text(encoding="utf-8").splitlines()
    cut = next(i for i, line in enumerate(lines) if "# 3 votes against seat 3" in line)
    journal = tmp_path / "game.jsonl"
    first = ["3: 1 2 4", "f 9", "f 9", "f 9"]
    run_script([*lines[:cut], *first], config.load(None), journal_path=journal)
    copy = tmp_path / "after-the-cut.jsonl"  # the journal as the power cut left it
    copy.write_bytes(journal.read_bytes())
    result = run_script(["3: 1 2 4"], config.load(None), resume=True, journal_path=copy)
    assert not result.errors, result.errors
    assert [v["seats"] for v in result.protocol["voters"]] == [[1, 2, 4], [1, 2, 4]]
