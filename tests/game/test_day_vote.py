"""Defence, the vote, the revote, the third vote and last words (RULES.md "Day" 4-7)."""

from __future__ import annotations

import pytest
from gamekit import (
    Table,
    at_day_one,
    at_vote,
    keys,
    make_settings,
    params_of,
    plan_for,
    timers,
)

from voicehost.game.effects import PromptKind
from voicehost.game.inputs import EnterSeats, VoteCount
from voicehost.game.model import Phase, TimerKind
from voicehost.phrases import PhraseBook


def record_counts(table: Table) -> list[dict[int, int]]:
    """Each vote round of the current day, as the protocol records it."""
    day = table.state.record["days"][-1]
    return [{int(s): n for s, n in vote["counts"].items()} for vote in day["votes"]]


def left_by_vote(table: Table) -> list[int]:
    return [seat for seat, p in sorted(table.state.players.items()) if p.left_how == "vote"]


# ---- defence -------------------------------------------------------------------------------


def test_each_candidate_defends_for_30_seconds_in_seat_order() -> None:
    table = at_day_one()
    table.end()
    table.nominate(plan_for(6, 3))
    mark = table.mark()
    assert table.phase is Phase.DEFENCE
    table.defend()
    defended = [p["seat"] for p in params_of(table.log, "day.defence")]
    assert defended == [3, 6]
    started = [t for t in timers(table.log) if t.timer is TimerKind.DEFENCE_SPEECH]
    assert [(t.seconds, t.listen, t.speaker) for t in started] == [(30, True, 3), (30, True, 6)]
    assert keys(table.since(mark))[-2:] == ["day.vote_start", "day.vote_for"]


def test_a_defence_ends_when_its_time_runs_out() -> None:
    table = at_day_one()
    table.end()
    table.nominate(plan_for(3, 6))
    effects = table.time_up()
    assert params_of(effects, "day.defence") == [{"seat": 6}]


# ---- the vote ------------------------------------------------------------------------------


def test_one_vote_per_candidate_in_seat_order_the_remainder_to_the_last() -> None:
    table = at_vote(1, 5, 9)
    assert params_of(table.log, "day.vote_for") == [{"seat": 1}]
    prompt = table.prompt
    assert (prompt.kind, prompt.subject, prompt.max_count) == (PromptKind.VOTE_COUNT, 1, 9)
    assert params_of(table.votes(4), "day.vote_for") == [{"seat": 5}]
    assert table.prompt.subject == 5 and table.prompt.max_count == 6
    effects = table.votes(3)  # the last candidate is not counted: 10 - 4 - 3 = 3
    assert params_of(effects, "day.vote_for") == [{"seat": 9}]
    assert params_of(effects, "day.vote_result") == [
        {"seat": 5, "votes": 3},
        {"seat": 9, "votes": 3},
    ]
    assert record_counts(table) == [{1: 4, 5: 3, 9: 3}]
    assert params_of(effects, "day.leaves") == [{"seat": 1, "role": "civilian"}]
    assert left_by_vote(table) == [1]
    assert table.phase is Phase.LAST_WORDS


@pytest.mark.parametrize(
    ("candidates", "counts", "expected"),
    [
        # the last candidate cannot vote against themselves: that vote goes to the one before
        ((3, 6), (0,), {3: 1, 6: 9}),
        ((1, 5, 9), (0, 0), {1: 0, 5: 1, 9: 9}),
        ((1, 5, 9), (3, 0), {1: 3, 5: 0, 9: 7}),
        ((1, 5, 9), (9, 1), {1: 9, 5: 1, 9: 0}),
        ((3, 6), (9,), {3: 9, 6: 1}),
    ],
)
def test_the_vote_counts_always_add_up_to_the_voters(
    candidates: tuple[int, ...], counts: tuple[int, ...], expected: dict[int, int]
) -> None:
    table = at_vote(*candidates)
    for count in counts:
        table.votes(count)
    assert record_counts(table)[0] == expected
    assert sum(expected.values()) == 10


@pytest.mark.parametrize(
    ("candidates", "counts", "bad", "code"),
    [
        ((1, 5, 9), (6,), 5, "votes_exceed_voters"),  # 6 + 5 > 10 voters
        ((1, 5, 9), (), 10, "self_vote"),  # all 10 against 1: 1 cannot vote against themselves
        ((3, 6), (), 10, "self_vote"),
        ((1, 5, 9), (), -1, "negative_count"),
    ],
)
def test_impossible_vote_counts_are_refused(
    candidates: tuple[int, ...], counts: tuple[int, ...], bad: int, code: str
) -> None:
    table = at_vote(*candidates)
    for count in counts:
        table.votes(count)
    violation = table.reject(VoteCount(bad))
    assert violation.code == code
    if code == "votes_exceed_voters":
        assert dict(violation.params) == {"total": 11, "voters": 10}
    if code == "self_vote":
        assert dict(violation.params) == {"seat": candidates[0], "limit": 9}


def test_seats_are_not_a_vote_and_a_vote_is_not_a_nomination() -> None:
    table = at_vote(3, 6)
    assert table.reject(EnterSeats((3,))).code == "not_now"
    day = at_day_one()
    assert day.reject(VoteCount(3)).code == "not_now"


def test_a_single_candidate_gets_every_other_vote_and_leaves() -> None:
    table = at_day_one()
    table.foul(6)
    table.foul(6)
    table.end()
    for speaker in (1, 2, 3, 4, 5):
        table.enter(6 if speaker == 5 else 5)
        table.end()
    table.foul(6)  # third warning: 6 is disqualified; 5 is the only nominee left at the table
    mark = table.mark()
    table.nominate(lambda speaker: (5,))
    table.defend()
    effects = table.since(mark)
    assert params_of(effects, "day.single_candidate") == [{"seat": 5}]
    assert "day.vote_for" not in keys(effects)
    assert params_of(effects, "day.vote_result") == [{"seat": 5, "votes": 8}]  # 9 at the table
    assert record_counts(table) == [{5: 8}]
    assert left_by_vote(table) == [5]
    assert params_of(effects, "day.last_words") == [{"seat": 5}]


# ---- the revote ----------------------------------------------------------------------------


def test_a_tie_for_most_votes_means_a_revote_after_a_second_defence() -> None:
    table = at_vote(3, 6)
    effects = table.votes(5)  # 5 against 3, 5 against 6
    assert params_of(effects, "day.revote") == [{"seats": (3, 6)}]
    assert params_of(effects, "day.defence") == [{"seat": 3}]
    assert left_by_vote(table) == []
    table.defend()
    assert [p["seat"] for p in params_of(table.log, "day.defence")] == [3, 6, 3, 6]
    effects = table.votes(6)
    assert params_of(effects, "day.leaves") == [{"seat": 3, "role": "civilian"}]
    assert record_counts(table) == [{3: 5, 6: 5}, {3: 6, 6: 4}]


def test_the_revote_is_only_among_the_tied_leaders() -> None:
    table = at_vote(1, 5, 9)
    effects = table.votes(4)
    effects = table.votes(4)  # 4 / 4 / 2: seats 1 and 5 tie at the top
    assert params_of(effects, "day.revote_leaders") == [{"seats": (1, 5)}]
    assert "day.revote" not in keys(effects)  # 4-4-2 is not «голоса разделились поровну»
    table.defend()
    assert [p["seat"] for p in params_of(table.log, "day.defence")] == [1, 5, 9, 1, 5]
    assert table.prompt.subject == 1
    effects = table.votes(3)  # the remaining 7 go to 5 (the last candidate now)
    assert record_counts(table)[1] == {1: 3, 5: 7}
    assert params_of(effects, "day.leaves") == [{"seat": 5, "role": "mafia"}]


# ---- the third vote ------------------------------------------------------------------------


def at_third_vote(settings: object = None) -> Table:
    table = at_vote(3, 6, settings=settings)  # type: ignore[arg-type]
    table.votes(5)
    table.defend()
    effects = table.votes(5)
    assert keys(effects)[-1] == "day.third_vote"
    assert table.phase is Phase.THIRD_VOTE
    return table


def test_the_candidates_do_not_vote_in_the_third_vote() -> None:
    table = at_third_vote()
    prompt = table.prompt
    assert (prompt.kind, prompt.max_count) == (PromptKind.THIRD_VOTE_COUNT, 8)
    violation = table.reject(VoteCount(9))
    assert (violation.code, dict(violation.params)) == (
        "votes_exceed_voters",
        {"total": 9, "voters": 8},
    )
    assert table.reject(VoteCount(-1)).code == "negative_count"


@pytest.mark.parametrize(
    ("tie_rule", "votes_for", "outcome"),
    [
        ("all_stay", 8, "all_leave"),
        ("all_stay", 5, "all_leave"),  # a strict majority of the 8 voters
        ("all_stay", 4, "all_stay"),  # a tie is not a majority
        ("all_stay", 0, "all_stay"),
        ("all_leave", 4, "all_leave"),  # the config decision: a tie sends them all away
        ("all_leave", 3, "all_stay"),
    ],
)
def test_the_third_vote_sends_all_candidates_away_or_keeps_them_all(
    tie_rule: str, votes_for: int, outcome: str
) -> None:
    table = at_third_vote(make_settings(rules={"third_vote_tie": tie_rule}))
    effects = table.votes(votes_for)
    assert params_of(effects, "day.third_vote_result") == [{"votes": votes_for}]
    third = table.state.record["days"][-1]["third_vote"]
    assert third["outcome"] == outcome and third["voters"] == 8
    if outcome == "all_leave":
        assert "day.all_leave" in keys(effects)
        assert [p["seat"] for p in params_of(effects, "day.leaves")] == [3, 6]
        assert left_by_vote(table) == [3, 6]
        table.last_words()
        assert [p["seat"] for p in params_of(table.log, "day.last_words")] == [3, 6]
    else:
        assert keys(effects)[-3:] == ["day.all_stay", "night.start", "night.mafia_wakes"]
        assert left_by_vote(table) == []
    assert table.phase is Phase.NIGHT_MAFIA


# ---- the 4-players rule --------------------------------------------------------------------


def four_at_the_table(settings_rules: dict[str, object] | None = None) -> Table:
    """8 seats, mafia 1 and 2; seats 2, 6, 7, 8 disqualified on night 0: 1, 3, 4, 5 are left."""
    table = Table(make_settings(8, rules=settings_rules))
    for seat in (2, 6, 7, 8):
        table.foul(seat)
    table.register(mafia=(1, 2), commissar=3, doctor=4)
    assert table.living() == [1, 3, 4, 5]
    assert table.phase is Phase.DISCUSSION
    return table


def test_with_four_players_the_third_vote_is_skipped_and_all_stay() -> None:
    table = four_at_the_table()
    table.day({1: (3,), 3: (1,), 4: (1,), 5: (3,)}, 2)  # 2 against 1, 2 against 3
    table.defend()
    effects = table.votes(2)  # the revote ties again
    assert keys(effects)[-3:] == ["day.four_players", "night.start", "night.mafia_wakes"]
    assert "day.third_vote" not in keys(table.log)
    third = table.state.record["days"][-1]["third_vote"]
    assert third["outcome"] == "all_stay" and third["four_players"] is True
    assert table.living() == [1, 3, 4, 5]


def test_the_4_players_rule_can_be_switched_off() -> None:
    table = four_at_the_table({"four_players_skip_third_vote": False})
    table.day({1: (3,), 3: (1,), 4: (1,), 5: (3,)}, 2)
    table.defend()
    effects = table.votes(2)
    assert keys(effects)[-1] == "day.third_vote"
    assert table.prompt.max_count == 2


# ---- last words ----------------------------------------------------------------------------


def test_a_player_voted_out_reveals_the_card_and_gets_15_seconds_of_last_words() -> None:
    table = at_vote(3, 6)
    table.votes(7, settle=False)
    effects = table.time_up()  # nobody corrects the count
    assert keys(effects)[-2:] == ["day.leaves", "day.last_words"]
    assert params_of(effects, "day.leaves") == [{"seat": 3, "role": "civilian"}]
    started = timers(effects)
    assert [(t.timer, t.seconds, t.listen, t.speaker) for t in started] == [
        (TimerKind.LAST_WORDS, 15, True, 3)
    ]
    effects = table.end()
    assert keys(effects) == ["night.start", "night.mafia_wakes"]


def test_last_words_after_a_vote_can_be_switched_off() -> None:
    table = at_vote(3, 6, settings=make_settings(rules={"last_words_after_vote": False}))
    effects = table.votes(7)
    assert keys(effects)[-3:] == ["day.leaves", "night.start", "night.mafia_wakes"]


def test_more_votes_than_people_at_the_table_is_said_to_be_about_the_table() -> None:
    table = at_vote(5, 9)
    refusal = table.reject(VoteCount(11))  # 10 players: a typo for 1
    assert refusal.code == "votes_exceed_table"
    assert PhraseBook.load("ru").error(refusal.code, refusal.params) == (
        "За столом 10 игроков, а введено 11: столько рук не поднять, проверьте число."
    )
    assert table.reject(VoteCount(10)).code == "self_vote"  # all ten: the candidate too
