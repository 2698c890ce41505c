"""The day up to the candidates (RULES.md "Day" 1-3): discussion, nomination speeches, selection."""

from __future__ import annotations

from collections import Counter

import pytest
from gamekit import Table, at_day_one, everyone_names, keys, make_settings, params_of

from voicehost.game.engine import select_candidates
from voicehost.game.inputs import EndSpeech, EnterSeats
from voicehost.game.model import Cue, Phase, Team, TimerKind


def nominating_speakers(table: Table) -> list[int]:
    return [p["seat"] for p in params_of(table.log, "day.speech_nomination")]


# ---- discussion ---------------------------------------------------------------------------


def test_the_discussion_lasts_three_minutes_then_nominations_start_at_seat_1() -> None:
    table = at_day_one()
    assert params_of(table.log, "day.discussion") == [{"minutes": 3}]
    effects = table.time_up()
    assert Cue.TIME_UP in [e.cue for e in effects if hasattr(e, "cue")]
    assert keys(effects) == ["day.nominations", "day.speech_nomination"]
    assert params_of(effects, "day.speech_nomination") == [{"seat": 1}]
    assert table.prompt.action == "nominate" and table.prompt.subject == 1


def test_the_discussion_can_end_early_from_a_key() -> None:
    table = at_day_one()
    effects = table.end()
    assert keys(effects)[:1] == ["day.nominations"]
    assert table.phase is Phase.NOMINATION


@pytest.mark.parametrize(
    ("seconds", "key", "params"),
    [
        (120, "day.discussion", {"minutes": 2}),
        (90, "day.discussion_mixed", {"minutes": 1, "seconds": 30}),
        (45, "day.discussion_seconds", {"seconds": 45}),
    ],
)
def test_the_discussion_length_is_announced_as_configured(
    seconds: float, key: str, params: dict[str, int]
) -> None:
    table = at_day_one(make_settings(timers={"discussion_seconds": seconds}))
    assert params_of(table.log, key) == [params]
    assert table.state.timer is not None and table.state.timer.seconds == seconds


# ---- nomination order ----------------------------------------------------------------------


def test_every_living_player_speaks_in_seat_order_from_seat_1() -> None:
    table = at_day_one()
    table.end()
    table.nominate(everyone_names(5, 1))
    assert nominating_speakers(table) == list(range(1, 11))


def test_seats_that_left_are_skipped_in_the_nomination_order() -> None:
    table = at_day_one()
    table.day(everyone_names(5, 6), 9)  # 9 against 5, the last vote against 6
    table.last_words()
    table.night(shot=1, check=2, heal=3)  # seat 1 is killed
    table.last_words()
    mark = table.mark()
    table.end()
    table.nominate(everyone_names(9, 2))
    spoken = [p["seat"] for p in params_of(table.since(mark), "day.speech_nomination")]
    assert spoken == [2, 3, 4, 6, 7, 8, 9, 10]


@pytest.mark.parametrize(
    ("rotate", "killed_first", "second_day_first"),
    [
        (False, None, 1),  # always seat 1, as the club's text says
        (True, None, 2),  # rotated: the next seat after yesterday's first speaker
        (True, 2, 3),  # rotated, and seat 2 has left: seat 3
        (False, 1, 2),  # seat 1 has left: the first living seat
    ],
)
def test_the_first_speaker_of_day_2(
    rotate: bool, killed_first: int | None, second_day_first: int
) -> None:
    table = at_day_one(make_settings(rules={"rotate_first_speaker": rotate}))
    table.day(everyone_names(5, 6), 9)  # 9 against 5, the last vote against 6
    table.last_words()
    table.night(shot=killed_first if killed_first else "miss")
    table.last_words()
    assert table.phase is Phase.DISCUSSION
    mark = table.mark()
    table.end()
    assert params_of(table.since(mark), "day.speech_nomination")[0] == {"seat": second_day_first}


# ---- nominations ---------------------------------------------------------------------------


def at_first_nomination() -> Table:
    table = at_day_one()
    table.end()
    assert table.state.current_speaker == 1
    return table


def test_one_or_two_nominations_are_accepted_each_aloud() -> None:
    table = at_first_nomination()
    assert params_of(table.enter(5, 9), "day.nomination_accepted") == [{"seat": 5}, {"seat": 9}]
    table.end()
    assert params_of(table.enter(5), "day.nomination_accepted") == [{"seat": 5}]
    assert table.state.nominations == {1: [5, 9], 2: [5]}


def test_two_nominations_may_come_one_at_a_time_but_a_third_is_refused() -> None:
    table = at_first_nomination()
    table.enter(5)
    table.enter(9)
    violation = table.reject(EnterSeats((3,)))
    assert violation.code == "too_many_nominations"
    assert dict(violation.params) == {"seat": 1, "count": 2}
    assert table.reject(EnterSeats((2, 3, 4))).code == "too_many_nominations"


def test_the_same_candidate_named_twice_counts_once() -> None:
    table = at_first_nomination()
    assert params_of(table.enter(5, 5), "day.nomination_accepted") == [{"seat": 5}]
    assert keys(table.enter(5)) == []  # named again: nothing new
    table.enter(9)  # still room for a second, different candidate
    assert table.state.nominations[1] == [5, 9]


@pytest.mark.parametrize(
    ("entry", "code"),
    [
        ((1,), "self_nomination"),
        ((5, 1), "self_nomination"),
        ((11,), "no_such_seat"),
        ((0,), "no_such_seat"),
        ((), "nomination_required"),
    ],
)
def test_wrong_nominations_are_refused(entry: tuple[int, ...], code: str) -> None:
    table = at_first_nomination()
    assert table.reject(EnterSeats(entry)).code == code


def test_a_player_who_has_left_cannot_be_nominated() -> None:
    table = at_day_one()
    table.day(everyone_names(5, 6), 9)  # 9 against 5, the last vote against 6
    table.last_words()
    table.night(shot="miss")
    table.end()
    assert table.reject(EnterSeats((5,))).code == "seat_left"


def test_a_nomination_is_required_the_next_speaker_waits_for_it() -> None:
    table = at_first_nomination()
    effects = table.time_up()  # seat 1 ran out of time without nominating
    assert "day.speech_nomination" not in keys(effects)
    assert table.state.current_speaker == 1
    prompt = table.prompt
    assert (prompt.action, prompt.seats_min, prompt.subject) == ("nominate", 1, 1)
    assert not prompt.speech_running
    assert table.reject(EndSpeech()).code == "nomination_owed"
    effects = table.enter(5)  # the late entry moves straight to the next speaker
    assert keys(effects) == ["day.nomination_accepted", "day.speech_nomination"]
    assert params_of(effects, "day.speech_nomination") == [{"seat": 2}]


def test_ending_a_speech_with_no_nomination_also_waits_for_one() -> None:
    table = at_first_nomination()
    table.end()
    assert table.state.current_speaker == 1
    assert table.prompt.seats_min == 1


# ---- the one-black-left rule ---------------------------------------------------------------


def one_black_left() -> Table:
    """Seats 2 and 5 (mafia) disqualified on night 0 by night fouls: one black (9) is left."""
    table = Table()
    table.foul(2)
    table.foul(5)
    table.register()
    assert table.engine.living_of(table.state, Team.BLACK) == 1
    return table


def test_with_one_black_left_each_player_nominates_exactly_one() -> None:
    table = one_black_left()
    effects = table.end()
    assert "day.nominations_one" in keys(effects)
    assert "day.nominations" not in keys(effects)
    assert table.prompt.seats_max == 1
    assert table.reject(EnterSeats((3, 9))).code == "one_nomination_only"
    table.enter(9)
    assert table.reject(EnterSeats((3,))).code == "one_nomination_only"


def test_with_two_black_left_two_nominations_are_allowed() -> None:
    table = Table()
    table.foul(2)
    table.register()
    effects = table.end()
    assert "day.nominations" in keys(effects)
    assert table.prompt.seats_max == 2
    table.enter(3, 9)


# ---- candidate selection ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tally", "candidates"),
    [
        ({5: 3, 9: 3, 1: 2}, [5, 9]),  # a tie for first: all of them
        ({5: 3, 9: 3, 1: 3}, [1, 5, 9]),
        ({5: 5, 9: 2}, [5, 9]),  # first plus second
        ({5: 5, 9: 2, 1: 2, 3: 1}, [1, 5, 9]),  # first plus everyone at second
        ({5: 9}, [5]),  # only one player nominated at all
        ({}, []),
    ],
)
def test_select_candidates(tally: dict[int, int], candidates: list[int]) -> None:
    assert select_candidates(Counter(tally)) == candidates


@pytest.mark.parametrize(
    ("plan", "key", "seats"),
    [
        # 5 is named by seats 1-4, 9 by 5-8 and 10, 3 by 9: a tie for first? no: 9 has 5, 5 has 4
        (
            {
                1: (5,),
                2: (5,),
                3: (5,),
                4: (5,),
                5: (9,),
                6: (9,),
                7: (9,),
                8: (9,),
                9: (3,),
                10: (9,),
            },
            "day.candidates",
            (5, 9),
        ),  # fmt: skip
        # 5 and 9 tie for first (4 each); 3 (2) is not a candidate
        (
            {
                1: (5,),
                2: (5,),
                3: (5,),
                4: (5,),
                5: (9,),
                6: (9,),
                7: (9,),
                8: (9,),
                9: (3,),
                10: (3,),
            },
            "day.candidates",
            (5, 9),
        ),  # fmt: skip
        # 5 first (7), 3 and 9 share second place (2 each)
        (
            {
                1: (5, 3),
                2: (5,),
                3: (5,),
                4: (5,),
                5: (9,),
                6: (9,),
                7: (5,),
                8: (5,),
                9: (3,),
                10: (5,),
            },
            "day.candidates",
            (3, 5, 9),
        ),  # fmt: skip
        ({s: (5,) for s in range(1, 11) if s != 5} | {5: (6,)}, "day.candidates", (5, 6)),
    ],
)
def test_the_candidates_are_announced_in_seat_order(
    plan: dict[int, tuple[int, ...]], key: str, seats: tuple[int, ...]
) -> None:
    table = at_day_one()
    table.end()
    table.nominate(plan)
    assert params_of(table.log, key) == [{"seats": seats}]
    assert table.phase is Phase.DEFENCE
    assert table.state.current_speaker == seats[0]


def test_a_lone_nominee_is_the_single_candidate() -> None:
    """Seat 5 nominates 6, who is then disqualified: 5 is the only nominee left."""
    table = at_day_one()
    table.foul(6)
    table.foul(6)
    table.end()
    for _speaker in (1, 2, 3, 4):
        table.enter(5)
        table.end()
    table.enter(6)  # seat 5 nominates 6
    table.end()
    assert table.state.current_speaker == 6
    effects = table.foul(6)  # the third warning: 6 is disqualified during their own speech
    assert "foul.disqualified" in keys(effects)
    assert params_of(effects, "day.speech_nomination") == [{"seat": 7}]
    table.nominate(lambda speaker: (5,))
    assert params_of(table.log, "day.single_candidate") == [{"seat": 5}]
    assert "day.candidates" not in table.said()
    assert table.phase is Phase.DEFENCE and table.state.current_speaker == 5


def test_the_nomination_speech_timer_and_its_listener() -> None:
    table = at_day_one()
    effects = table.end()
    started = [e for e in effects if getattr(e, "timer", None) is TimerKind.NOMINATION_SPEECH]
    assert len(started) == 1
    assert (started[0].seconds, started[0].listen, started[0].speaker) == (15, True, 1)
