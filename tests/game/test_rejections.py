"""Every wrong input changes nothing and names its rule in both phrase books."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable

import pytest
from gamekit import REPO, Table, at_day_one, at_vote, books, make_settings

from voicehost.game.errors import RuleViolation
from voicehost.game.inputs import (
    EndSpeech,
    EnterSeats,
    Foul,
    Input,
    Miss,
    TimerWarning,
    TimeUp,
    VoteCount,
)
from voicehost.game.model import Phase
from voicehost.phrases import PhraseBook

BOOKS = books()


def _night0() -> Table:
    return Table()


def _night0_commissar() -> Table:
    table = Table()
    table.enter(2, 5, 9)
    table.time_up()
    return table


def _discussion() -> Table:
    return at_day_one()


def _nomination() -> Table:
    table = at_day_one()
    table.end()
    return table


def _nomination_full() -> Table:
    table = _nomination()
    table.enter(5, 9)
    return table


def _nomination_waiting() -> Table:
    table = _nomination()
    table.time_up()
    return table


def _defence() -> Table:
    table = _nomination()
    table.nominate(lambda s: (3,) if s != 3 else (6,))
    return table


def _vote() -> Table:
    return at_vote(1, 5, 9)


def _vote_second() -> Table:
    table = at_vote(1, 5, 9)
    table.votes(6)
    return table


def _third_vote() -> Table:
    table = at_vote(3, 6)
    table.votes(5)
    table.defend()
    table.votes(5)
    return table


def _last_words() -> Table:
    table = at_vote(3, 6)
    table.votes(9)
    return table


def _night(step: int) -> Callable[[], Table]:
    def setup() -> Table:
        table = _last_words()
        table.last_words()
        table.night(shot="miss", heal=6)  # the Doctor healed 6 last night
        table.day(lambda s: (8,) if s != 8 else (10,), 8)
        table.last_words()
        table.foul(1)  # seat 1 disqualified at night: it has left
        for _ in range(step):
            table.time_up()
        return table

    return setup


def _night_checked() -> Table:
    table = _night(1)()
    table.enter(5)
    return table


def _game_over() -> Table:
    table = Table()
    table.foul(2)
    table.foul(5)
    table.register()
    table.foul(9)
    table.foul(9)
    table.foul(9)
    assert table.phase is Phase.GAME_OVER
    return table


SETUPS: dict[str, Callable[[], Table]] = {
    "night0_mafia": _night0,
    "night0_commissar": _night0_commissar,
    "discussion": _discussion,
    "nomination": _nomination,
    "nomination_full": _nomination_full,
    "nomination_waiting": _nomination_waiting,
    "defence": _defence,
    "vote": _vote,
    "vote_second": _vote_second,
    "third_vote": _third_vote,
    "last_words": _last_words,
    "night_mafia": _night(0),
    "night_commissar": _night(1),
    "night_checked": _night_checked,
    "night_doctor": _night(2),
    "game_over": _game_over,
}

# A wrong input in each phase, the rule it breaks, and what the message says.
CASES: list[tuple[str, Input, str]] = [
    ("night0_mafia", EnterSeats((2, 5)), "wrong_seat_count"),
    ("night0_mafia", EnterSeats((2, 2, 5)), "duplicate_seats"),
    ("night0_mafia", EnterSeats((2, 5, 14)), "no_such_seat"),
    ("night0_mafia", VoteCount(2), "not_now"),
    ("night0_mafia", Miss(), "not_now"),
    ("night0_commissar", EnterSeats((5,)), "role_taken"),
    ("discussion", EnterSeats((5,)), "not_now"),
    ("discussion", VoteCount(5), "not_now"),
    ("discussion", Foul(0), "no_such_seat"),
    ("nomination", EnterSeats((1,)), "self_nomination"),
    ("nomination", EnterSeats(()), "nomination_required"),
    ("nomination", EnterSeats((12,)), "no_such_seat"),
    ("nomination_full", EnterSeats((3,)), "too_many_nominations"),
    ("nomination_waiting", EndSpeech(), "nomination_owed"),
    ("defence", EnterSeats((5,)), "not_now"),
    ("defence", Miss(), "not_now"),
    ("vote", VoteCount(10), "self_vote"),
    ("vote", VoteCount(-2), "negative_count"),
    ("vote", EndSpeech(), "no_speech"),
    ("vote_second", VoteCount(5), "votes_exceed_voters"),
    ("third_vote", VoteCount(9), "votes_exceed_voters"),
    ("third_vote", EnterSeats((3,)), "not_now"),
    ("last_words", EnterSeats((5,)), "not_now"),
    ("last_words", Foul(3), "seat_left"),
    ("night_mafia", EnterSeats((1,)), "seat_left"),
    ("night_mafia", EnterSeats((3,)), "seat_left"),
    ("night_mafia", EnterSeats((4, 6)), "wrong_seat_count"),
    ("night_mafia", Foul(3), "seat_left"),
    ("night_commissar", EnterSeats((4,)), "commissar_self_check"),
    ("night_commissar", EnterSeats((1,)), "seat_left"),
    ("night_commissar", Miss(), "not_now"),
    ("night_checked", EnterSeats((6,)), "already_checked"),
    ("night_doctor", EnterSeats((6,)), "doctor_same_patient"),
    ("night_doctor", EnterSeats((1,)), "seat_left"),
    ("night_doctor", TimeUp(999), "timer_stale"),
    ("night_doctor", TimerWarning(999), "timer_stale"),
    ("game_over", EndSpeech(), "game_over"),
    ("game_over", Foul(3), "game_over"),
]


@pytest.mark.parametrize(("setup", "event", "code"), CASES, ids=[f"{s}-{c}" for s, _, c in CASES])
def test_a_wrong_input_changes_nothing_and_names_its_rule(
    setup: str, event: Input, code: str
) -> None:
    table = SETUPS[setup]()
    violation = table.reject(event)
    assert violation.code == code
    for book in BOOKS.values():
        message = book.error(violation.code, violation.params)
        assert message and "{" not in message


# Inputs that are wrong almost everywhere: tried in every phase; any that is refused must leave
# the state exactly as it was.
PROBES: list[Input] = [
    EnterSeats(()),
    EnterSeats((0,)),
    EnterSeats((99,)),
    EnterSeats((1, 1)),
    EnterSeats((1, 2, 3, 4, 5)),
    VoteCount(-1),
    VoteCount(99),
    Foul(0),
    Foul(99),
    Miss(),
    EndSpeech(),
    TimeUp(-1),
    TimerWarning(-1),
]


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_refused_probes_leave_the_state_untouched(setup: str) -> None:
    table = SETUPS[setup]()
    refused = 0
    for event in PROBES:
        before = copy.deepcopy(table.state)
        try:
            table.engine.step(table.state, event)
        except RuleViolation as violation:
            refused += 1
            assert table.state == before
            for book in BOOKS.values():
                assert book.error(violation.code, violation.params)
        else:
            assert table.state == before  # accepted inputs work on a copy too
    assert refused >= len(PROBES) - 3


def test_every_rule_code_the_engine_can_raise_is_in_both_books() -> None:
    game = REPO / "voicehost" / "game"  # the engine and its parts
    source = "".join(path.read_text(encoding="utf-8") for path in sorted(game.glob("*.py")))
    codes = set(re.findall(r'RuleViolation\(\s*"([a-z_]+)"', source))
    assert len(codes) >= 15
    for language, book in BOOKS.items():
        missing = codes - set(book.error_codes())
        assert not missing, f"{language}.yaml errors: has no text for {sorted(missing)}"


def test_the_books_have_the_same_error_codes() -> None:
    ru: PhraseBook = BOOKS["ru"]
    en: PhraseBook = BOOKS["en"]
    assert set(ru.error_codes()) == set(en.error_codes())


def test_rejections_also_hold_with_other_rules() -> None:
    table = at_day_one(make_settings(rules={"doctor_self_heal": False}))
    table.day(lambda s: (3,) if s != 3 else (6,), 9)
    table.last_words()
    table.miss()
    table.time_up()
    table.time_up()
    assert table.reject(EnterSeats((7,))).code == "doctor_self_heal_off"
