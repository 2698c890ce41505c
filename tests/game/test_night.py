"""The night and the morning (RULES.md "Night"): shot, check, heal, and what the table hears."""

from __future__ import annotations

import pytest
from gamekit import (
    COMMISSAR,
    DOCTOR,
    Table,
    at_day_one,
    commissar_answers,
    keys,
    make_settings,
    params_of,
    privates,
    spoken_seats,
    timers,
)

from voicehost.game.effects import PrivateKind, Say
from voicehost.game.inputs import EndSpeech, EnterSeats, Miss, VoteCount
from voicehost.game.model import Phase, TimerKind

NIGHT_STEPS = [
    "night.start",
    "night.mafia_wakes",
    "night.mafia_sleeps",
    "night.commissar_wakes",
    "night.commissar_sleeps",
    "night.doctor_wakes",
    "night.doctor_sleeps",
    "morning.city_wakes",
]


def at_night_one(settings: object = None, voted_out: int = 3) -> Table:
    """Day 1 over: ``voted_out`` left by vote (9 of 10 votes), last words said; night 1 begins."""
    table = at_day_one(settings)  # type: ignore[arg-type]
    other = 6 if voted_out != 6 else 3
    table.end()
    table.nominate(lambda s: (voted_out,) if s != voted_out else (other,))
    table.defend()
    table.votes(9 if voted_out < other else 1)
    assert table.state.players[voted_out].left_how == "vote"
    table.last_words()
    assert table.phase is Phase.NIGHT_MAFIA
    return table


def morning(table: Table, mark: int) -> list[str]:
    """The phrase keys from «Город просыпается!» on."""
    said = keys(table.since(mark))
    return said[said.index("morning.city_wakes") :]


# ---- the shot ------------------------------------------------------------------------------


def test_a_shot_kills_the_player_who_reveals_the_card_and_gets_last_words() -> None:
    table = at_night_one()
    mark = table.mark()
    table.night(shot=1, check=6, heal=8)
    said = keys(table.since(mark))
    assert said[: len(NIGHT_STEPS) - 2] == NIGHT_STEPS[2:]
    assert morning(table, mark) == [
        "morning.city_wakes",
        "morning.killed",
        "morning.commissar_not_found",
        "day.leaves",
        "day.last_words",
    ]
    assert params_of(table.since(mark), "morning.killed") == [{"seat": 1}]
    assert params_of(table.since(mark), "day.leaves") == [{"seat": 1, "role": "civilian"}]
    assert table.state.players[1].left_how == "kill"
    started = timers(table.effects)
    assert [(t.timer, t.seconds, t.listen, t.speaker) for t in started][-1] == (
        TimerKind.LAST_WORDS,
        15,
        True,
        1,
    )
    effects = table.end()
    assert keys(effects) == ["day.discussion"]
    assert table.state.day == 2


@pytest.mark.parametrize("how", ["miss", "timeout"])
def test_a_miss_explicit_or_on_timeout_is_announced_and_nobody_leaves(how: str) -> None:
    table = at_night_one()
    mark = table.mark()
    table.night(shot="miss" if how == "miss" else None, check=6, heal=8)
    assert morning(table, mark) == [
        "morning.city_wakes",
        "morning.miss",
        "morning.commissar_not_found",
        "day.discussion",
    ]
    assert len(table.living()) == 9


def test_the_mafia_window_is_fixed_and_a_later_entry_replaces_an_earlier_one() -> None:
    table = at_night_one()
    assert keys(table.enter(1)) == []
    assert table.phase is Phase.NIGHT_MAFIA
    table.enter(6)
    mark = table.mark()
    table.time_up()
    table.time_up()  # the Commissar's window, no check
    table.time_up()  # the Doctor's window, no heal
    assert params_of(table.since(mark), "morning.killed") == [{"seat": 6}]


def test_no_agreed_shot_is_said_at_the_warning_only_when_nothing_was_entered() -> None:
    table = at_night_one()
    started = timers(table.log)[-1]
    assert (started.timer, started.seconds, started.warn_before, started.listen) == (
        TimerKind.NIGHT_WINDOW,
        20,
        8,  # «Не вижу согласованного выстрела!» after 12 s of the 20 s window
        False,
    )
    assert keys(table.warning()) == ["night.no_agreed_shot"]
    table.enter(1)  # they agree after the warning: the shot counts
    mark = table.mark()
    table.time_up()
    table.time_up()
    table.time_up()
    assert params_of(table.since(mark), "morning.killed") == [{"seat": 1}]

    entered = at_night_one()
    entered.enter(1)
    assert keys(entered.warning()) == []

    missed = at_night_one()
    missed.miss()
    assert keys(missed.warning()) == []


def test_the_mafia_enter_one_living_seat() -> None:
    table = at_night_one(voted_out=3)
    assert table.prompt.action == "kill" and table.prompt.night
    assert table.reject(EnterSeats((1, 6))).code == "wrong_seat_count"
    assert table.reject(EnterSeats((3,))).code == "seat_left"
    assert table.reject(EnterSeats((11,))).code == "no_such_seat"
    assert table.reject(VoteCount(1)).code == "not_now"


# ---- the Commissar -------------------------------------------------------------------------


@pytest.mark.parametrize(("check", "is_mafia"), [(5, True), (6, False), (DOCTOR, False)])
def test_the_commissar_hears_the_answer_only_on_the_private_channel(
    check: int, is_mafia: bool
) -> None:
    table = at_night_one()
    table.miss()
    table.time_up()
    assert table.prompt.role == "commissar"
    effects = table.enter(check)
    assert commissar_answers(effects) == [is_mafia]
    assert [e for e in effects if isinstance(e, Say)] == []  # nothing the table can hear
    mark = table.mark()
    table.time_up()
    table.time_up()
    expected = "morning.commissar_found" if is_mafia else "morning.commissar_not_found"
    result = [k for k in keys(table.since(mark)) if k.startswith("morning.commissar")]
    assert result == [expected]
    assert params_of(table.since(mark), expected) == [{}]  # who checked whom is never said


def test_one_check_per_night_and_not_of_oneself() -> None:
    table = at_night_one()
    table.miss()
    table.time_up()
    assert table.reject(EnterSeats((COMMISSAR,))).code == "commissar_self_check"
    table.enter(5)
    assert table.reject(EnterSeats((6,))).code == "already_checked"
    assert table.reject(EnterSeats((5,))).code == "already_checked"


def test_no_check_no_commissar_result() -> None:
    table = at_night_one()
    mark = table.mark()
    table.night(shot="miss", check=None, heal=8)
    assert not [k for k in keys(table.since(mark)) if k.startswith("morning.commissar")]


def test_a_killed_commissar_gets_no_result_announced_and_no_last_words() -> None:
    table = at_night_one()
    mark = table.mark()
    table.night(shot=COMMISSAR, check=5, heal=8)
    assert morning(table, mark) == [
        "morning.city_wakes",
        "morning.killed",
        "day.leaves",
        "day.killed_commissar_silent",
        "day.discussion",
    ]
    assert params_of(table.since(mark), "day.leaves") == [{"seat": COMMISSAR, "role": "commissar"}]
    record = table.state.record["nights"][-1]
    assert record["check_found_mafia"] is True and record["check_announced"] is False
    # the next night the Commissar is not called
    table.day(lambda s: (6,) if s != 6 else (8,), len(table.living()) - 1)
    table.last_words()
    mark = table.mark()
    table.night(shot="miss", heal=1)
    assert "night.commissar_wakes" not in keys(table.since(mark))


def test_a_killed_commissar_may_speak_when_the_club_allows_it() -> None:
    table = at_night_one(make_settings(rules={"killed_commissar_last_words": True}))
    mark = table.mark()
    table.night(shot=COMMISSAR, check=5, heal=8)
    assert morning(table, mark)[-1] == "day.last_words"
    assert "morning.commissar_found" not in keys(table.since(mark))


# ---- the Doctor ----------------------------------------------------------------------------


def test_a_shot_saved_by_the_doctor_only_the_save_is_announced_and_nobody_leaves() -> None:
    table = at_night_one()
    mark = table.mark()
    table.night(shot=6, check=1, heal=6)
    assert morning(table, mark) == [
        "morning.city_wakes",
        "morning.saved",
        "morning.commissar_not_found",
        "day.discussion",
    ]
    assert params_of(table.since(mark), "morning.saved") == [{}]
    assert 6 in table.living() and len(table.living()) == 9
    assert table.state.record["nights"][-1]["saved"] is True


def test_the_doctor_cannot_heal_the_same_player_two_nights_running() -> None:
    table = at_night_one()
    table.night(shot="miss", heal=6)
    table.day(lambda s: (8,) if s != 8 else (10,), 8)  # 8 against 8, the last against 10
    table.last_words()
    table.miss()
    table.time_up()
    table.time_up()
    assert table.prompt.action == "heal"
    violation = table.reject(EnterSeats((6,)))
    assert (violation.code, dict(violation.params)) == ("doctor_same_patient", {"seat": 6})
    table.enter(1)


def test_a_night_without_a_heal_frees_the_patient_again() -> None:
    table = at_night_one()
    table.night(shot="miss", heal=6)
    table.day(lambda s: (8,) if s != 8 else (10,), 8)
    table.last_words()
    table.night(shot="miss", heal=None)
    table.day(lambda s: (1,) if s != 1 else (10,), len(table.living()) - 1)
    table.last_words()
    table.miss()
    table.time_up()
    table.time_up()
    table.enter(6)  # two nights ago: allowed


@pytest.mark.parametrize(
    ("rules", "heal", "code"),
    [
        ({}, DOCTOR, None),  # self-healing is allowed
        ({"doctor_self_heal": False}, DOCTOR, "doctor_self_heal_off"),
        ({"doctor_same_patient_twice": True}, 6, None),
    ],
)
def test_doctor_decisions_from_config(rules: dict[str, bool], heal: int, code: str | None) -> None:
    table = at_night_one(make_settings(rules=rules))
    table.night(shot="miss", heal=6)
    table.day(lambda s: (8,) if s != 8 else (10,), 8)
    table.last_words()
    table.miss()
    table.time_up()
    table.time_up()
    if code is None:
        effects = table.enter(heal)
        assert [p.kind for p in privates(effects)] == [PrivateKind.ENTRY_CONFIRMED]
    else:
        assert table.reject(EnterSeats((heal,))).code == code


def test_a_healed_doctor_who_is_shot_is_saved() -> None:
    table = at_night_one()
    mark = table.mark()
    table.night(shot=DOCTOR, heal=DOCTOR)
    assert "morning.saved" in keys(table.since(mark))
    assert DOCTOR in table.living()


# ---- who is called -------------------------------------------------------------------------


@pytest.mark.parametrize(("voted_out", "missing"), [(COMMISSAR, "commissar"), (DOCTOR, "doctor")])
def test_a_role_whose_holder_has_left_is_not_called(voted_out: int, missing: str) -> None:
    table = at_night_one(voted_out=voted_out)
    mark = table.mark()
    while table.phase.is_night:
        table.time_up()
    said = keys(table.since(mark))
    assert f"night.{missing}_wakes" not in said
    other = "doctor" if missing == "commissar" else "commissar"
    assert f"night.{other}_wakes" in said


def test_nothing_at_night_speaks_a_seat_number() -> None:
    table = at_night_one()
    mark = table.mark()
    table.enter(1)
    table.warning()
    table.foul(10)  # a night foul: disqualified, told in the morning
    table.time_up()
    table.enter(5)
    table.time_up()
    table.enter(8)
    effects_before_morning = table.since(mark)
    table.time_up()
    assert spoken_seats(effects_before_morning) == []
    morning_effects = table.effects
    assert params_of(morning_effects, "morning.disqualified") == [{"seat": 10, "role": "civilian"}]


def test_the_morning_order_disqualified_shot_check_then_the_victim_leaves() -> None:
    table = at_night_one()
    table.enter(1)
    table.foul(10)
    mark = table.mark()
    table.time_up()
    table.enter(5)
    table.time_up()
    table.enter(8)
    table.time_up()
    assert morning(table, mark) == [
        "morning.city_wakes",
        "morning.disqualified",
        "morning.killed",
        "morning.commissar_found",
        "day.leaves",
        "day.last_words",
    ]


def test_inputs_with_no_meaning_at_night_are_refused() -> None:
    table = at_night_one()
    assert table.reject(VoteCount(1)).code == "not_now"
    assert table.reject(EndSpeech()).code == "no_speech"
    table.miss()
    table.time_up()
    assert table.reject(Miss()).code == "not_now"  # only the mafia miss
    table.enter(5)
    table.time_up()
    assert table.reject(Miss()).code == "not_now"


@pytest.mark.parametrize(("step", "holder"), [(1, COMMISSAR), (2, DOCTOR)])
def test_a_role_disqualified_during_its_own_step_ends_the_step_normally(
    step: int, holder: int
) -> None:
    table = at_night_one()
    for _ in range(step):
        table.time_up()
    assert table.foul(holder) == []
    mark = table.mark()
    while table.phase.is_night:
        table.time_up()
    said = keys(table.since(mark))
    assert "morning.disqualified" in said
    assert params_of(table.since(mark), "morning.disqualified") == [
        {"seat": holder, "role": "commissar" if holder == COMMISSAR else "doctor"}
    ]
    assert table.phase is Phase.DISCUSSION
    table.day(lambda s: (6,) if s != 6 else (8,), len(table.living()) - 1)
    table.last_words()
    mark = table.mark()
    while table.phase.is_night:
        table.time_up()
    role = "commissar" if holder == COMMISSAR else "doctor"
    assert f"night.{role}_wakes" not in keys(table.since(mark))
