"""Fouls (RULES.md "Fouls"): day warnings, the third disqualifies, any night foul disqualifies."""

from __future__ import annotations

import pytest
from gamekit import Table, at_day_one, at_vote, keys, make_settings, params_of, spoken_seats

from voicehost.game.inputs import EnterSeats, Foul
from voicehost.game.model import Phase


def test_a_day_foul_is_a_warning_and_the_third_disqualifies() -> None:
    table = at_day_one()
    assert params_of(table.foul(6), "foul.warning") == [{"seat": 6, "fouls": 1}]
    assert params_of(table.foul(6), "foul.warning") == [{"seat": 6, "fouls": 2}]
    effects = table.foul(6)
    assert keys(effects) == ["foul.disqualified"]
    assert params_of(effects, "foul.disqualified") == [{"seat": 6, "role": "civilian"}]
    assert table.state.players[6].left_how == "disqualified"
    assert 6 not in table.living()
    assert table.phase is Phase.DISCUSSION  # no last words; the discussion goes on
    assert table.reject(Foul(6)).code == "seat_left"


def test_the_number_of_warnings_is_a_club_decision() -> None:
    table = at_day_one(make_settings(rules={"fouls_to_disqualify": 4}))
    for count in (1, 2, 3):
        assert params_of(table.foul(6), "foul.warning") == [{"seat": 6, "fouls": count}]
    assert keys(table.foul(6)) == ["foul.disqualified"]


def test_warnings_carry_over_from_day_to_day() -> None:
    table = at_day_one()
    table.foul(6)
    table.foul(6)
    table.day(lambda s: (3,) if s != 3 else (8,), 9)
    table.last_words()
    table.night(shot="miss")
    assert keys(table.foul(6)) == ["foul.disqualified"]


def test_a_night_foul_disqualifies_at_once_but_is_told_only_in_the_morning() -> None:
    table = at_day_one()
    table.day(lambda s: (3,) if s != 3 else (8,), 9)
    table.last_words()
    assert table.phase is Phase.NIGHT_MAFIA
    effects = table.foul(6)
    assert effects == []  # at night the host says nothing, and never a seat number
    assert 6 not in table.living()
    table.enter(1)
    table.time_up()
    table.time_up()
    night_effects = list(table.log)
    table.time_up()
    assert spoken_seats(night_effects[-10:]) == []
    assert params_of(table.effects, "morning.disqualified") == [{"seat": 6, "role": "civilian"}]
    # the disqualified player is out of the next day's nominations
    table.last_words()
    table.end()
    table.nominate(lambda s: (4,) if s != 4 else (8,))
    speakers = [p["seat"] for p in params_of(table.log, "day.speech_nomination")][-7:]
    assert speakers == [2, 4, 5, 7, 8, 9, 10]  # 1 killed, 3 voted out, 6 disqualified


@pytest.mark.parametrize("step", ["mafia", "commissar", "doctor"])
def test_a_foul_in_any_night_step_disqualifies(step: str) -> None:
    table = at_day_one()
    table.day(lambda s: (3,) if s != 3 else (8,), 9)
    table.last_words()
    steps = ["mafia", "commissar", "doctor"]
    for _ in range(steps.index(step)):
        table.time_up()
    assert table.phase.value == f"night_{step}"
    assert table.foul(10) == []
    assert table.state.players[10].left_how == "disqualified"


def test_a_night_0_foul_disqualifies_and_the_card_is_named_in_the_morning() -> None:
    table = Table()
    assert table.foul(5) == []
    table.register()
    assert params_of(table.log, "morning.disqualified") == [{"seat": 5, "role": "mafia"}]
    assert table.state.record["departures"][0]["role"] == "mafia"


def test_a_night_foul_can_be_switched_to_a_warning() -> None:
    table = at_day_one(make_settings(rules={"night_foul_disqualifies": False}))
    table.day(lambda s: (3,) if s != 3 else (8,), 9)
    table.last_words()
    assert keys(table.foul(6)) == []  # still silent at night
    assert 6 in table.living()
    assert table.state.players[6].fouls == 1


def test_the_speaker_disqualified_mid_speech_is_replaced_by_the_next() -> None:
    table = at_day_one()
    table.foul(2)
    table.foul(2)
    table.end()
    table.enter(5)
    table.end()
    assert table.state.current_speaker == 2
    effects = table.foul(2)
    assert keys(effects)[:1] == ["foul.disqualified"]
    assert params_of(effects, "day.speech_nomination") == [{"seat": 3}]


def test_a_disqualified_candidate_is_not_voted_on() -> None:
    table = at_day_one()
    table.foul(5)
    table.foul(5)
    table.end()
    table.nominate(lambda s: (5, 6) if s not in (5, 6) else ((6,) if s == 5 else (5,)))
    assert table.state.candidates == [5, 6]
    table.foul(5)  # during the defence of 5
    assert table.state.candidates == [6]
    assert params_of(table.effects, "day.defence") == [{"seat": 6}]


def test_a_disqualification_during_the_vote_restarts_it_with_fewer_voters() -> None:
    table = at_vote(3, 6)
    table.foul(8)
    table.foul(8)
    effects = table.foul(8)
    assert keys(effects) == ["foul.disqualified", "day.vote_start", "day.vote_for"]
    assert table.prompt.max_count == 8  # 9 voters now; 3 cannot vote against themselves
    table.votes(8)
    assert table.state.record["days"][-1]["votes"][-1]["counts"] == {"3": 8, "6": 1}


def test_a_foul_on_a_seat_that_does_not_exist_is_refused() -> None:
    table = at_day_one()
    assert table.reject(Foul(11)).code == "no_such_seat"
    assert table.reject(EnterSeats((3,))).code == "not_now"


@pytest.mark.parametrize("speaks", [False, True])
def test_a_player_disqualified_by_day_speaks_before_the_night_only_when_the_club_says(
    speaks: bool,
) -> None:
    table = at_day_one(make_settings(rules={"disqualified_last_words": speaks}))
    for _ in range(3):
        table.foul(6)  # the third foul: 6 leaves during the discussion
    assert 6 not in table.living()
    assert table.phase is Phase.DISCUSSION  # the discussion is not interrupted
    table.day(lambda s: (3,) if s != 3 else (8,), 8)
    table.last_words()  # 3's last words after the vote
    last_words = [p["seat"] for p in params_of(table.log, "day.last_words")]
    if speaks:
        assert last_words == [3, 6]  # 6 speaks when the day's business is done
    else:
        assert last_words == [3]
    assert table.phase is Phase.NIGHT_MAFIA


@pytest.mark.parametrize("speaks", [False, True])
def test_a_player_disqualified_at_night_speaks_in_the_morning_only_when_the_club_says(
    speaks: bool,
) -> None:
    table = at_day_one(make_settings(rules={"disqualified_last_words": speaks}))
    table.day(lambda s: (3,) if s != 3 else (8,), 9)
    table.last_words()
    assert table.phase is Phase.NIGHT_MAFIA
    table.foul(6)
    table.enter(1)
    table.time_up()
    table.time_up()
    table.time_up()  # morning: 1 was shot, 6 was disqualified
    table.last_words()  # 1's last words, and 6's when the club gives them
    morning = [p["seat"] for p in params_of(table.log, "day.last_words")][-2:]
    assert morning == ([1, 6] if speaks else [3, 1])
    assert table.phase is Phase.DISCUSSION
