"""Sound output on a fake clock: announcements queue without overlap, cues land on deadlines."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from voice_out_kit import dominant_frequency, level_dbfs

from voicehost.cli.demo import run_paced
from voicehost.clips import read_wav
from voicehost.clock import FakeClock
from voicehost.game.model import Cue, TimerKind
from voicehost.voice_out.cues import CUE_NOTES
from voicehost.voice_out.masking import noise_loop
from voicehost.voice_out.mixer import Lane
from voicehost.voice_out.sound import open_sound_output

RATE = 22050


@pytest.fixture
def clock():
    return FakeClock(100.0)


@pytest.fixture
def recording(tmp_path):
    return tmp_path / "out.wav"


@pytest.fixture
def output(clock, library, recording):
    return open_sound_output(
        clock,
        library,
        rate=RATE,
        cue_volume=0.5,
        device="",
        use_device=False,
        audio_out=recording,
        lockstep=True,
    )


def voice(output):
    return [p for p in output.placements() if p.lane is Lane.VOICE]


def test_announcements_queue_one_after_another_and_busy_until_is_exact(
    output, clock, ru_book, library
):
    utterances = [
        ru_book.render("night.start"),
        ru_book.render("day.speech_nomination", {"seat": 7}),
        ru_book.render("day.candidates", {"seats": (2, 5, 9)}),
    ]
    for utterance in utterances:
        output.say(utterance)
    durations = [library.utterance_clip(u).duration for u in utterances]
    assert output.busy_until() == pytest.approx(100.0 + sum(durations), abs=1 / RATE)
    placed = voice(output)
    for before, after in zip(placed, placed[1:], strict=False):
        assert after.start == before.end  # back to back, never overlapping
    clock.advance(sum(durations) + 5)
    assert output.busy_until() == clock.now()


def test_a_cue_starts_on_its_deadline_to_the_sample(output, clock, recording):
    output.play(Cue.WARNING, at=102.5)
    output.play(Cue.TIME_UP, at=105.0)
    clock.advance(10)
    output.close()
    audio = read_wav(recording)
    for cue, second in ((Cue.WARNING, 2.5), (Cue.TIME_UP, 5.0)):
        assert level_dbfs(audio, second - 0.05, second - 0.001) < -80
        assert level_dbfs(audio, second + 0.002, second + 0.05) > -20
        heard = dominant_frequency(audio, second, 0.1)
        assert heard == pytest.approx(CUE_NOTES[cue][0].frequency, rel=0.05)


def test_a_cue_whose_deadline_has_passed_starts_at_once(output, clock):
    clock.advance(3)
    output.play(Cue.SPEECH_ENDED)
    (placement,) = output.placements()
    assert placement.start == 3 * RATE


def test_an_announcement_waits_for_a_sounding_cue(output, ru_book):
    output.play(Cue.TIME_UP)
    output.say(ru_book.render("day.speech_nomination", {"seat": 3}))
    cue, spoken = output.placements()
    assert spoken.start == cue.end
    assert output.busy_until() == pytest.approx(100 + spoken.end / RATE)


def test_the_night_loop_fades_in_and_out(output, clock, recording):
    output.start(noise_loop("pink", RATE, 0.15), RATE)
    clock.advance(3)
    output.stop()
    clock.advance(10)
    output.close()
    audio = read_wav(recording)
    assert level_dbfs(audio, 0, 0.05) < level_dbfs(audio, 1, 1.5) - 12  # fade in
    assert level_dbfs(audio, 1, 2.9) > -40
    assert level_dbfs(audio, 4, 10) == float("-inf")  # gone after the fade out


def test_close_renders_everything_still_queued(output, ru_book, recording, library):
    utterance = ru_book.render("game.red_wins")
    output.say(utterance)
    output.close()
    assert read_wav(recording).duration == pytest.approx(
        library.utterance_clip(utterance).duration, abs=0.01
    )
    output.close()  # twice is harmless


def test_a_speech_timer_starts_when_its_announcement_has_been_heard(settings, library, ru_book):
    quick = dataclasses.replace(
        settings,
        timers=dataclasses.replace(settings.timers, discussion_seconds=10),
        night=dataclasses.replace(
            settings.night,
            registration_window_seconds=3,
            commissar_window_seconds=3,
            doctor_window_seconds=3,
        ),
    )
    clock = FakeClock()
    output = open_sound_output(
        clock, library, rate=RATE, cue_volume=0.5, device="", use_device=False, lockstep=True
    )
    lines = ["2 5 9", "wait", "4", "wait", "7", "wait", "wait", "5", "."]
    result = run_paced(lines, quick, output, clock, ru_book)
    assert result.errors == []
    timer = result.host.timer
    assert timer is not None and timer.effect.timer is TimerKind.NOMINATION_SPEECH
    opening = voice(output)[-1]
    assert opening.tag == "day.speech_nomination"
    assert timer.starts_at == pytest.approx(output.heard_at(opening.end))
    assert np.isclose(timer.ends_at - timer.starts_at, quick.timers.nomination_speech_seconds)


def test_an_announcement_never_runs_over_a_cue_placed_for_later(output, ru_book):
    output.play(Cue.TIME_UP, at=100.5)
    output.say(ru_book.render("day.speech_nomination", {"seat": 3}))
    cue, spoken = output.placements()
    assert spoken.start == cue.end  # it would have reached the cue: it waits for it instead
