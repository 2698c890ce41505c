"""What a club host says that the bare rules leave implicit: the candidates are recalled when the
vote starts, a tie is called «поровну» only when it is one, the third vote is named and says whom
it is about, a nomination is confirmed only when the club wants it, and a shot at a player who
left for a foul that night is not called a miss."""

from __future__ import annotations

from gamekit import at_day_one, at_vote, keys, make_settings, params_of, plan_for

from voicehost.game.model import Phase


def test_the_vote_starts_by_recalling_the_candidates() -> None:
    table = at_day_one()
    table.end()
    table.nominate(plan_for(3, 6, 8))
    mark = table.mark()
    table.defend()
    said = table.since(mark)
    assert params_of(said, "day.vote_start") == [{"seats": (3, 6, 8)}]
    assert keys(said)[-2:] == ["day.vote_start", "day.vote_for"]


def test_a_lone_candidate_is_named_when_the_vote_starts() -> None:
    table = at_day_one()
    table.end()
    table.nominate(lambda speaker: (4,) if speaker != 4 else (5,))
    assert table.state.candidates == [4, 5]
    for _ in range(3):
        table.foul(5)  # the second candidate is disqualified during the defence
    mark = table.mark()
    table.defend()
    said = table.since(mark)
    assert params_of(said, "day.vote_start_single") == [{"seat": 4}]
    assert "day.vote_start" not in keys(said)
    assert params_of(said, "day.vote_result") == [{"seat": 4, "votes": 8}]


def test_a_tie_at_the_top_is_not_called_an_equal_split() -> None:
    table = at_vote(1, 5, 9)
    table.votes(4)
    effects = table.votes(4)  # 4 / 4 / 2
    assert params_of(effects, "day.revote_leaders") == [{"seats": (1, 5)}]
    assert "day.revote" not in keys(effects)


def test_an_equal_split_is_called_so() -> None:
    table = at_vote(3, 6)
    effects = table.votes(5)  # 5 / 5
    assert params_of(effects, "day.revote") == [{"seats": (3, 6)}]
    assert "day.revote_leaders" not in keys(effects)


def test_the_third_vote_is_named_and_says_whom_it_is_about() -> None:
    table = at_vote(3, 6)
    table.votes(5)
    table.defend()
    effects = table.votes(5)  # equal again
    assert keys(effects)[-3:] == ["day.tie_again", "day.third_vote_start", "day.third_vote"]
    assert params_of(effects, "day.third_vote_start") == [{"seats": (3, 6)}]
    assert table.phase is Phase.THIRD_VOTE


def test_a_revote_of_three_tied_again_at_the_top_names_the_two_leaders() -> None:
    table = at_day_one()
    for _ in range(3):
        table.foul(10)  # 9 voters are left
    table.end()
    table.nominate(plan_for(1, 5, 9))
    assert table.state.candidates == [1, 5, 9]
    table.defend()
    table.votes(3)
    effects = table.votes(3)  # 3 / 3 / 3: split equally
    assert params_of(effects, "day.revote") == [{"seats": (1, 5, 9)}]
    table.defend()
    table.votes(4)
    effects = table.votes(4)  # 4 / 4 / 1: the two leaders, not an equal split
    assert params_of(effects, "day.tie_again_leaders") == [{"seats": (1, 5)}]
    assert "day.tie_again" not in keys(effects)
    assert params_of(effects, "day.third_vote_start") == [{"seats": (1, 5)}]


def test_nominations_are_confirmed_aloud_by_default_and_not_when_switched_off() -> None:
    loud = at_day_one()
    loud.end()
    assert keys(loud.enter(5))[0] == "day.nomination_accepted"
    quiet = at_day_one(make_settings(rules={"confirm_nominations": False}))
    quiet.end()
    assert "day.nomination_accepted" not in keys(quiet.enter(5, 9))
    assert quiet.state.nominations == {1: [5, 9]}


def test_a_shot_at_a_player_disqualified_that_night_is_announced_as_such() -> None:
    table = at_day_one()
    table.day(lambda s: (1,) if s != 1 else (10,), 7)  # 1 leaves by vote
    table.last_words()
    table.enter(6)  # the mafia shoot 6 ...
    table.foul(6)  # ... who then peeks and is disqualified
    table.time_up()
    table.time_up()  # the Commissar's window
    mark = table.mark()
    table.time_up()  # the Doctor's window: morning
    morning = table.since(mark)
    said = keys(morning)[1:]  # after «Доктор засыпает!»
    assert said[:3] == ["morning.city_wakes", "morning.disqualified", "morning.shot_disqualified"]
    assert params_of(morning, "morning.shot_disqualified") == [{"seat": 6}]
    assert "morning.miss" not in said and "morning.killed" not in said
    assert table.state.record["nights"][-1]["killed"] is None


def test_a_restart_in_the_vote_recalls_the_candidates_and_the_third_vote_names_them() -> None:
    table = at_vote(3, 6)
    effects = table.engine.resume_effects(table.state)
    assert keys(effects) == ["game.resumed", "day.vote_start", "day.vote_for"]
    assert params_of(effects, "day.vote_start") == [{"seats": (3, 6)}]
    table.votes(5)
    table.defend()
    table.votes(5)
    assert table.phase is Phase.THIRD_VOTE
    effects = table.engine.resume_effects(table.state)
    assert keys(effects) == ["game.resumed", "day.third_vote_start", "day.third_vote"]
    assert params_of(effects, "day.third_vote_start") == [{"seats": (3, 6)}]
