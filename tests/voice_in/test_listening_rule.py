"""The decision rule, the silence meter and the filler choice, with plain numbers (no Vosk)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from voicehost.voice_in.rule import (
    HeardWord,
    Hypothesis,
    SilenceMeter,
    StopWordRule,
    Verdict,
    choose_fillers,
)

WINDOW = 0.6


def words(*spec: tuple[str, float, float]) -> tuple[HeardWord, ...]:
    return tuple(HeardWord(word, start, end) for word, start, end in spec)


def final(*spec: tuple[str, float, float]) -> Hypothesis:
    return Hypothesis(words(*spec), final=True)


def partial(*spec: tuple[str, float, float]) -> Hypothesis:
    return Hypothesis(words(*spec), final=False)


EMPTY = Hypothesis((), final=False)


def test_the_last_stop_word_ends_the_speech_once_the_room_is_quiet_long_enough():
    rule = StopWordRule(["спасибо", "пас"], WINDOW)

    assert rule.observe(final(("я", 0.0, 0.2), ("спасибо", 0.3, 0.9)), 1.3, 0.4) == []
    assert rule.observe(EMPTY, 1.4, 0.5) == []
    [ended] = rule.observe(EMPTY, 1.5, 0.6)

    assert ended.verdict is Verdict.SPEECH_ENDED
    assert ended.word.word == "спасибо"
    assert "0.60 s of silence" in ended.reason
    assert rule.observe(EMPTY, 2.0, 1.1) == []  # once


def test_a_stop_word_followed_by_more_words_is_ignored_and_says_why():
    rule = StopWordRule(["спасибо"], WINDOW)

    decisions = rule.observe(
        final(("спасибо", 0.0, 0.5), ("что", 0.6, 0.8), ("выслушали", 0.8, 1.4)), 2.1, 0.7
    )

    [ignored] = decisions
    assert ignored.verdict is Verdict.FOLLOWED_BY_SPEECH
    assert ignored.reason == "«спасибо» was followed by «что» 0.10 s later"
    assert not rule.ended


def test_speech_resuming_before_the_silence_is_over_cancels_the_stop_word():
    rule = StopWordRule(["спасибо"], WINDOW)
    rule.observe(final(("спасибо", 0.0, 0.5)), 1.0, 0.3)

    [ignored] = rule.observe(partial(("я", 1.1, 1.2)), 1.2, 0.0)
    assert ignored.verdict is Verdict.FOLLOWED_BY_SPEECH
    assert rule.observe(EMPTY, 3.0, 1.5) == []  # the candidate is gone


def test_partial_results_never_end_a_speech():
    rule = StopWordRule(["пас"], WINDOW)

    assert rule.observe(partial(("пас", 0.0, 0.4)), 2.0, 1.6) == []


def test_a_stop_word_heard_with_low_confidence_ends_nothing():
    rule = StopWordRule(["пас"], WINDOW, min_confidence=0.8)

    [low] = rule.observe(Hypothesis((HeardWord("пас", 0.0, 0.4, 0.5),), True), 1.0, 0.6)

    assert low.verdict is Verdict.LOW_CONFIDENCE
    assert rule.observe(EMPTY, 2.0, 1.6) == []


def test_stop_words_match_whatever_the_case():
    rule = StopWordRule(["Спасибо"], WINDOW)

    [ended] = rule.observe(final(("спасибо", 0.0, 0.5)), 1.1, 0.6)
    assert ended.verdict is Verdict.SPEECH_ENDED


def test_reset_starts_a_new_speech():
    rule = StopWordRule(["пас"], WINDOW)
    rule.observe(final(("пас", 0.0, 0.4)), 1.0, 0.6)
    assert rule.ended

    rule.reset()

    [ended] = rule.observe(final(("пас", 0.0, 0.4)), 1.0, 0.6)
    assert ended.verdict is Verdict.SPEECH_ENDED


vocabulary_words = st.sampled_from(["спасибо", "пас", "я", "думаю", "пятый", "мафия"])


@given(
    st.lists(
        st.tuples(st.lists(vocabulary_words, max_size=4), st.booleans(), st.floats(0, 2)),
        max_size=8,
    )
)
def test_only_a_final_hypothesis_ending_in_a_stop_word_then_silence_ends_a_speech(steps):
    rule = StopWordRule(["спасибо", "пас"], WINDOW)
    now = 0.0
    last_final_word: str | None = None
    heard_since = False
    for spoken, is_final, silent_for in steps:
        now += 1.0
        heard = tuple(
            HeardWord(w, now - 0.9 + i * 0.1, now - 0.85 + i * 0.1) for i, w in enumerate(spoken)
        )
        if is_final and heard:
            last_final_word, heard_since = heard[-1].word, False
        elif heard:
            heard_since = True
        for decision in rule.observe(Hypothesis(heard, is_final), now, silent_for):
            if decision.verdict is Verdict.SPEECH_ENDED:
                assert last_final_word in ("спасибо", "пас")
                assert not heard_since
                assert silent_for >= WINDOW - 1e-6


def tone(seconds: float, dbfs: float, rate: int = 16000) -> np.ndarray:
    t = np.arange(round(seconds * rate)) / rate
    amplitude = 32768 * 10 ** (dbfs / 20) * np.sqrt(2)
    return np.round(amplitude * np.sin(2 * np.pi * 220 * t)).astype(np.int16)


def noise(seconds: float, dbfs: float, rate: int = 16000, seed: int = 1) -> np.ndarray:
    level = 32768 * 10 ** (dbfs / 20)
    values = np.random.default_rng(seed).normal(0, level, round(seconds * rate))
    return np.round(values).astype(np.int16)


def test_the_meter_counts_silence_after_speech():
    meter = SilenceMeter(16000)
    meter.feed(noise(2.0, -60))
    meter.feed(tone(1.0, -20))
    assert meter.silent_for == 0.0 and meter.heard_speech

    meter.feed(noise(0.5, -60, seed=2))

    assert abs(meter.silent_for - 0.5) < 0.02


def test_a_steady_noisy_room_still_counts_as_silence():
    # A fan at -40 dBFS: louder than the fixed floor, but it is the room's own quiet.
    meter = SilenceMeter(16000)
    meter.feed(noise(3.0, -40))
    meter.feed(tone(1.0, -15))
    meter.feed(noise(0.7, -40, seed=3))

    assert abs(meter.silent_for - 0.7) < 0.02


def test_fillers_are_drawn_from_the_vocabulary_and_sound_unlike_the_stop_words():
    vocabulary = ["спасибо", "пас", "паспорт", "спасатель", "город", "ночь", "мафия", "hello",
                  "123", "вода", "дом", "красный", "стол", "опасность"]  # fmt: skip

    fillers = choose_fillers(vocabulary, ["спасибо", "пас"], 5)

    assert len(fillers) == 5
    assert set(fillers) <= {"город", "ночь", "мафия", "вода", "дом", "красный", "стол"}
    assert choose_fillers(vocabulary, ["спасибо", "пас"], 5) == fillers  # the same every time


def test_no_fillers_when_none_are_wanted():
    assert choose_fillers(["город"], ["пас"], 0) == ()
