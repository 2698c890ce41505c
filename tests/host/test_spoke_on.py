"""A voice end that was wrong can be undone: the host holds an end by voice for
``listener.spoke_on_seconds`` with the speech's clock stopped, and a player who talks on within
it keeps the speech and the rest of its time, said aloud.

Driven through the real loop (``Host.run``) on a fake clock, with a Listener whose reports come
through the same ``host.post`` the game's Listener thread uses (cli/session.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.text import ScreenPrivateChannel
from voicehost.game.inputs import EndSpeech, EnterSeats
from voicehost.game.model import Cue, TimerKind
from voicehost.host.commands import (
    Command,
    Submit,
    TogglePause,
    TypingEnded,
    VoiceSpokeOn,
    VoiceStop,
)
from voicehost.host.loop import Host
from voicehost.phrases import PhraseBook
from voicehost.testing.clocked import wait_timer
from voicehost.testing.fakes import RecordingCues, RecordingListener, TimedSpeaker

MINUTE = "timers:\n  nomination_speech_seconds: 60\n"
HOLD = 0.6  # listener.spoke_on_seconds, the default


def nomination_speech(settings: str = MINUTE, language: str = "ru"):
    """A game at seat 1's nomination speech, with a Listener wired as the game wires it."""
    clock = FakeClock()
    speaker = TimedSpeaker(clock)
    cues = RecordingCues()
    listener = RecordingListener()
    host = Host(
        config.loads(settings),
        PhraseBook.load(language),
        clock,
        speaker=speaker,
        cues=cues,
        private=ScreenPrivateChannel(None),
        listener=listener,
    )
    listener.start(
        lambda token: host.post(VoiceStop(token)), lambda token: host.post(VoiceSpokeOn(token))
    )
    host.start()
    for seats in ((2, 5, 9), (4,), (7,)):
        assert host.submit(EnterSeats(seats))
        wait_timer(host)
    host.submit(EndSpeech())  # the free discussion is over: nominations
    assert host.timer is not None and host.timer.effect.timer is TimerKind.NOMINATION_SPEECH
    clock.set(max(clock.now(), host.timer.starts_at))  # the announcement is over
    return host, clock, speaker, cues, listener


Step = tuple[float, Callable[[], None] | None]


def run_loop(host: Host, clock: FakeClock, steps: list[Step]) -> None:
    """The real loop in lockstep: each step moves the clock to its time (seconds from now),
    then the Listener's thread reports (through ``host.post``), then the loop runs once."""
    start = clock.now()
    pending: Iterator[Step] = iter(steps)

    def feed() -> Command | None:
        step = next(pending, None)
        if step is None:
            return None
        at, report = step
        clock.set(start + at)
        if report is not None:
            report()
        return TypingEnded()  # a command that changes nothing: one turn of the loop

    host.run(feed=feed)


def test_a_player_who_talks_on_after_a_stop_word_gets_the_rest_of_the_time_back_aloud():
    host, clock, speaker, cues, listener = nomination_speech()
    token = host.timer.timer_id
    said_before, cued_before = len(host.transcript), len(cues.played)
    # 20 s into the speech the Listener ends it; 0.4 s later the player talks on.
    run_loop(
        host,
        clock,
        [
            (20.0, lambda: listener.on_stop_word(token)),
            (20.2, None),
            (20.4, lambda: listener.on_spoke_on(token)),
            (21.0, None),  # past the hold: nothing ends the speech now
        ],
    )

    assert host.state.current_speaker == 1 and host.state.speech_running
    assert host.timer.timer_id == token
    assert host.transcript[said_before:] == ["Продолжайте: у вас ещё сорок секунд."]
    assert cues.played[cued_before:] == []  # the table heard no end
    # The hold and the host's words cost the player nothing: 40 s from when the host is done.
    told_at, _text = speaker.spoken[-1]
    assert told_at == pytest.approx(clock.now() - 0.6)  # said at 20.4 s, when it was heard
    assert host.timer.ends_at == pytest.approx(speaker.busy_until() + 40.0)
    assert listener.calls[-1] == ("listen", token)  # heard afresh: a later «спасибо» ends it
    run_loop(host, clock, [(2.0, lambda: listener.on_stop_word(token)), (2.0 + HOLD, None)])
    assert not host.state.speech_running
    assert cues.played[cued_before:] == [Cue.SPEECH_ENDED]


def test_a_stop_word_with_nothing_after_it_ends_the_speech_when_the_hold_is_over():
    host, clock, _speaker, cues, listener = nomination_speech()
    token = host.timer.timer_id
    left, cued_before = host.remaining(), len(cues.played)

    run_loop(host, clock, [(5.0, lambda: listener.on_stop_word(token)), (5.0 + HOLD - 0.05, None)])
    assert host.state.speech_running  # held
    assert host.remaining() == pytest.approx(left - 5.0)  # with the clock stopped
    assert cues.played[cued_before:] == []

    run_loop(host, clock, [(0.05, None)])
    assert not host.state.speech_running
    assert cues.played[cued_before:] == [Cue.SPEECH_ENDED]
    said = list(host.transcript)
    # The player's voice after the hold is too late: the speech is not given back.
    assert host.handle(VoiceSpokeOn(token)) is False
    assert not host.state.speech_running
    assert host.transcript == said
    # The host enters seat 1's nomination; the next speech is seat 2's.
    assert host.submit(EnterSeats((5,)))
    assert host.transcript[-1] == "Слово игроку номер два."


def test_the_end_key_during_the_hold_ends_the_speech_at_once():
    host, clock, _speaker, _cues, listener = nomination_speech()
    token = host.timer.timer_id

    run_loop(
        host,
        clock,
        [(3.0, lambda: listener.on_stop_word(token)), (3.1, None)],
    )
    assert host.handle(Submit(EndSpeech()))
    assert not host.state.speech_running
    assert host.held is None
    assert host.handle(VoiceSpokeOn(token)) is False  # the speech is over


def test_with_no_hold_a_stop_word_ends_the_speech_at_once():
    host, clock, _speaker, _cues, listener = nomination_speech(
        MINUTE + "listener:\n  spoke_on_seconds: 0\n"
    )
    token = host.timer.timer_id

    run_loop(host, clock, [(3.0, lambda: listener.on_stop_word(token))])

    assert not host.state.speech_running
    assert host.handle(VoiceSpokeOn(token)) is False


def test_english_game_says_it_in_english_with_minutes():
    host, clock, _speaker, _cues, listener = nomination_speech(
        "language: en\ntimers:\n  nomination_speech_seconds: 90\n", language="en"
    )
    token = host.timer.timer_id

    run_loop(
        host,
        clock,
        [
            (10.0, lambda: listener.on_stop_word(token)),
            (10.3, lambda: listener.on_spoke_on(token)),
        ],
    )

    assert host.transcript[-1] == "Go on: you still have one minute twenty seconds."
    assert host.state.speech_running


def test_a_pause_during_the_hold_lets_the_stop_word_stand_and_pauses_the_next_speech():
    host, clock, _speaker, cues, listener = nomination_speech()
    token = host.timer.timer_id
    cued_before = len(cues.played)

    run_loop(host, clock, [(4.0, lambda: listener.on_stop_word(token)), (4.2, None)])
    host.handle(TogglePause())

    assert not host.state.speech_running and host.held is None
    assert cues.played[cued_before:] == [Cue.SPEECH_ENDED]
    assert host.paused_at is not None
    assert host.handle(VoiceSpokeOn(token)) is False  # the speech is over
