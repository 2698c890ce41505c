"""The night stays secret, as a property: two games that differ only in what the table may not
know (the deal, whom each role checked, healed or visited, which seat was typed at night, why an
entry was refused) sound and look the same to the table, every announcement and cue at the same
moment, the board's every frame and the day's screen, for each rule set and each way of showing a
card that leaves (``secrecykit`` draws the pairs and plays them on the real Host)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from secrecykit import Day, Night, Plan, Variant, World, first_difference, pairs, play

from voicehost.game.model import Role

EXAMPLES = int(os.environ.get("VOICEHOST_PROPERTY_EXAMPLES", "8"))

VARIANTS = [
    *(
        Variant(preset, cards)
        for preset in ("club", "fiim", "city")
        for cards in ("open", "closed", "half_closed")
    ),
    Variant("club", "open", (("rules", "acquaintance", True),)),
    Variant("city", "closed", (("city", "commissar_action", "kill"),)),
    Variant("city", "closed", (("", "players", 6),)),  # one black card dealt
]


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_the_table_cannot_tell_two_games_that_differ_only_in_secrets(variant: Variant) -> None:
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(pairs(variant))
    def check(pair: tuple[Plan, World, World]) -> None:
        plan, one, other = pair
        heard = play(variant, plan, one).public()
        also = play(variant, plan, other).public()
        assert heard == also, "\n".join(
            [f"deal A {one.deal}", f"deal B {other.deal}", f"plan {plan}"]
            + list(first_difference(heard, also))
        )

    check()


def city_closed_pair() -> tuple[Plan, World, World]:
    """City Mafia, closed cards. The town votes out 2 and 3 on days 1 and 2: in one game the
    mafia (the Don 1 is left alone), in the other two civilians (three black players left)."""
    deal = {
        1: Role.DON, 2: Role.MAFIA, 3: Role.MAFIA, 4: Role.COMMISSAR, 5: Role.DOCTOR,
        6: Role.PUTANA, 7: Role.MANIAC, 8: Role.IMMORTAL, 9: Role.CIVILIAN, 10: Role.CIVILIAN,
    }  # fmt: skip
    other = {**deal, 2: Role.CIVILIAN, 3: Role.CIVILIAN, 9: Role.MAFIA, 10: Role.MAFIA}
    steps = (Role.PUTANA, Role.MAFIA, Role.DON, Role.COMMISSAR, Role.DOCTOR, Role.MANIAC)
    entries = {role: ("ok",) for role in steps}
    nights = (Night(None, 4, False, entries), Night(None, 5, False, entries))
    plan = Plan((Day(2, True), Day(3, True), Day(9, True)), nights)
    return plan, World(deal, 1), World(other, 2)


def test_closed_cards_keep_the_one_black_left_rule_to_what_the_table_knows() -> None:
    """Closed cards: whether the mafia are down to one player is no day's news. The rule goes
    by the black cards dealt (three here), so day 3 asks for one or two candidates in both
    games, and a second candidate is taken in both."""
    variant = Variant("city", "closed")
    plan, one, other = city_closed_pair()
    heard = play(variant, plan, one)
    also = play(variant, plan, other)
    assert heard.public() == also.public(), "\n".join(
        first_difference(heard.public(), also.public())
    )
    said = [event[2][0] for event in heard.public() if event[1] == "say"]
    assert "day.nominations_one" not in said and said.count("day.nominations") == 3
    assert heard.state is not None and heard.state.day == 3
    alone = [seat for seat, player in heard.state.players.items() if player.alive]
    assert [heard.state.players[s].role for s in alone].count(Role.DON) == 1
    nominated = heard.state.record["days"][-1]["nominations"]
    assert any(len(seats) == 2 for seats in nominated.values())


def test_fiim_nights_take_a_shot_for_every_black_card_whoever_has_left() -> None:
    """FIIM, cards closed: the town votes out seat 2 on day 1, a mafioso in one game and a
    civilian in the other. Night 1 hears three shots' clicks in both (a turn for every black
    card dealt), so the table cannot count the black players by ear."""
    variant = Variant("fiim", "closed")
    deal = {1: Role.DON, 2: Role.MAFIA, 3: Role.MAFIA, 4: Role.SHERIFF}
    deal |= {seat: Role.CIVILIAN for seat in range(5, 11)}
    other = {**deal, 2: Role.CIVILIAN, 9: Role.MAFIA}
    entries = {role: ("ok",) for role in (Role.MAFIA, Role.DON, Role.SHERIFF)}
    plan = Plan((Day(2, False), Day(5, False)), (Night(None, None, False, entries),))
    heard = play(variant, plan, World(deal, 1)).public()
    also = play(variant, plan, World(other, 2)).public()
    assert heard == also, "\n".join(first_difference(heard, also))
    night = [e for e in heard if e[2] == "key_ack" and 0 < e[0] - dusk(heard) < 25]
    assert len(night) == 3


def dusk(heard: list[tuple[float, str, object]]) -> float:
    """When night 1 fell."""
    return next(at for at, kind, what in heard if kind == "say" and what[0] == "night.start")  # type: ignore[index]


def test_a_rule_file_with_closed_cards_calls_the_steps_of_roles_that_have_left() -> None:
    """The club's rules with closed cards (a club's own file): the Doctor voted out unseen on
    day 1 is still woken on night 1, as in the game where a civilian left."""
    variant = Variant("club", "closed")
    deal = {1: Role.MAFIA, 2: Role.MAFIA, 3: Role.MAFIA, 4: Role.COMMISSAR, 5: Role.DOCTOR}
    deal |= {seat: Role.CIVILIAN for seat in range(6, 11)}
    other = {**deal, 5: Role.CIVILIAN, 6: Role.DOCTOR}
    entries = {role: ("ok",) for role in (Role.MAFIA, Role.COMMISSAR, Role.DOCTOR)}
    plan = Plan((Day(5, False), Day(7, False)), (Night(None, None, False, entries),))
    heard = play(variant, plan, World(deal, 1)).public()
    also = play(variant, plan, World(other, 2)).public()
    assert heard == also, "\n".join(first_difference(heard, also))
    said = [what[0] for _, kind, what in heard if kind == "say"]  # type: ignore[index]
    assert said.count("night.doctor_wakes") == 2  # night 0 and night 1


def test_with_closed_cards_a_killed_commissar_speaks_as_any_victim() -> None:
    """The club's rules with closed cards. Night 1: a foul disqualifies seat 4, and the mafia kill
    6. In one game 4 is the Commissar, in the other 6 is: the Commissar killed has last words, as
    the civilian killed in the other game; «Комиссар покидает стол без последнего слова» would
    name his card."""
    variant = Variant("club", "closed")
    deal = {1: Role.MAFIA, 2: Role.MAFIA, 3: Role.MAFIA, 4: Role.COMMISSAR, 5: Role.DOCTOR}
    deal |= {seat: Role.CIVILIAN for seat in range(6, 11)}
    other = {**deal, 4: Role.CIVILIAN, 6: Role.COMMISSAR}
    entries = {role: ("ok",) for role in (Role.MAFIA, Role.COMMISSAR, Role.DOCTOR)}
    night = Night(6, None, False, entries, foul=4)
    plan = Plan((Day(7, False), Day(8, False)), (night,))
    heard = play(variant, plan, World(deal, 1)).public()
    also = play(variant, plan, World(other, 2)).public()
    assert heard == also, "\n".join(first_difference(heard, also))
    said = [what[0] for _, kind, what in heard if kind == "say"]  # type: ignore[index]
    assert "day.killed_commissar_silent" not in said
    assert said.count("day.last_words") == 2  # day 1's, and the night's victim's


def test_closed_cards_at_a_table_dealt_one_black_card_keep_the_rule_from_the_first_day() -> None:
    """Six players of City Mafia, closed cards: one black card is dealt (the Don), which the
    table knows, so every day asks for one candidate each."""
    variant = Variant("city", "closed", (("", "players", 6),))
    deal = {1: Role.COMMISSAR, 2: Role.DOCTOR, 3: Role.DON, 4: Role.PUTANA, 5: Role.MANIAC}
    deal[6] = Role.IMMORTAL
    steps = (Role.PUTANA, Role.MAFIA, Role.DON, Role.COMMISSAR, Role.DOCTOR, Role.MANIAC)
    entries = {role: ("ok",) for role in steps}
    plan = Plan((Day(1, True), Day(2, True)), (Night(None, 6, False, entries),))
    heard = play(variant, plan, World(deal, 1)).public()
    said = [what[0] for _, kind, what in heard if kind == "say"]  # type: ignore[index]
    assert said.count("day.nominations_one") == 2 and "day.nominations" not in said
