"""The acquaintance round of the rule text: after the cards are drawn, each player in seat order
introduces themselves for a set time, on a topic the host announces; then night 0."""

from __future__ import annotations

from gamekit import Table, cues, keys, make_settings, params_of, timers

from voicehost.game.effects import Prompt, PromptKind
from voicehost.game.model import Cue, Phase, TimerKind
from voicehost.rulesets import engine_for

ON = {"acquaintance": True, "acquaintance_topic": "любимая книга"}


def acquainted(**rules: object) -> Table:
    return Table(make_settings(rules={**ON, **rules}, timers={"acquaintance_seconds": 20}))


def test_off_by_default_the_game_opens_with_night_zero() -> None:
    table = Table()
    assert keys(table.log) == ["game.start", "night0.start", "night.mafia_wakes"]
    assert table.phase is Phase.NIGHT0_MAFIA


def test_the_round_announces_the_topic_and_gives_seat_one_the_floor() -> None:
    table = acquainted()
    assert keys(table.log) == [
        "game.start",
        "acquaintance.start",
        "acquaintance.topic",
        "acquaintance.speech",
    ]
    assert params_of(table.log, "acquaintance.topic") == [{"topic": "любимая книга"}]
    assert params_of(table.log, "acquaintance.speech") == [{"seat": 1}]
    (timer,) = timers(table.log)
    assert (timer.timer, timer.seconds, timer.listen, timer.speaker) == (
        TimerKind.ACQUAINTANCE_SPEECH,
        20,
        True,
        1,
    )
    assert table.phase is Phase.ACQUAINTANCE
    assert table.prompt == Prompt(PromptKind.NONE, speech_running=True)


def test_without_a_topic_none_is_announced() -> None:
    table = acquainted(acquaintance_topic="  ")
    assert "acquaintance.topic" not in keys(table.log)


def test_each_player_in_seat_order_then_night_zero() -> None:
    table = acquainted()
    table.end()  # seat 1 says «спасибо»
    table.warning()
    assert cues(table.effects) == [Cue.WARNING]
    table.time_up()  # seat 2 runs out of time
    while table.phase is Phase.ACQUAINTANCE:
        table.end()
    speakers = [p["seat"] for p in params_of(table.log, "acquaintance.speech")]
    assert speakers == list(range(1, 11))
    assert keys(table.effects)[-2:] == ["night0.start", "night.mafia_wakes"]
    assert table.phase is Phase.NIGHT0_MAFIA
    table.register()
    assert table.phase is Phase.DISCUSSION


def test_a_foul_in_the_round_is_a_warning_and_a_third_sends_the_player_away() -> None:
    table = acquainted()
    assert keys(table.foul(3)) == ["foul.warning"]
    table.foul(1)
    table.foul(1)
    effects = table.foul(1)  # the speaker is disqualified: the floor goes to seat 2
    assert keys(effects) == ["foul.disqualified_card", "acquaintance.speech"]
    assert params_of(effects, "acquaintance.speech") == [{"seat": 2}]
    # the host does not know the roles yet: the role is not named
    assert all("role" not in p for p in params_of(effects, "foul.disqualified_card"))


def test_a_restart_in_the_round_gives_the_speaker_the_floor_again() -> None:
    table = acquainted()
    table.end()
    engine = engine_for(table.settings.game)
    effects = engine.resume_effects(table.state)
    assert params_of(effects, "acquaintance.speech") == [{"seat": 2}]
    assert timers(effects)[0].timer is TimerKind.ACQUAINTANCE_SPEECH
