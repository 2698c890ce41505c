"""Night 0 (RULES.md "Night 0: acquaintance"): the roles register their seats, nobody is shot."""

from __future__ import annotations

import pytest
from gamekit import COMMISSAR, DOCTOR, MAFIA, Table, at_day_one, keys, make_settings, spoken_seats

from voicehost.game.inputs import EndSpeech, EnterSeats, Miss, VoteCount
from voicehost.game.model import Phase, Role

FULL_NIGHT0 = [
    "game.start",
    "night0.start",
    "night.mafia_wakes",
    "night.mafia_sleeps",
    "night.commissar_wakes",
    "night.commissar_sleeps",
    "night.doctor_wakes",
    "night.doctor_sleeps",
    "morning.city_wakes",
    "day.discussion",
]


def test_night0_wakes_each_role_in_turn_and_nobody_is_shot() -> None:
    table = at_day_one()
    assert table.said() == FULL_NIGHT0
    assert table.living() == list(range(1, 11))
    roles = {seat: player.role for seat, player in table.state.players.items()}
    assert [s for s, r in roles.items() if r is Role.MAFIA] == list(MAFIA)
    assert roles[COMMISSAR] is Role.COMMISSAR and roles[DOCTOR] is Role.DOCTOR
    assert all(r is Role.CIVILIAN for s, r in roles.items() if s not in (*MAFIA, 4, 7))


def test_night0_speaks_no_seat_number() -> None:
    table = at_day_one()
    assert spoken_seats(table.log) == []


@pytest.mark.parametrize(("players", "mafia"), [(8, 2), (9, 3), (10, 3), (11, 3), (12, 4), (13, 4)])
def test_the_mafia_enter_floor_n_over_3_seats(players: int, mafia: int) -> None:
    table = Table(make_settings(players))
    assert table.prompt.question == "prompt_register_mafia"
    assert (table.prompt.seats_min, table.prompt.seats_max) == (mafia, mafia)
    assert table.prompt.night
    assert table.reject(EnterSeats(tuple(range(1, mafia)))).code == "wrong_seat_count"
    table.enter(*range(1, mafia + 1))


def test_the_window_is_fixed_an_early_entry_does_not_end_the_step() -> None:
    table = Table()
    effects = table.enter(*MAFIA)
    assert keys(effects) == []
    assert table.phase is Phase.NIGHT0_MAFIA
    assert keys(table.time_up()) == ["night.mafia_sleeps", "night.commissar_wakes"]


def test_an_entry_after_the_window_ends_the_waiting_step() -> None:
    table = Table()
    assert keys(table.time_up()) == []  # the host must learn the roles: the step waits
    assert table.phase is Phase.NIGHT0_MAFIA
    assert table.state.timer is None
    assert keys(table.enter(*MAFIA)) == ["night.mafia_sleeps", "night.commissar_wakes"]
    assert table.phase is Phase.NIGHT0_COMMISSAR


def test_a_second_entry_in_the_window_corrects_the_first() -> None:
    table = Table()
    table.enter(1, 2, 3)
    table.enter(*MAFIA)
    table.time_up()
    mafia = [s for s, p in table.state.players.items() if p.role is Role.MAFIA]
    assert mafia == list(MAFIA)


@pytest.mark.parametrize(
    ("before", "entry", "code"),
    [
        ((), (2, 5), "wrong_seat_count"),
        ((), (2, 5, 9, 1), "wrong_seat_count"),
        ((), (2, 2, 5), "duplicate_seats"),
        ((), (2, 5, 11), "no_such_seat"),
        ((), (0, 2, 5), "no_such_seat"),
        ((MAFIA,), (4, 7), "wrong_seat_count"),
        ((MAFIA,), (5,), "role_taken"),
        ((MAFIA, (COMMISSAR,)), (COMMISSAR,), "role_taken"),
        ((MAFIA, (COMMISSAR,)), (9,), "role_taken"),
        ((MAFIA, (COMMISSAR,)), (), "wrong_seat_count"),
    ],
)
def test_wrong_registrations_are_refused(
    before: tuple[tuple[int, ...], ...], entry: tuple[int, ...], code: str
) -> None:
    table = Table()
    for seats in before:
        table.enter(*seats)
        table.time_up()
    assert table.reject(EnterSeats(entry)).code == code


@pytest.mark.parametrize("event", [VoteCount(3), Miss(), EndSpeech()])
def test_other_inputs_mean_nothing_on_night0(event: object) -> None:
    table = Table()
    code = table.reject(event).code  # type: ignore[arg-type]
    assert code in ("not_now", "no_speech")


@pytest.mark.parametrize(
    ("switched_off", "missing"),
    [
        ({"commissar": False}, "commissar"),
        ({"doctor": False}, "doctor"),
        ({"commissar": False, "doctor": False}, "both"),
    ],
)
def test_a_role_switched_off_is_never_called(switched_off: dict[str, bool], missing: str) -> None:
    table = Table(make_settings(rules=switched_off))
    kinds = []
    while table.phase is not Phase.DISCUSSION:
        kinds.append(table.prompt.role)
        if table.phase is Phase.NIGHT0_MAFIA:
            table.enter(*MAFIA)
        elif table.phase is Phase.NIGHT0_COMMISSAR:
            table.enter(COMMISSAR)
        else:
            table.enter(DOCTOR)
        table.time_up()
    said = table.said()
    commissar_called = "night.commissar_wakes" in said
    doctor_called = "night.doctor_wakes" in said
    assert commissar_called is (missing == "doctor")
    assert doctor_called is (missing == "commissar")
    assert ("commissar" in kinds) is commissar_called
    assert ("doctor" in kinds) is doctor_called
    # ... and on the nights that follow
    table.day(lambda s: (1,) if s != 1 else (3,), 8)  # 8 against 1, the other 2 against 3
    table.last_words()
    mark = table.mark()
    table.night(shot=6, check=5, heal=8)
    night_said = keys(table.since(mark))
    assert ("night.commissar_wakes" in night_said) is commissar_called
    assert ("night.doctor_wakes" in night_said) is doctor_called
    found = {"morning.commissar_found", "morning.commissar_not_found"} & set(night_said)
    assert bool(found) is commissar_called
