"""The warning before a speech ends, by speech kind: a club's 15 s speech is warned at 5 s, a
FIIM referee warns a 60 s speech at 10 s; an older config's or journal's single number still
means every kind, and every warning too long for its speech is named at once."""

from __future__ import annotations

import pytest
from fiimkit import FiimTable, fiim_settings
from gamekit import Table, make_settings

from voicehost import config
from voicehost.errors import ConfigError, ConfigErrors
from voicehost.game.model import Phase, TimerKind
from voicehost.game.rules import GameRules, SpeechWarnings
from voicehost.phrases import PhraseBook


def running(table: Table) -> tuple[TimerKind, float, float | None]:
    timer = table.state.timer
    assert timer is not None
    return timer.kind, timer.seconds, timer.warn_before


def test_a_club_speech_of_15_s_is_warned_5_s_before_its_end() -> None:
    table = Table(make_settings())
    table.register()
    assert running(table) == (TimerKind.DISCUSSION, 180, 5)
    table.end()
    assert running(table) == (TimerKind.NOMINATION_SPEECH, 15, 5)


def test_a_fiim_speech_of_60_s_is_warned_10_s_before_its_end() -> None:
    table = FiimTable()
    table.agree()
    assert table.phase is Phase.NOMINATION
    assert running(table) == (TimerKind.NOMINATION_SPEECH, 60, 10)


def test_each_kind_takes_its_own_warning_from_config_yaml() -> None:
    settings = config.loads("timers:\n  warning_seconds:\n    nomination: 3\n    fiim_speech: 20\n")
    warnings = settings.timers.warning_seconds
    assert (warnings.nomination, warnings.defence, warnings.fiim_speech) == (3, 5, 20)
    table = Table(settings)
    table.register()
    table.end()
    assert running(table)[2] == 3
    fiim = FiimTable(config.with_preset(settings, "fiim"))
    fiim.agree()
    assert running(fiim)[2] == 20


def test_an_older_config_with_one_number_keeps_working_for_every_speech() -> None:
    settings = config.loads("timers:\n  warning_seconds: 7\n")
    assert settings.timers.warning_seconds == SpeechWarnings.every(7)
    fiim = FiimTable(config.with_preset(settings, "fiim"))
    fiim.agree()
    assert running(fiim)[2] == 7  # what the single number meant before


def test_every_warning_too_long_for_its_speech_is_named_at_once_in_the_games_language() -> None:
    text = (
        "timers:\n  nomination_speech_seconds: 15\n  warning_seconds:\n    nomination: 15\n"
        "    last_words: 20\n    defence: 4\n"
    )
    with pytest.raises(ConfigErrors) as caught:
        config.loads(text)
    named = [(problem.key, problem.line) for problem in caught.value.problems]
    assert named == [
        ("timers.warning_seconds.nomination", 4),
        ("timers.warning_seconds.last_words", 5),
    ]
    said = PhraseBook.load("ru").explain(caught.value)
    assert "timers.warning_seconds.nomination = 15 с — не короче самой речи" in said
    assert "(timers.last_words_seconds = 15 с)" in said


def test_a_warning_the_file_does_not_give_never_refuses_a_short_speech() -> None:
    settings = config.loads("fiim:\n  short_speech_seconds: 8\n")  # the default 10 s is longer
    assert settings.fiim.short_speech_seconds == 8
    with pytest.raises(ConfigError):
        config.loads(
            "fiim:\n  short_speech_seconds: 8\n"
            "timers:\n  warning_seconds:\n    fiim_short_speech: 9\n"
        )


def test_an_older_journal_with_one_number_resumes_with_it() -> None:
    record = GameRules().to_record()
    assert record["timers"]["warning_seconds"]["fiim_speech"] == 10
    record["timers"]["warning_seconds"] = 5  # as a journal of an earlier voicehost has it
    assert GameRules.from_record(record).timers.warning_seconds == SpeechWarnings.every(5)
    record["timers"]["warning_seconds"] = {"nomination": 99}
    with pytest.raises(Exception, match="warning_seconds.nomination is 99"):
        GameRules.from_record(record)
    assert fiim_settings().timers.warning_seconds.fiim_speech == 10
