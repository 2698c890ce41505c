"""The win check (RULES.md "Table"): after every departure; red when no black is left, black at
parity."""

from __future__ import annotations

from gamekit import Table, keys, make_settings, params_of, until_cards

from voicehost.game.effects import GameOver, PromptKind
from voicehost.game.inputs import EndSpeech, EnterSeats
from voicehost.game.model import Phase, Role, Team


def game_over(table: Table) -> list[GameOver]:
    return [e for e in table.log if isinstance(e, GameOver)]


def assert_won(table: Table, team: Team) -> None:
    assert table.phase is Phase.GAME_OVER
    assert table.winner is team
    assert game_over(table) == [GameOver(team)]
    assert table.state.record["winner"] == team.value
    said = keys(table.log)
    opened = said.index("game.cards")  # the cards, after the winner and before nothing else
    assert said[opened - 1] == f"game.{team.value}_wins"
    black = sorted(s for s, p in table.state.players.items() if p.role is Role.MAFIA)
    named = params_of(table.log, "game.card_many") + params_of(table.log, "game.card")
    assert {"role": "mafia", "seats": tuple(black)} in named or {
        "role": "mafia", "seat": black[0]} in named  # fmt: skip
    assert said[opened + 1 :] == ["game.card_many" if len(black) > 1 else "game.card"] + [
        "game.card"
    ] * (len(named) - 1)
    assert table.state.timer is None
    assert table.prompt.kind is PromptKind.NONE
    assert table.reject(EndSpeech()).code == "game_over"
    assert table.reject(EnterSeats((1,))).code == "game_over"


def last_black_standing() -> Table:
    """10 seats; mafia 2 and 5 disqualified on night 0: seat 9 is the last black player."""
    table = Table()
    table.foul(2)
    table.foul(5)
    table.register()
    return table


def test_red_wins_when_the_last_black_player_is_voted_out_no_last_words() -> None:
    table = last_black_standing()
    table.day(lambda s: (9,) if s != 9 else (10,), 7)  # 8 at the table: 7 against 9
    assert until_cards(keys(table.effects))[-2:] == ["day.leaves", "game.red_wins"]
    assert "day.last_words" not in keys(table.effects)
    assert_won(table, Team.RED)


def test_red_wins_when_the_last_black_player_is_killed_at_night() -> None:
    table = last_black_standing()
    table.day(lambda s: (1,) if s != 1 else (10,), 7)
    table.last_words()
    table.night(shot=9)  # the mafia shoot their own last player
    said = until_cards(keys(table.effects))
    assert said[-3:] == ["morning.killed", "day.leaves", "game.red_wins"]
    assert_won(table, Team.RED)


def test_red_wins_when_the_last_black_player_is_disqualified_by_day() -> None:
    table = last_black_standing()
    table.foul(9)
    table.foul(9)
    effects = table.foul(9)
    assert until_cards(keys(effects)) == ["foul.disqualified", "game.red_wins"]
    assert_won(table, Team.RED)


def test_red_wins_at_night_when_the_last_black_player_is_disqualified() -> None:
    table = last_black_standing()
    table.day(lambda s: (1,) if s != 1 else (10,), 7)
    table.last_words()
    assert table.phase is Phase.NIGHT_MAFIA
    effects = table.foul(9)  # the game is decided: the night does not go on
    said = until_cards(keys(effects))
    assert said == ["morning.city_wakes", "morning.disqualified", "game.red_wins"]
    assert params_of(effects, "morning.disqualified") == [{"seat": 9, "role": "mafia"}]
    assert_won(table, Team.RED)
    assert table.state.record["nights"][-1]["ended_by_win"] is True


def three_black_four_red() -> Table:
    """10 seats, mafia 2, 5, 9; reds 1, 3, 6 disqualified on night 0: 3 black against 4 red."""
    table = Table()
    for seat in (1, 3, 6):
        table.foul(seat)
    table.register()
    assert table.living() == [2, 4, 5, 7, 8, 9, 10]
    return table


def test_black_wins_at_parity_after_a_night_kill() -> None:
    table = three_black_four_red()
    table.day(lambda s: (9,) if s != 9 else (10,), 6)  # 9 (mafia) voted out: 2 against 4
    table.last_words()
    table.night(shot=10)  # 2 black, 3 red
    table.last_words()
    table.day(lambda s: (4,) if s != 4 else (7,), 4)  # 4 (Commissar) voted out: 2 against 2
    assert until_cards(keys(table.effects))[-2:] == ["day.leaves", "game.black_wins"]
    assert_won(table, Team.BLACK)


def test_black_wins_at_parity_after_a_kill() -> None:
    table = three_black_four_red()
    table.day(lambda s: (7,) if s != 7 else (8,), 6)  # 7 (Doctor) voted out: 3 against 3
    assert until_cards(keys(table.effects))[-2:] == ["day.leaves", "game.black_wins"]
    assert_won(table, Team.BLACK)


def test_black_wins_at_parity_after_a_night_shot() -> None:
    table = Table()
    for seat in (1, 3):
        table.foul(seat)
    table.register()  # 3 black, 5 red
    table.day(lambda s: (6,) if s != 6 else (8,), 7)  # 6 voted out: 3 against 4
    table.last_words()
    table.night(shot=10, check=2, heal=8)
    assert until_cards(keys(table.effects))[-4:] == [
        "morning.killed",
        "morning.commissar_found",
        "day.leaves",
        "game.black_wins",
    ]
    assert_won(table, Team.BLACK)


def test_black_wins_at_parity_after_a_day_disqualification() -> None:
    table = three_black_four_red()
    table.foul(8)
    table.foul(8)
    effects = table.foul(8)
    assert until_cards(keys(effects)) == ["foul.disqualified", "game.black_wins"]
    assert_won(table, Team.BLACK)


def test_no_winner_while_red_outnumber_black() -> None:
    table = three_black_four_red()
    assert table.winner is None
    assert table.phase is Phase.DISCUSSION


def test_candidates_sent_away_together_are_counted_together() -> None:
    """The third vote sends 1 (red), 2 and 5 (black) away as one departure.

    12 seats, mafia 2, 5, 9, 12; reds 6, 7, 8 disqualified on night 0: 4 black against 5 red.
    Had the win been checked after seat 1 alone (4 against 4), black would have "won", although
    the same vote also sends two black players away (2 black against 4 red: the game goes on).
    """
    table = Table(make_settings(12))
    for seat in (6, 7, 8):
        table.foul(seat)
    table.register(mafia=(2, 5, 9, 12), commissar=3, doctor=4)
    assert table.living() == [1, 2, 3, 4, 5, 9, 10, 11, 12]
    plan = {1: (2, 5), 2: (1, 5), 5: (1, 2), 3: (1,), 4: (2,), 9: (5,), 10: (1,), 11: (2,),
            12: (5,)}  # fmt: skip
    table.day(plan, 3, 3)  # 3 / 3 / 3
    table.defend()
    table.votes(3)
    effects = table.votes(3)  # 3 / 3 / 3 again
    assert keys(effects)[-1] == "day.third_vote"
    assert table.prompt.max_count == 6
    effects = table.votes(4)  # 4 of the 6 voters: all three leave
    assert [p["seat"] for p in params_of(effects, "day.leaves")] == [1, 2, 5]
    assert "game.black_wins" not in keys(effects)
    assert table.winner is None
    assert (
        table.engine.living_of(table.state, Team.BLACK) == 2
        and table.engine.living_of(table.state, Team.RED) == 4
    )
    table.last_words()
    assert [p["seat"] for p in params_of(table.log, "day.last_words")] == [1, 2, 5]
    assert table.phase is Phase.NIGHT_MAFIA


def test_night_0_disqualifications_are_counted_in_the_first_morning() -> None:
    """Both mafia of an 8-seat table peek on night 0: the town has won when the city wakes."""
    table = Table(make_settings(8))
    table.foul(1)
    table.foul(2)
    table.register(mafia=(1, 2), commissar=3, doctor=4)
    assert until_cards(keys(table.log))[-4:] == [
        "morning.city_wakes",
        "morning.disqualified",
        "morning.disqualified",
        "game.red_wins",
    ]
    assert "day.discussion" not in table.said()
    assert_won(table, Team.RED)


def test_black_can_win_in_the_first_morning_after_night_0_disqualifications() -> None:
    table = Table(make_settings(8))
    for seat in (5, 6, 7, 8):
        table.foul(seat)
    table.register(mafia=(1, 2), commissar=3, doctor=4)  # 2 black against 2 red
    assert until_cards(keys(table.log))[-2:] == ["morning.disqualified", "game.black_wins"]
    assert_won(table, Team.BLACK)
