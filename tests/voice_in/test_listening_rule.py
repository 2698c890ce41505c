"""The decision rule with plain numbers (no Vosk, no VAD): frames, words and times.

What a player notices: the speech ends ``WINDOW`` seconds after «спасибо» when they stop, never
while they are still talking, and not because the table murmurs afterwards.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost.voice_in.rule import (
    Frame,
    HeardWord,
    Hypothesis,
    StopWordRule,
    Verdict,
    choose_competitors,
    choose_fillers,
    sound_key,
    sounds_like,
)

WINDOW = 0.6
STEP = 0.03
SPEAKER_DB = -20.0


def frames(start: float, end: float, speech: bool, level: float) -> list[Frame]:
    out = []
    t = start
    while t < end - 1e-9:
        out.append(Frame(t, min(end, t + STEP), speech, level))
        t += STEP
    return out


def voice(start: float, end: float, level: float = SPEAKER_DB) -> list[Frame]:
    return frames(start, end, True, level)


def quiet(start: float, end: float) -> list[Frame]:
    return frames(start, end, False, -65.0)


def final(*spec: tuple[str, float, float]) -> Hypothesis:
    return Hypothesis(tuple(HeardWord(w, s, e) for w, s, e in spec), final=True)


EMPTY = Hypothesis((), final=False)


def run(rule: StopWordRule, timeline: list[Frame], finals: dict[float, Hypothesis]):
    """Feed frames in order; at each listed time hand the rule that final hypothesis; return
    every decision with the time it came."""
    decisions = []
    pending = sorted(finals.items())
    for frame in timeline:
        now = frame.end
        decisions.extend((now, d) for d in rule.hear([frame]))
        hypothesis = EMPTY
        if pending and pending[0][0] <= now + 1e-9:
            hypothesis = pending.pop(0)[1]
        decisions.extend((now, d) for d in rule.observe(hypothesis, now))
    return decisions


def ended(decisions):
    return [(now, d) for now, d in decisions if d.verdict is Verdict.SPEECH_ENDED]


def test_the_speech_ends_a_window_after_the_stop_word_once_the_speaker_is_silent():
    rule = StopWordRule(["спасибо", "пас"], WINDOW)
    timeline = voice(0.0, 0.8) + quiet(0.8, 1.0) + voice(1.0, 1.6) + quiet(1.6, 4.0)
    spoken = final(("я", 0.0, 0.8), ("спасибо", 1.0, 1.6))

    [(at, decision)] = ended(run(rule, timeline, {1.9: spoken}))

    assert decision.word.word == "спасибо"
    assert 1.6 + WINDOW - 1e-6 <= at <= 1.6 + WINDOW + STEP
    assert "without the speaker's voice" in decision.reason


def test_silence_that_began_before_the_stop_word_ended_counts_for_nothing():
    # Vosk puts the word's end at 1.5 s while the VAD heard the voice stop at 1.2 s: the
    # window is counted from the word's end.
    rule = StopWordRule(["пас"], WINDOW)
    timeline = voice(0.5, 1.2) + quiet(1.2, 4.0)

    [(at, _)] = ended(run(rule, timeline, {1.3: final(("пас", 0.5, 1.5))}))

    assert at >= 1.5 + WINDOW - 1e-6


def test_the_speakers_voice_during_the_window_cancels_the_stop_word_and_says_why():
    rule = StopWordRule(["спасибо"], WINDOW)
    timeline = voice(0.0, 0.6) + quiet(0.6, 0.9) + voice(0.9, 1.5) + quiet(1.5, 4.0)

    decisions = run(rule, timeline, {0.7: final(("спасибо", 0.0, 0.6))})

    assert not ended(decisions)
    [(_, followed)] = decisions
    assert followed.verdict is Verdict.FOLLOWED_BY_SPEECH
    assert "followed by the speaker's voice 0.30 s later" in followed.reason


def test_the_vads_lag_just_after_the_word_is_still_the_word():
    rule = StopWordRule(["пас"], WINDOW)
    timeline = voice(0.0, 0.5) + quiet(0.5, 3.0)

    assert ended(run(rule, timeline, {1.2: final(("пас", 0.0, 0.42))}))


def test_people_murmuring_after_the_stop_word_neither_hold_the_speech_nor_count_as_words():
    # The speaker at -20 dBFS; the table murmurs at -36 dBFS, and Vosk makes a word of it.
    rule = StopWordRule(["спасибо"], WINDOW)
    timeline = voice(0.0, 0.7) + voice(0.9, 5.0, level=-36.0)
    spoken = final(("спасибо", 0.0, 0.7), ("город", 1.0, 1.4))

    [(at, decision)] = ended(run(rule, timeline, {1.5: spoken}))

    assert decision.word.word == "спасибо"
    assert at < 2.0


def test_the_speaker_going_on_at_their_own_level_is_not_the_room():
    rule = StopWordRule(["спасибо"], WINDOW)
    timeline = voice(0.0, 0.7) + quiet(0.7, 1.0) + voice(1.0, 5.0, level=-24.0)
    spoken = final(("спасибо", 0.0, 0.7), ("что", 1.0, 1.3))

    assert not ended(run(rule, timeline, {1.4: spoken}))


def test_words_after_the_stop_word_in_one_result_keep_the_speech_going():
    rule = StopWordRule(["спасибо"], WINDOW)
    timeline = voice(0.0, 1.4) + quiet(1.4, 3.0)
    spoken = final(("спасибо", 0.0, 0.5), ("что", 0.6, 0.8), ("выслушали", 0.8, 1.4))

    decisions = run(rule, timeline, {2.1: spoken})

    assert not ended(decisions)
    assert decisions[0][1].reason == "«спасибо» was followed by «что» 0.10 s later"


def test_a_stop_word_heard_with_low_confidence_ends_nothing():
    rule = StopWordRule(["пас"], WINDOW, min_confidence=0.8)
    timeline = voice(0.0, 0.4) + quiet(0.4, 2.0)
    unsure = Hypothesis((HeardWord("пас", 0.0, 0.4, 0.5),), True)

    [(_, low)] = run(rule, timeline, {1.0: unsure})

    assert low.verdict is Verdict.LOW_CONFIDENCE


def test_stop_words_match_whatever_the_case_and_reset_starts_a_new_speech():
    rule = StopWordRule(["Спасибо"], WINDOW)
    timeline = voice(0.0, 0.5) + quiet(0.5, 2.0)

    assert ended(run(rule, timeline, {1.1: final(("спасибо", 0.0, 0.5))}))
    assert rule.ended
    rule.reset()
    assert ended(run(rule, timeline, {1.1: final(("спасибо", 0.0, 0.5))}))


def test_vosk_is_asked_to_close_only_after_the_speaker_spoke_and_fell_silent():
    rule = StopWordRule(["пас"], WINDOW)
    rule.hear(quiet(0.0, 2.0))
    assert not rule.should_close(2.0)  # nobody spoke
    rule.hear(voice(2.0, 2.5) + quiet(2.5, 3.0))
    assert not rule.should_close(3.0)
    rule.hear(quiet(3.0, 3.2))
    assert rule.should_close(3.2)
    rule.closed()
    assert not rule.should_close(4.0)  # not again before the speaker speaks again


words = st.sampled_from(["спасибо", "пас", "я", "думаю", "пятый"])


@settings(deadline=None)  # about 40 ms natively, over 200 ms under Pi emulation (make pi-check)
@given(
    st.lists(st.tuples(st.booleans(), st.floats(0.03, 1.5)), max_size=12),
    st.lists(st.tuples(words, st.floats(0, 8), st.floats(0.1, 0.8)), max_size=6),
    st.lists(st.floats(0, 9), max_size=4),
)
def test_a_speech_ends_only_a_window_after_a_last_stop_word_with_no_voice_after_it(
    segments, spoken, close_times
):
    rule = StopWordRule(["спасибо", "пас"], WINDOW)
    timeline: list[Frame] = []
    t = 0.0
    for is_voice, length in segments:
        timeline += voice(t, t + length) if is_voice else quiet(t, t + length)
        t += length
    timeline += quiet(t, t + 2.0)
    heard = sorted((HeardWord(w, s, s + d) for w, s, d in spoken), key=lambda h: h.start)
    finals = {
        at: Hypothesis(tuple(h for h in heard if h.end <= at), True) for at in sorted(close_times)
    }

    for at, decision in ended(run(rule, timeline, finals)):
        word = decision.word
        assert word.word in ("спасибо", "пас")
        assert at - word.end >= WINDOW - 1e-6
        tail = rule.tuning.word_tail_seconds
        assert not [f for f in timeline if f.speech and word.end + tail < f.start < at]


def test_fillers_are_drawn_from_the_vocabulary_and_sound_unlike_the_stop_words():
    vocabulary = ["спасибо", "пас", "паспорт", "спасатель", "город", "ночь", "мафия", "hello",
                  "123", "вода", "дом", "красный", "стол", "опасность"]  # fmt: skip

    fillers = choose_fillers(vocabulary, ["спасибо", "пас"], 4)

    assert len(fillers) == 4
    assert set(fillers) <= {"город", "ночь", "мафия", "вода", "дом", "красный", "стол"}
    assert choose_fillers(vocabulary, ["спасибо", "пас"], 4) == fillers  # the same every time
    assert choose_fillers(["город"], ["пас"], 0) == ()


def test_the_filler_the_old_code_meant_to_refuse_is_refused():
    # 칼솜씨 took 감사합니다's place in 11 misses: it shares «VmsV» with it.
    assert sounds_like(sound_key("칼솜씨"), [sound_key("감사합니다")])
    assert sounds_like(sound_key("спасение"), [sound_key("спасибо")])
    assert not sounds_like(sound_key("город"), [sound_key("спасибо"), sound_key("пас")])


RUSSIAN_TEXT = (
    "спасибо пас спасибочки паспорт опасно пасть паз город мафия ночь день голос стол "
    "дом вода игрок шериф доктор красный чёрный судья минута речь слово время пятый "
    "седьмой думаю считаю уверен голосую выставляю спасать опасность запасной"
)
RUSSIAN_WORDS = RUSSIAN_TEXT.split()


def test_competitors_are_the_words_that_sound_most_like_each_stop_word():
    competitors = choose_competitors(RUSSIAN_WORDS, ["спасибо", "пас"], 6)

    assert {"спасибочки", "паспорт", "опасно", "пасть"} <= set(competitors)
    assert not {"спасибо", "пас"} & set(competitors)  # never a stop word itself
    assert "паз" not in competitors  # sounds the same as «пас»: it would take its place
    assert not {"город", "мафия", "голосую", "доктор"} & set(competitors)
    # The same words whatever the vocabulary's order (a model's word table has its own).
    assert set(choose_competitors(RUSSIAN_WORDS[::-1], ["спасибо", "пас"], 6)) == set(competitors)
    assert choose_competitors(RUSSIAN_WORDS, ["спасибо"], 0) == ()
