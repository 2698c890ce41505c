"""The timers the engine asks for: configured lengths, who may be heard, and the cues."""

from __future__ import annotations

import pytest
from gamekit import Table, cues, keys, make_settings, timers

from voicehost.game.effects import StartTimer
from voicehost.game.inputs import TimerWarning, TimeUp
from voicehost.game.model import Cue, Phase, TimerKind

CUSTOM = make_settings(
    timers={
        "discussion_seconds": 100,
        "nomination_speech_seconds": 20,
        "defence_speech_seconds": 40,
        "last_words_seconds": 25,
        "warning_seconds": 7,
        "vote_result_seconds": 3,
    },
    night={
        "registration_window_seconds": 10,
        "mafia_window_seconds": 30,
        "no_agreed_shot_after_seconds": 25,
        "commissar_window_seconds": 11,
        "doctor_window_seconds": 13,
    },
)


def play_a_day_and_a_night() -> Table:
    """Night 0, day 1 (seat 3 voted out), night 1 (seat 1 killed), last words of 1."""
    table = Table(CUSTOM)
    table.register()
    table.day(lambda s: (3,) if s != 3 else (6,), 9)
    table.last_words()
    table.night(shot=1, check=5, heal=8)
    table.last_words()
    assert table.phase is Phase.DISCUSSION
    return table


def test_every_timer_has_its_configured_length() -> None:
    table = play_a_day_and_a_night()
    seen = {(t.timer, t.seconds, t.warn_before) for t in timers(table.log)}
    assert seen == {
        (TimerKind.NIGHT_WINDOW, 10, None),  # registration
        (TimerKind.DISCUSSION, 100, 7),
        (TimerKind.NOMINATION_SPEECH, 20, 7),
        (TimerKind.DEFENCE_SPEECH, 40, 7),
        (TimerKind.LAST_WORDS, 25, 7),
        (TimerKind.VOTE_RESULT, 3, None),  # the counts announced: a pause to correct them
        (TimerKind.NIGHT_WINDOW, 30, 5),  # the mafia: «не вижу…» after 25 s
        (TimerKind.NIGHT_WINDOW, 11, None),
        (TimerKind.NIGHT_WINDOW, 13, None),
    }


def test_the_listener_hears_only_nominations_defences_and_last_words() -> None:
    table = play_a_day_and_a_night()
    for started in timers(table.log):
        speech = started.timer in (
            TimerKind.NOMINATION_SPEECH,
            TimerKind.DEFENCE_SPEECH,
            TimerKind.LAST_WORDS,
        )
        assert started.listen is speech, started
        assert (started.speaker is not None) is speech


def test_each_speech_timer_names_its_speaker() -> None:
    table = play_a_day_and_a_night()
    spoken = [(t.timer, t.speaker) for t in timers(table.log) if t.listen]
    assert spoken[:10] == [(TimerKind.NOMINATION_SPEECH, seat) for seat in range(1, 11)]
    assert (TimerKind.DEFENCE_SPEECH, 3) in spoken and (TimerKind.DEFENCE_SPEECH, 6) in spoken
    assert spoken[-2:] == [(TimerKind.LAST_WORDS, 3), (TimerKind.LAST_WORDS, 1)]


def test_timer_ids_are_unique_and_increasing() -> None:
    table = play_a_day_and_a_night()
    ids = [t.timer_id for t in timers(table.log)]
    assert ids == sorted(set(ids))


@pytest.mark.parametrize(
    "phase_setup", ["discussion", "nomination", "defence", "last_words"], ids=str
)
def test_a_speech_warning_plays_the_warning_cue_and_time_up_the_time_up_cue(
    phase_setup: str,
) -> None:
    table = Table(CUSTOM)
    table.register()
    if phase_setup != "discussion":
        table.end()
    if phase_setup in ("defence", "last_words"):
        table.nominate(lambda s: (3,) if s != 3 else (6,))
    if phase_setup == "last_words":
        table.defend()
        table.votes(9)
    assert table.phase.value == phase_setup
    timer = table.state.timer
    assert timer is not None
    warning = table.do(TimerWarning(timer.timer_id))
    assert cues(warning) == [Cue.WARNING]
    assert keys(warning) == []
    over = table.do(TimeUp(timer.timer_id))
    assert cues(over)[:1] == [Cue.TIME_UP]


def test_a_speech_ended_early_plays_the_speech_ended_cue() -> None:
    table = Table(CUSTOM)
    table.register()
    effects = table.end()
    assert cues(effects) == [Cue.SPEECH_ENDED]


def test_night_windows_play_no_cue() -> None:
    table = Table(CUSTOM)
    effects = table.time_up()
    assert cues(effects) == []


def test_a_timer_event_for_a_finished_timer_is_refused() -> None:
    table = Table(CUSTOM)
    table.register()
    old = table.state.timer
    assert old is not None
    table.end()
    assert table.reject(TimeUp(old.timer_id)).code == "timer_stale"
    assert table.reject(TimerWarning(old.timer_id)).code == "timer_stale"


def test_no_warning_when_the_warning_is_switched_off() -> None:
    table = Table(make_settings(timers={"warning_seconds": 0}))
    table.register()
    table.end()
    started = [t for t in timers(table.log) if isinstance(t, StartTimer) and t.listen]
    assert started and all(t.warn_before is None for t in started)
