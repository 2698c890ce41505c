"""A game that ends in the middle of a night (docs/RULES.md section 7): the protocol keeps what
was entered that night (the shot is not turned into a miss) and says the night was cut short,
club and FIIM."""

from __future__ import annotations

from fiimkit import FiimTable
from gamekit import Table

from voicehost.game.inputs import Remove
from voicehost.game.model import Phase, Seat, Team
from voicehost.host import protocol
from voicehost.phrases import PhraseBook


def _club_night_ended_after_the_shot() -> Table:
    """Mafia 2 and 5 disqualified on night 0; seat 9, the last black player, shoots 4 on night 1
    and is disqualified in the Commissar's step: the town wins at once."""
    table = Table()
    table.foul(Seat(2))
    table.foul(Seat(5))
    table.register()
    table.day(lambda s: (1,) if s != 1 else (10,), 7)
    table.last_words()
    table.enter(Seat(4))  # the shot
    table.time_up()
    assert table.phase is Phase.NIGHT_COMMISSAR
    table.foul(Seat(9))
    assert table.winner is Team.RED
    return table


def test_club_the_entered_shot_is_recorded_not_a_miss() -> None:
    table = _club_night_ended_after_the_shot()
    night = table.state.record["nights"][-1]
    assert night["ended_by_win"] is True
    assert (night["shot"], night["killed"], night["disqualified"]) == (4, None, [9])
    record = protocol.build(table.state)
    text = protocol.to_table(record, PhraseBook.load("ru"))
    block = text[text.index("Ночь 1") :]
    assert "выстрел: 4" in block and "выстрел: промах" not in block
    assert "ночь прервана: игра решилась" in block and "убит:" not in block
    english = protocol.to_table(record, PhraseBook.load("en"))
    assert "shot: 4" in english and "night cut short" in english


def test_fiim_the_entered_shots_are_recorded_not_a_miss() -> None:
    """Black 2, 5 (the Don) and 9: 2 and 5 are removed on day 1; on night 1 seat 9 shoots 3
    and is removed before the Don's step: the red team wins."""
    table = FiimTable()
    table.agree()
    table.do(Remove(Seat(2)))
    table.do(Remove(Seat(5)))
    table.speeches()
    assert table.phase is Phase.NIGHT_MAFIA
    table.enter(Seat(3))
    table.do(Remove(Seat(9)))
    assert table.winner is Team.RED
    night = table.state.record["nights"][-1]
    assert night["ended_by_win"] is True
    assert night["shots"] == {"9": 3} and night["killed"] is None
    text = protocol.to_table(protocol.build(table.state), PhraseBook.load("ru"))
    block = text[text.index("Ночь 1") :]
    assert "выстрелы: 9 → 3" in block
    assert "ночь прервана: игра решилась" in block and "промах" not in block
