"""Sport Mafia by the FIIM rules: each rule of docs/RULES-FIIM.md, by its rule number.

Rule numbers are those the page cites (MR = the mafiaratings rulebook; section numbers of the
page itself are "§"). Each table row is one case of the rule, run on the pure engine.
"""

from __future__ import annotations

import pytest
from fiimkit import BLACK, DON, SHERIFF, FiimTable, answers, fiim_settings
from gamekit import keys, params_of, spoken_seats, timers

from voicehost import config
from voicehost.errors import ConfigError
from voicehost.game.effects import PrivateKind, PromptKind, Say
from voicehost.game.errors import BadRecord
from voicehost.game.inputs import EndSpeech, EnterSeats, VoteCount
from voicehost.game.model import Phase, Role, Seat, Team, TimerKind
from voicehost.game.rules import GameRules
from voicehost.phrases import PhraseBook
from voicehost.rulesets import engine_for

# ---------------------------------------------------------------- §1 the table (MR 1.1, 1.4)


def test_the_preset_chooses_the_fiim_rule_set_and_the_club_keeps_its_own() -> None:
    assert engine_for(fiim_settings().game).ruleset.name == "fiim"
    assert engine_for(config.loads("").game).ruleset.name == "club"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("rules:\n  preset: fiim\n", None),
        ("players: 10\nrules:\n  preset: fiim\n", None),
        ("players: 12\nrules:\n  preset: fiim\n", "10 players"),  # MR 1.1
        ("rules:\n  preset: sport\n", "club, fiim"),
    ],
)
def test_mr_1_1_a_fiim_table_has_ten_players(text: str, error: str | None) -> None:
    if error is None:
        settings = config.loads(text)
        assert (settings.players, settings.game.mafia_count) == (10, 3)
        return
    with pytest.raises(ConfigError, match=error):
        config.loads(text)


def test_mr_1_1_seven_red_three_black_with_a_don_and_a_sheriff() -> None:
    table = FiimTable()
    table.agree()
    roles = {seat: player.role for seat, player in table.state.players.items()}
    assert [s for s, r in roles.items() if r is Role.MAFIA] == [2, 9]
    assert roles[DON] is Role.DON and roles[SHERIFF] is Role.SHERIFF
    assert sum(r is Role.CIVILIAN for r in roles.values()) == 6
    assert (
        table.engine.living_of(table.state, Team.BLACK),
        table.engine.living_of(table.state, Team.RED),
    ) == (3, 7)


# ---------------------------------------------------------------- §2 night 0 (MR 4.3 to 5.4)


def test_mr_5_1_to_5_4_night_0_wakes_black_then_don_then_sheriff_then_free_seating() -> None:
    table = FiimTable()
    # MR 4.3, 4.4: «Наступает ночь. Раздача карт.», and the host waits for the cards
    assert keys(table.log) == ["game.start", "fiim.deal"]
    assert table.phase is Phase.NIGHT0_DEAL and table.state.timer is None
    assert table.prompt.question == "prompt_cards_dealt" and table.prompt.night
    table.end()  # the cards are dealt
    assert keys(table.log) == ["game.start", "fiim.deal", "fiim.black_wakes"]
    assert [t.seconds for t in timers(table.log)] == [60]  # MR 5.1: one minute
    table.agree()
    said = table.said()
    assert said[3:] == [
        "night.mafia_sleeps",
        "fiim.don_seen",
        "fiim.don_sleeps",
        "fiim.sheriff_seen",
        "fiim.sheriff_sleeps",
        "fiim.free_seating",
        "fiim.morning",
        "day.speech_nomination",
    ]
    assert [t.seconds for t in timers(table.log)] == [60, 15, 15, 20, 60]
    night = [e for e in table.log[: table.log.index(Say("fiim.morning"))]]
    assert spoken_seats(night) == []  # no seat is spoken at night
    assert table.state.record["nights"] == [{"night": 0, "disqualified": []}]  # MH 1.9


@pytest.mark.parametrize(
    ("black", "don", "sheriff", "refused"),
    [
        ((2, 5, 9), 4, 1, "fiim_don_not_black"),  # the Don is one of the three (MR 5.1)
        ((2, 5, 9), 5, 9, "fiim_sheriff_is_black"),  # the Sheriff is red
        ((2, 5), 5, 4, "wrong_seat_count"),  # three black cards (MR 1.1)
        ((2, 2, 9), 5, 4, "duplicate_seats"),
        ((2, 5, 11), 5, 4, "no_such_seat"),
    ],
)
def test_mr_5_1_5_2_the_night_0_entries_are_checked(
    black: tuple[int, ...], don: int, sheriff: int, refused: str
) -> None:
    table = FiimTable()
    if len(set(black)) != 3 or max(black) > 10:
        assert table.reject(EnterSeats(tuple(Seat(s) for s in black))).code == refused
        return
    table.enter(*black)
    table.time_up()
    if refused == "fiim_don_not_black":
        assert table.reject(EnterSeats((Seat(don),))).code == refused
        return
    table.enter(don)
    table.time_up()
    assert table.reject(EnterSeats((Seat(sheriff),))).code == refused


def test_mr_5_1_the_black_minute_runs_to_its_end_and_waits_for_the_entry() -> None:
    table = FiimTable()
    table.end()  # the cards are dealt
    table.time_up()  # nothing entered yet: the host must learn the cards
    assert table.phase is Phase.NIGHT0_MAFIA and table.prompt.late
    table.enter(*BLACK)
    assert table.phase is Phase.NIGHT0_DON


# ---------------------------------------------------------------- §3 the day (MR 6, 7.2 to 7.6)


def test_mr_6_1_6_3_1_sixty_second_speeches_opened_one_seat_further_each_day() -> None:
    table = FiimTable()
    table.agree()
    assert table.speeches() == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    speech = [t for t in timers(table.log) if t.timer is TimerKind.NOMINATION_SPEECH]
    assert {t.seconds for t in speech} == {60}
    table.fiim_night(shots=(2, 2, 2))  # seat 2 is shot: day 2 opens with 3
    table.last_words()
    assert table.speeches()[:2] == [3, 4]


@pytest.mark.parametrize(
    ("entries", "refused", "nominated"),
    [
        ((5,), None, [5]),
        ((1,), None, [1]),  # §3: MR 7.2 names no exception, a player may name their own seat
        ((5, 6), "fiim_one_nomination", [5]),  # MR 7.6: at most one
        ((11,), "no_such_seat", []),
    ],
)
def test_mr_7_2_7_6_one_nomination_per_speech(
    entries: tuple[int, ...], refused: str | None, nominated: list[int]
) -> None:
    table = FiimTable()
    table.agree()
    for index, seat in enumerate(entries):
        if refused is not None and index == len(entries) - 1:
            assert table.reject(EnterSeats((Seat(seat),))).code == refused
        else:
            effects = table.enter(seat)
            assert params_of(effects, "day.nomination_accepted") == [{"seat": seat}]  # MR 7.4
    assert table.state.nominations.get(Seat(1), []) == nominated
    assert table.state.speech_running  # nominating does not end the speech


def test_mr_7_5_3_a_seat_already_up_does_not_count_and_the_speaker_may_name_another() -> None:
    table = FiimTable()
    table.agree()
    table.enter(5)
    table.end()
    assert table.reject(EnterSeats((Seat(5),))).code == "fiim_already_nominated"
    table.enter(9)
    assert table.state.nominations == {1: [5], 2: [9]}


def test_mr_7_2_a_nomination_is_made_in_ones_own_speech_only() -> None:
    table = FiimTable()
    table.agree()
    table.end()  # seat 1 ends without nominating: the turn passes, nothing is asked
    assert table.state.current_speaker == 2
    assert table.prompt.action == "nominate" and table.prompt.subject == 2


# ---------------------------------------------------------------- §4 the vote (MR 7.8 to 7.16)


def test_mr_7_8_the_vote_follows_the_order_of_nomination_not_seats() -> None:
    table = FiimTable()
    table.agree()
    table.speeches({1: 9, 2: 3, 4: 6})
    assert params_of(table.effects, "fiim.vote_start") == [{"seats": (9, 3, 6)}]
    assert table.prompt.subject == 9
    table.votes(2)
    assert table.prompt.subject == 3


def test_mr_7_9_7_10_the_vote_is_called_in_the_referees_words() -> None:
    """MR 7.10: hands off the table before the vote; MR 7.9: «Кто за то, чтобы игрок номер N
    покинул стол?», and «Стоп» ends the vote (not the club's masks and «Раз… два… три!»)."""
    table = FiimTable()
    table.agree()
    table.speeches({1: 9, 2: 3})
    ru, en = PhraseBook.load("ru"), PhraseBook.load("en")
    said = [ru.render(e.key, e.params).text for e in table.effects if isinstance(e, Say)]
    assert said[-2:] == [
        "Голосование. Кандидаты в порядке выставления: игроки номер девять и три. "
        "Уберите руки со стола.",
        "Кто за то, чтобы игрок номер девять покинул стол?… Стоп.",
    ]
    assert not any("маски" in line or "Раз…" in line for line in said)
    english = [en.render(e.key, e.params).text for e in table.effects if isinstance(e, Say)]
    assert english[-1] == "Who votes for player number nine to leave the table?… Stop."


@pytest.mark.parametrize(
    ("counts", "last_gets", "leaves"),
    [
        ((6,), 4, 5),  # MR 7.13: the votes not cast go to the last candidate
        ((3,), 7, 9),
        ((10,), 0, 5),  # MR 7.12: everyone, the candidate too, against seat 5
        ((0,), 10, 9),
    ],
)
def test_mr_7_12_7_13_the_rest_of_the_votes_go_to_the_last_candidate(
    counts: tuple[int, ...], last_gets: int, leaves: int
) -> None:
    table = FiimTable()
    table.agree()
    table.speeches({1: 5, 3: 9})
    for count in counts:
        table.votes(count)
    assert table.state.record["days"][0]["votes"][0]["counts"]["9"] == last_gets
    assert table.state.players[Seat(leaves)].left_how == "vote"


@pytest.mark.parametrize(("count", "refused"), [(11, "votes_exceed_table"), (-1, "negative_count")])
def test_mr_7_12_a_count_beyond_the_table_is_refused(count: int, refused: str) -> None:
    table = FiimTable()
    table.agree()
    table.speeches({1: 5, 3: 9})
    assert table.reject(VoteCount(count)).code == refused


@pytest.mark.parametrize(
    ("rule", "day", "setting", "expected"),
    [
        ("MR 7.16.1", 1, "no_vote", "fiim.single_no_vote"),
        ("MR 7.16.1", 1, "leaves", "fiim.single_leaves"),
        ("§4 later days", 2, "no_vote", "fiim.single_leaves"),
    ],
)
def test_mr_7_16_a_single_nominee(rule: str, day: int, setting: str, expected: str) -> None:
    table = FiimTable(fiim_settings(first_day_single_nominee=setting))
    table.agree()
    if day == 2:
        table.speeches()
        table.fiim_night()
        assert table.said().count("fiim.miss") == 1
    table.speeches({3: 7})
    assert expected in table.said(), rule
    left = table.state.players[Seat(7)].left_how
    assert left == (None if expected == "fiim.single_no_vote" else "vote")


def test_no_nomination_no_vote() -> None:
    table = FiimTable()
    table.agree()
    table.speeches()
    assert "fiim.no_nominations" in table.said()
    assert table.phase is Phase.NIGHT_MAFIA


# ---------------------------------------------------------------- §5 ties (MR 7.17 to 7.23)


def _tie_table(counts_round1: tuple[int, ...], plan: dict[int, int]) -> FiimTable:
    table = FiimTable()
    table.agree()
    table.speeches(plan)
    for count in counts_round1:
        table.votes(count)
    return table


def test_mr_7_17_7_18_a_tie_speaks_30_s_again_and_revotes_in_the_same_order() -> None:
    table = _tie_table((5,), {1: 9, 2: 3})
    assert params_of(table.effects, "fiim.tie") == [{"seats": (9, 3)}]
    assert table.phase is Phase.DEFENCE and table.state.current_speaker == 9
    assert timers(table.effects)[-1].seconds == 30
    table.tie_speeches()
    assert params_of(table.effects, "fiim.revote_start") == [{"seats": (9, 3)}]
    table.votes(6)
    assert table.state.players[Seat(9)].left_how == "vote"


def test_mr_7_19_a_tie_with_fewer_leaders_revotes_again() -> None:
    table = _tie_table((4, 4), {1: 9, 2: 3, 4: 6})  # 4-4-2
    table.tie_speeches()  # 9 and 3 speak again
    table.votes(5)  # 5-5: the same two leaders: a repeated tie
    assert table.phase is Phase.THIRD_VOTE
    table = _tie_table((3, 3), {1: 9, 2: 3, 4: 6})  # 3-3-4: one leader
    assert table.state.players[Seat(6)].left_how == "vote"


@pytest.mark.parametrize(
    ("yes", "outcome"),
    [(6, "all_leave"), (5, "all_stay"), (4, "all_stay")],  # MR 7.17: a majority of 10
)
def test_mr_7_17_podnyat_vseh_needs_a_majority(yes: int, outcome: str) -> None:
    table = _tie_table((5,), {1: 9, 2: 3})
    table.tie_speeches()
    table.votes(5)
    assert params_of(table.effects, "fiim.tie_again") == [{"seats": (9, 3)}]
    assert table.prompt.kind is PromptKind.THIRD_VOTE_COUNT and table.prompt.max_count == 10
    table.votes(yes)
    third = table.state.record["days"][0]["third_vote"]
    assert third is not None and third["outcome"] == outcome
    gone = [s for s in (9, 3) if not table.state.players[Seat(s)].alive]
    assert gone == ([9, 3] if outcome == "all_leave" else [])


def _vote_out(table: FiimTable, seat: int) -> None:
    """A day that sends ``seat`` away: seat ``seat`` and another are nominated."""
    other = next(s for s in table.living() if s != seat)
    speakers = table.state.speakers
    first = table.state.current_speaker
    assert first is not None
    table.speeches({first: seat, speakers[0]: other})
    table.votes(len(table.living()))
    table.last_words()


def _quiet_day_and_kill(table: FiimTable, victim: int) -> None:
    table.speeches()
    table.fiim_night(shots=(Seat(victim),) * table.engine.living_of(table.state, Team.BLACK))
    table.last_words()


def _lift_at(living: int, tied: int, **fiim: object) -> FiimTable:
    """A table of ``living`` players where ``tied`` candidates tie twice."""
    table = FiimTable(fiim_settings(**fiim))
    table.agree()
    if living == 9:
        _quiet_day_and_kill(table, 10)
    else:  # 4 left: the Don and three red
        _vote_out(table, 2)
        table.fiim_night(shots=(Seat(10),) * 2)
        table.last_words()
        _vote_out(table, 9)
        table.fiim_night(shots=(Seat(8),))
        table.last_words()
        _quiet_day_and_kill(table, 7)
        _quiet_day_and_kill(table, 6)
    assert len(table.living()) == living
    candidates = table.living()[:tied]
    speakers = [table.state.current_speaker, *table.state.speakers]
    table.speeches({int(k): int(v) for k, v in zip(speakers, candidates, strict=False)})
    share = living // tied
    for _ in range(2):
        for _ in range(tied - 1):
            table.votes(share)
        table.tie_speeches()
    return table


@pytest.mark.parametrize(
    ("rule", "living", "tied", "fiim", "asked", "said"),
    [
        ("MR 7.23.2 (FIIM)", 9, 3, {}, False, "fiim.lift_three_of_nine"),
        ("MR 7.23.3", 9, 3, {"lift_three_of_nine": True}, True, "fiim.lift_question"),
        ("MR 7.22.1 (FIIM)", 4, 2, {}, True, "fiim.lift_question"),
        ("MR 7.22.2", 4, 2, {"lift_two_of_four": False}, False, "fiim.lift_two_of_four"),
        ("MR 7.21.1", 4, 4, {}, False, "fiim.lift_whole_table"),
    ],
)
def test_mr_7_21_to_7_23_the_small_table_bars(
    rule: str, living: int, tied: int, fiim: dict[str, bool], asked: bool, said: str
) -> None:
    table = _lift_at(living, tied, **fiim)
    assert said in table.said(), rule
    assert (table.phase is Phase.THIRD_VOTE) is asked, rule
    if not asked:
        assert table.phase is Phase.NIGHT_MAFIA and len(table.living()) == living


# ---------------------------------------------------------------- §6 the night (MR 8.3 to 8.16)


@pytest.mark.parametrize(
    ("shots", "killed"),
    [
        ((3, 3, 3), 3),  # MR 8.5: every black player shot the same seat
        ((3, 3, 4), None),  # MR 8.7: one shot another seat: a miss
        ((3, None, 3), None),  # one did not shoot (the miss key)
        ((3, 3), None),  # one did not enter at all
        ((), None),
        ((5, 5, 5), 5),  # the black team may shoot one of its own
    ],
)
def test_mr_8_5_8_7_the_shot_counts_only_when_all_agree(
    shots: tuple[int | None, ...], killed: int | None
) -> None:
    table = FiimTable()
    table.agree()
    table.speeches()
    table.fiim_night(shots=tuple(None if s is None else Seat(s) for s in shots))
    night = table.state.record["nights"][1]
    assert night["killed"] == killed
    assert list(night["shots"]) == [str(s) for s in BLACK[: len(shots)]]
    if killed is None:
        assert "fiim.miss" in table.said()
    else:
        assert params_of(table.log, "fiim.killed") == [{"seat": killed}]
        assert table.state.players[Seat(killed)].left_how == "kill"
        assert table.phase is Phase.LAST_WORDS  # MR 8.6: a minute at the start of the day
        assert timers(table.effects)[-1].seconds == 60


def test_mr_8_4_a_departed_shooters_turn_takes_an_entry_for_nothing_and_a_fourth_is_refused() -> (
    None
):
    """A turn for every black card dealt: with the cards closed, the table must hear as many
    entries whether or not a black player has left; the departed one's counts for nothing."""
    table = FiimTable()
    table.agree()
    table.speeches({1: 9})  # day 1, one nominee: no vote
    table.fiim_night()
    table.speeches({2: 9, 3: 3})  # day 2 opens with seat 2
    table.votes(10)  # all against 9, a black player
    table.last_words()
    table.shoot(Seat(1), Seat(1))  # seats 2 and 5 remain black
    assert table.engine.prompt(table.state).question == "prompt_shot_turn_departed"
    table.shoot(Seat(3))  # 9's turn: taken, and dropped
    assert table.reject(EnterSeats((Seat(1),))).code == "fiim_shots_entered"
    table.time_up()
    table.time_up()
    table.time_up()
    assert table.state.record["nights"][-1]["shots"] == {"2": 1, "5": 1}
    assert table.state.record["nights"][-1]["killed"] == 1


@pytest.mark.parametrize(
    ("who", "seat", "found"),
    [
        ("don", SHERIFF, True),  # MR 8.10: the Don learns whether it is the Sheriff
        ("don", 1, False),
        ("sheriff", DON, True),  # MR 8.13: the Don is black to the Sheriff
        ("sheriff", 2, True),
        ("sheriff", 1, False),
    ],
)
def test_mr_8_8_to_8_14_each_check_is_answered_privately(who: str, seat: int, found: bool) -> None:
    table = FiimTable()
    table.agree()
    table.speeches()
    table.shoot()
    table.time_up()
    if who == "sheriff":
        table.time_up()
    effects = table.enter(seat)
    assert answers(effects, PrivateKind.ANSWER) == [found]
    assert keys(effects) == [] and timers(effects) == []  # nothing said, the window goes on
    assert table.reject(EnterSeats((Seat(seat),))).code == "fiim_already_checked"  # MR 8.15


def test_mr_8_16_the_checks_are_never_announced_and_no_role_is_named() -> None:
    table = FiimTable()
    table.agree()
    table.speeches()
    table.fiim_night(shots=(Seat(1),) * 3, don=Seat(SHERIFF), sheriff=Seat(DON))
    said = [e for e in table.log if isinstance(e, Say)]
    assert not [e for e in said if "role" in e.params]  # MR 7.24, 8.5: cards stay hidden
    assert not [e for e in said if "commissar" in e.key]


def test_the_night_steps_of_departed_roles_are_still_called() -> None:
    table = FiimTable()
    table.agree()
    table.speeches({1: 9})
    table.fiim_night(shots=(Seat(SHERIFF),) * 3)
    table.last_words()
    table.speeches({2: DON, 3: 3})  # day 2 opens with seat 2
    table.votes(9)  # the Don leaves
    marker = table.mark()
    table.last_words()
    table.fiim_night()
    assert keys(table.since(marker))[:8] == [
        "night.start",
        "fiim.shot_wakes",
        "night.mafia_sleeps",
        "fiim.don_wakes",
        "fiim.don_sleeps",
        "fiim.sheriff_wakes",
        "fiim.sheriff_sleeps",
        "fiim.morning",
    ]


def test_a_night_sounds_the_same_whatever_is_entered() -> None:
    """The engine's half of the night-fairness rule: the same phrases and the same windows for
    any shots and checks (the audio itself: tests/keypad/test_fair_night.py)."""
    heard = set()
    for shots, don, sheriff in (
        ((), None, None),
        ((3, 3, 3), SHERIFF, DON),
        ((3, 4, None), 1, 2),
        ((1, 1, 1), 10, 10),
    ):
        table = FiimTable()
        table.agree()
        table.speeches()
        marker = table.mark()
        table.fiim_night(tuple(Seat(s) if s else None for s in shots), don, sheriff)
        night = table.since(marker)
        morning = night.index(Say("fiim.morning"))
        sound = [
            (e.key, tuple(e.params.items())) if isinstance(e, Say) else (e.seconds,)
            for e in night[:morning]
            if isinstance(e, Say) or hasattr(e, "seconds")
        ]
        heard.add(tuple(sound))
    assert len(heard) == 1


# ---------------------------------------------------------------- the record and the journal


def test_the_rules_record_round_trips_and_a_club_header_has_no_preset() -> None:
    fiim = fiim_settings(speech_seconds=45).game
    assert GameRules.from_record(fiim.to_record()) == fiim
    club = config.loads("").game
    record = club.to_record()
    assert "preset" not in record["rules"] and "fiim" not in record
    assert GameRules.from_record(record) == club
    broken = dict(fiim.to_record(), players=12)
    with pytest.raises(BadRecord, match="fiim preset has 10"):
        GameRules.from_record(broken)


def test_the_prompt_during_a_speech_asks_for_a_nomination_then_nothing() -> None:
    table = FiimTable()
    table.agree()
    assert table.prompt.action == "nominate" and table.prompt.speech_running
    table.enter(5)
    assert table.prompt.kind is PromptKind.NONE and table.prompt.speech_running
    table.do(EndSpeech())
    assert (table.prompt.action, table.prompt.seats_min) == ("nominate", 1)


def test_mr_4_4_the_black_seats_typed_during_the_deal_end_it() -> None:
    """A host who types the black team's seats has the cards dealt: the black team is woken
    and registered at once (so a game journaled before the deal waited replays the same)."""
    table = FiimTable()
    effects = table.enter(*BLACK)
    assert keys(effects) == ["fiim.black_wakes"]
    assert table.phase is Phase.NIGHT0_MAFIA and table.state.step_entered
    assert [t.seconds for t in timers(effects)] == [60]


def test_mr_4_4_a_resume_during_the_deal_says_the_deal_again() -> None:
    table = FiimTable()
    resumed = table.engine.resume_effects(table.state)
    assert keys(resumed) == ["game.resumed", "fiim.deal"] and not timers(resumed)
