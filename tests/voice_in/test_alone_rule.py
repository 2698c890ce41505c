"""The decision rule with plain numbers (no Vosk, no VAD): the speaker's voice and words.

What a player notices: the speech ends ``WINDOW`` seconds after a «спасибо» said on its own,
never while they are still talking, never on the last word of a sentence that only sounds like
one («…среди нас», «…спасибо вам, что пришли») even when a breath as long as the window follows
it, and not because the table murmurs afterwards.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost.testing.listening_set import RUSSIAN_LOOKALIKE_LEADS
from voicehost.voice_in.rule import (
    AloneRule,
    AloneTuning,
    Frame,
    HeardWord,
    Refereed,
    Utterance,
    Verdict,
    sound_key,
    sounds_like,
)

WINDOW = 0.6
WARY_WINDOW = 1.2
"""The window after the speech's first words or a short pause (``wary_silence_seconds``)."""
SHORT_PAUSE = 0.35
STEP = 0.032
SPEAKER_DB = -20.0
STOP_WORDS = ("спасибо", "пас")


def timeline(*spans: tuple[float, float, float | None]) -> list[Frame]:
    """Frames from (start, end, level): a level is the speaker's voice at it, None quiet."""
    out = []
    for start, end, level in spans:
        t = start
        while t < end - 1e-9:
            speech = level is not None
            out.append(Frame(t, min(end, t + STEP), speech, level if speech else -65.0))
            t += STEP
    return out


def looks(rule: AloneRule, frames: list[Frame]) -> list[Utterance]:
    return rule.hear(frames)


def test_a_stop_word_alone_after_a_pause_is_looked_at_a_window_after_it():
    rule = AloneRule(STOP_WORDS)
    frames = timeline(
        (0, 2.0, SPEAKER_DB), (2.0, 2.5, None), (2.5, 3.1, SPEAKER_DB), (3.1, 5, None)
    )

    [utterance] = looks(rule, frames)

    assert abs(utterance.start - 2.5) < STEP and abs(utterance.end - 3.1) < STEP
    assert abs(utterance.quiet_before - 0.5) < STEP


def test_a_sentence_s_last_word_is_never_looked_at_even_before_a_long_breath():
    # «Я думаю, что мафия среди нас», a breath of 0.9 s, then «спасибо».
    rule = AloneRule(STOP_WORDS)
    sentence = (0.3, 2.4, SPEAKER_DB)
    frames = timeline((0, 0.3, None), sentence, (2.4, 3.3, None), (3.3, 3.9, SPEAKER_DB))
    frames += timeline((3.9, 5.0, None))

    ready = looks(rule, frames)

    assert [round(u.start, 1) for u in ready] == [3.3]  # only the real «спасибо»


def test_a_stop_word_with_speech_right_before_it_is_not_alone():
    rule = AloneRule(STOP_WORDS)
    frames = timeline(
        (0, 1.0, SPEAKER_DB), (1.0, 1.1, None), (1.1, 1.7, SPEAKER_DB), (1.7, 3, None)
    )

    assert looks(rule, frames) == []  # «…пятого, спасибо» with 0.1 s between: a miss, not a cut


def test_the_speaker_going_on_within_the_window_is_never_looked_at():
    rule = AloneRule(STOP_WORDS)
    frames = timeline((0, 0.6, SPEAKER_DB), (0.6, 1.0, None), (1.0, 3.0, SPEAKER_DB))
    frames += timeline((3.0, 4.0, None))

    assert looks(rule, frames) == []


def test_people_murmuring_after_the_stop_word_do_not_hold_the_speech_open():
    rule = AloneRule(STOP_WORDS)
    frames = timeline((0, 1.5, SPEAKER_DB), (1.5, 2.0, None), (2.0, 2.6, SPEAKER_DB))
    frames += timeline((2.6, 4.0, SPEAKER_DB - 18))  # the table, far from the microphone

    [utterance] = looks(rule, frames)
    assert abs(utterance.start - 2.0) < STEP


def going_on(first_sound_db: float) -> list[Frame]:
    """«Спасибо», a breath as long as the window, then the player goes on: the frame that fills
    the window holds the first, soft sound of their next word, which the VAD does not hear yet."""
    frames = timeline((0, 1.5, SPEAKER_DB), (1.5, 2.0, None), (2.0, 2.592, SPEAKER_DB))
    frames += timeline((2.592, 3.168, None))
    frames.append(Frame(3.168, 3.2, False, first_sound_db))
    return frames + timeline((3.2, 5.0, SPEAKER_DB), (5.0, 6.0, None))


def test_the_window_never_closes_on_the_first_sound_of_the_player_s_next_word():
    rule = AloneRule(STOP_WORDS)

    assert looks(rule, going_on(first_sound_db=-38.0)) == []  # 27 dB over the frame before


def test_the_window_never_closes_on_the_second_sound_of_the_player_s_next_word():
    # Held-out seed 56: «감사합니다» in mid-speech, a breath, then the next words; the VAD heard
    # speech only from their third frame. The first rose 30 dB (-70 to -40), the second only
    # 9 dB more (-31): over the quietest of the frames before both are a voice beginning.
    frames = timeline((0, 1.5, SPEAKER_DB), (1.5, 2.0, None), (2.0, 2.592, SPEAKER_DB))
    frames += timeline((2.592, 3.168, None))
    frames += [Frame(3.168, 3.2, False, -40.0), Frame(3.2, 3.232, False, -31.0)]
    frames += timeline((3.232, 5.0, SPEAKER_DB), (5.0, 6.0, None))

    assert looks(AloneRule(STOP_WORDS), frames) == []


def test_a_sound_no_louder_than_the_room_s_ups_and_downs_closes_the_window_as_before():
    rule = AloneRule(STOP_WORDS)

    [utterance] = looks(rule, going_on(first_sound_db=-50.0))  # 15 dB over the frame before
    assert abs(utterance.start - 2.0) < STEP


def test_a_short_sentence_said_first_is_not_looked_at_before_the_breath_after_it_is_over():
    # «Я прошу вас», said first (1.2 s, heard whole as «пас» in noise), a breath of 1 s, then
    # the real «пас»: only the real one is looked at, and the speech ends after it.
    rule = AloneRule(STOP_WORDS)
    frames = timeline((0, 0.5, None), (0.5, 1.7, SPEAKER_DB), (1.7, 2.7, None))
    frames += timeline((2.7, 3.3, SPEAKER_DB), (3.3, 5.0, None))

    assert [round(u.start, 1) for u in looks(rule, frames)] == [2.7]


def test_the_rest_of_a_sentence_after_a_short_pause_is_not_looked_at_before_the_breath_is_over():
    # «Я не…» (0.3 s) «…комиссар» (0.7 s, heard as «спасибо»), a breath of 0.9 s, «спасибо».
    rule = AloneRule(STOP_WORDS)
    frames = timeline((0, 1.5, SPEAKER_DB), (1.5, 1.8, None), (1.8, 2.5, SPEAKER_DB))
    frames += timeline((2.5, 3.4, None), (3.4, 4.0, SPEAKER_DB), (4.0, 6.0, None))

    assert [round(u.start, 1) for u in looks(rule, frames)] == [3.4]


def test_a_stop_word_said_first_and_alone_ends_the_speech_after_the_longer_window():
    # A player who passes: «Пас.» and nothing more.
    rule = AloneRule(STOP_WORDS)
    said = timeline((0, 0.5, None), (0.5, 1.0, SPEAKER_DB))

    assert looks(rule, said + timeline((1.0, 1.0 + WINDOW + 2 * STEP, None))) == []
    [utterance] = looks(rule, timeline((1.0 + WINDOW + 2 * STEP, 1.0 + WARY_WINDOW + STEP, None)))
    assert abs(utterance.start - 0.5) < STEP and utterance.quiet_before == float("inf")


def test_a_club_s_longer_window_is_kept_after_the_first_words_too():
    rule = AloneRule(STOP_WORDS, AloneTuning(silence_seconds=1.5))
    frames = timeline((0, 0.5, None), (0.5, 1.0, SPEAKER_DB), (1.0, 2.3, None))

    assert looks(rule, frames) == []
    assert len(looks(rule, timeline((2.3, 2.6, None)))) == 1


def word(text: str, confidence: float = 1.0) -> HeardWord:
    return HeardWord(text, 2.05, 2.55, confidence)  # inside the utterances below


def test_the_speech_ends_only_when_every_word_of_the_second_look_is_a_stop_word():
    utterance = Utterance(2.0, 2.6, 0.5)

    assert AloneRule(STOP_WORDS).judge(utterance, [word("спасибочки")], 3.2) is None
    mixed = AloneRule(STOP_WORDS).judge(utterance, [word("нас"), word("спасибо")], 3.2)
    assert mixed is not None and mixed.verdict is Verdict.FOLLOWED_BY_SPEECH
    rule = AloneRule(STOP_WORDS)
    ended = rule.judge(utterance, [word("Спасибо")], 3.2, referee=[word("спасибо")])
    assert ended is not None and ended.verdict is Verdict.SPEECH_ENDED
    assert "said on its own (0.50 s of quiet before it)" in ended.reason
    assert rule.judge(utterance, [word("пас")], 3.3) is None  # once until reset


def test_the_host_is_told_why_the_speech_ended_later_after_a_short_pause_or_first_words():
    # listen --wav explains a 1.2 s window, so a club that set silence_seconds to 0.6 is not
    # left wondering.
    phrases = {}
    for before in (0.5, 0.3, float("inf")):
        rule = AloneRule(STOP_WORDS)
        ended = rule.judge(Utterance(2.0, 2.6, before), [word("пас")], 3.8, referee=[word("пас")])
        assert ended is not None and ended.verdict is Verdict.SPEECH_ENDED
        phrases[before] = (ended.phrase, ended.reason)

    assert phrases[0.5][0] == "listen_alone" and "longer" not in phrases[0.5][1]
    assert phrases[0.3][0] == "listen_alone_short_pause"
    assert "a short pause, so a longer window of quiet" in phrases[0.3][1]
    assert phrases[float("inf")][0] == "listen_alone_at_start_longer"
    assert "window of quiet is longer" in phrases[float("inf")][1]
    # A club whose own window is longer still is not told of a longer one.
    for before, plain in ((0.3, "listen_alone"), (float("inf"), "listen_alone_at_start")):
        rule = AloneRule(STOP_WORDS, AloneTuning(silence_seconds=1.5))
        ended = rule.judge(Utterance(2.0, 2.6, before), [word("пас")], 4.2, referee=[word("пас")])
        assert ended is not None and ended.phrase == plain and "longer" not in ended.reason


def test_a_stop_word_heard_with_low_confidence_ends_nothing():
    from voicehost.voice_in.rule import AloneTuning

    rule = AloneRule(STOP_WORDS, AloneTuning(min_confidence=0.8))
    decision = rule.judge(Utterance(2.0, 2.6, 0.5), [word("пас", 0.5)], 3.2)

    assert decision is not None and decision.verdict is Verdict.LOW_CONFIDENCE
    assert not rule.ended


def test_the_russian_look_alike_sentences_end_in_a_word_that_sounds_like_a_stop_word():
    # «…среди нас», «…в первый раз», «…прошу вас», «Спасибо вам, что выслушали»: said as a
    # sentence, each ends (or starts) like «пас» / «спасибо»; said before a breath and the
    # real «спасибо», it is a sentence's word, with the sentence around it.
    stops = [sound_key(stop) for stop in STOP_WORDS]
    endings = {
        lead.rstrip(".!").split()[-1].strip(",").casefold() for lead in RUSSIAN_LOOKALIKE_LEADS
    }
    assert {"нас", "раз", "вас"} <= endings
    for lead in RUSSIAN_LOOKALIKE_LEADS:
        said = [w.strip(",.").casefold() for w in lead.split()]
        assert len(said) >= 3, lead  # a sentence, never a word alone
        assert said[-1] not in STOP_WORDS
        shaped = [w for w in said if w in STOP_WORDS or _one_sound_from(sound_key(w), stops)]
        shaped += [w for w in said if sounds_like(sound_key(w), stops)]
        assert shaped, f"{lead}: nothing in it sounds like a stop word"


def _one_sound_from(key: str, stops: list[str]) -> bool:
    return any(
        len(key) == len(stop) and sum(a != b for a, b in zip(key, stop, strict=True)) == 1
        for stop in stops
    )


TURNS = st.lists(
    st.tuples(st.floats(0.05, 2.5), st.floats(0.05, 1.5)),  # (voice, quiet) in turn
    min_size=1,
    max_size=8,
)


def spans_of(turns: list[tuple[float, float]]) -> list[tuple[float, float, float | None]]:
    """(start, end, level) spans for ``timeline``: the speaker's voice and quiet in turn."""
    spans: list[tuple[float, float, float | None]] = []
    t = 0.0
    for spoken, pause in turns:
        spans.append((t, t + spoken, SPEAKER_DB))
        spans.append((t + spoken, t + spoken + pause, None))
        t += spoken + pause
    return spans


@settings(max_examples=200, deadline=None)
@given(TURNS)
def test_only_voice_standing_alone_and_followed_by_the_window_is_ever_looked_at(turns):
    rule = AloneRule(STOP_WORDS)
    spans = spans_of(turns)
    frames = timeline(*spans)
    ready = looks(rule, frames)
    voiced = [f for f in frames if f.speech]
    for utterance in ready:
        before = [f for f in voiced if f.end <= utterance.start + 1e-9]
        after = [f for f in voiced if f.start >= utterance.end - 1e-9]
        sure = before and utterance.start - before[-1].end >= SHORT_PAUSE - STEP
        window = WINDOW if sure else WARY_WINDOW
        assert not after or after[0].start - utterance.end >= window - 1e-6 - STEP
        assert not before or utterance.start - before[-1].end >= 0.25 - 1e-6
        assert 0.2 - 1e-6 <= utterance.end - utterance.start <= 1.5 + 1e-6


SOUNDS = st.lists(
    st.tuples(
        st.integers(0, 7),  # in the quiet after which turn
        st.integers(0, 24),  # how many frames into it (the window is full on the 19th)
        st.booleans(),  # heard as speech by the VAD
        st.sampled_from((-55.0, -45.0, -38.0, -30.0)),
        st.booleans(),  # the speaker's voice from the next frame
    ),
    max_size=8,
)


@settings(max_examples=300, deadline=None)
@given(TURNS, SOUNDS)
def test_a_voice_beginning_only_ever_withholds_a_window_and_never_adds_one(turns, sounds):
    # The speaker's words and pauses, with sounds here and there in the quiet (soft or loud,
    # heard as speech by the VAD or not, some the first sound of more words): what is looked
    # at with the rule is what would be looked at without it, less the windows it kept open
    # (a window kept open a frame longer may lose the VAD's lingering at its end, never gain
    # voice).
    frames = timeline(*spans_of(turns))
    quiet_starts = [
        i for i, frame in enumerate(frames) if not frame.speech and (i == 0 or frames[i - 1].speech)
    ]
    for turn, offset, speech, level, words_after in sounds:
        index = quiet_starts[turn % len(quiet_starts)] + offset if quiet_starts else len(frames)
        if index < len(frames) and not frames[index].speech:
            frames[index] = replace(frames[index], speech=speech, level_db=level)
            for after in range(index + 1, min(index + 9, len(frames)) if words_after else 0):
                frames[after] = replace(frames[after], speech=True, level_db=SPEAKER_DB)
    without = AloneRule(STOP_WORDS, AloneTuning(onset_db=float("inf"))).hear(frames)
    ready = AloneRule(STOP_WORDS).hear(frames)

    for utterance in ready:
        assert any(
            other.start == utterance.start and other.end >= utterance.end - 1e-9
            for other in without
        )
    assert len(ready) <= len(without)


def test_a_stop_word_heard_in_less_time_than_it_takes_to_say_ends_nothing():
    # «да» (0.25 s) heard as «спасибо»: seven sounds take a person at least a third of a second.
    rule = AloneRule(STOP_WORDS)
    decision = rule.judge(Utterance(2.1, 2.35, 0.5), [HeardWord("спасибо", 2.1, 2.35)], 2.9)

    assert decision is not None and decision.verdict is Verdict.LOW_CONFIDENCE
    assert "too short" in decision.reason
    assert not rule.ended


def test_a_whole_sentence_heard_as_one_short_stop_word_ends_nothing():
    # «Я за то, чтобы всех нас…» said alone (1.38 s), heard whole as «пас»: three sounds, which
    # take even a slow speaker no more than a second; a drawn-out «па-а-ас» of 0.9 s still ends.
    rule = AloneRule(STOP_WORDS)
    sentence = rule.judge(Utterance(2.0, 3.38, 0.5), [HeardWord("пас", 2.0, 3.38)], 4.0)

    assert sentence is not None and sentence.verdict is Verdict.FOLLOWED_BY_SPEECH
    assert sentence.phrase == "listen_too_long" and dict(sentence.params)["longest"] == "1.00"
    assert not rule.ended
    heard = [HeardWord("пас", 2.0, 2.9)]
    drawn_out = rule.judge(Utterance(2.0, 2.9, 0.5), heard, 3.5, referee=heard)
    assert drawn_out is not None and drawn_out.verdict is Verdict.SPEECH_ENDED
    heard = [HeardWord("спасибо", 2.0, 3.4)]
    spoken = AloneRule(STOP_WORDS).judge(Utterance(2.0, 3.4, 0.5), heard, 4.0, referee=heard)
    assert spoken is not None and spoken.verdict is Verdict.SPEECH_ENDED  # 7 sounds: 2.3 s


def test_a_weakly_heard_stop_word_ends_the_speech_only_when_the_referee_hears_it_too():
    utterance = Utterance(2.0, 2.6, 0.5)
    from voicehost.voice_in.rule import AloneTuning

    weak = [word("спасибо", 0.6)]
    rule = AloneRule(STOP_WORDS, AloneTuning(sure_confidence=0.75))
    assert rule.unsure(weak) and not rule.unsure([word("спасибо", 0.9)])

    refused = rule.judge(utterance, weak, 3.2, referee=[word("пятый")])
    assert refused is not None and refused.verdict is Verdict.LOW_CONFIDENCE
    assert "0 of 1 wider grammars heard only stop words («пятый»)" in refused.reason
    assert rule.judge(utterance, weak, 3.2) is not None and not rule.ended  # no referee: no end

    ended = rule.judge(utterance, weak, 3.2, referee=[word("спасибо", 0.8)])
    assert ended is not None and ended.verdict is Verdict.SPEECH_ENDED


def test_a_sentence_standing_alone_of_which_only_a_stop_word_was_heard_ends_nothing():
    # «Я сегодня пас, извините» said alone after a pause, then a breath: 1.4 s of voice, of
    # which the stop words' grammar heard only «пас» (nothing else to put the rest into).
    utterance = Utterance(2.0, 3.4, 0.5)
    heard = [HeardWord("пас", 2.55, 2.9)]
    rule = AloneRule(STOP_WORDS)

    decision = rule.judge(utterance, heard, 4.0, panel=[heard] * 3)

    assert decision is not None and decision.phrase == "listen_unheard"
    assert decision.verdict is Verdict.FOLLOWED_BY_SPEECH and not rule.ended
    assert "1.05 s of which held no word" in decision.reason
    # A stop word said slowly, heard over most of its voice: the speech ends.
    slow = [HeardWord("спасибо", 2.3, 3.35)]
    ended = rule.judge(utterance, slow, 4.0, panel=[slow] * 3)
    assert ended is not None and ended.verdict is Verdict.SPEECH_ENDED


@given(
    st.lists(
        st.tuples(st.floats(0, 3), st.floats(0.01, 2)).map(lambda p: (p[0], p[0] + p[1])),
        max_size=5,
    ),
    st.tuples(st.floats(0, 3), st.floats(0.01, 2)).map(lambda p: (p[0], p[0] + p[1])),
)
def test_the_voice_left_unheard_is_never_negative_nor_grows_with_more_words(spans, extra):
    utterance = Utterance(1.0, 2.5, 0.5)
    words = [HeardWord("пас", start, end) for start, end in spans]
    left = AloneRule.unheard(utterance, words)
    assert 0.0 <= left <= 1.5 + 1e-9
    assert AloneRule.unheard(utterance, [*words, HeardWord("ганс", *extra)]) <= left + 1e-9
    assert AloneRule.unheard(utterance, []) == 1.5


def test_a_stop_word_heard_twice_in_one_breath_ends_nothing():
    # «…пароль — паспорт» said alone, heard as «пас пас»: more than a stop word was said.
    utterance = Utterance(2.0, 3.4, 0.5)
    twice = [HeardWord("пас", 2.05, 2.6), HeardWord("пас", 2.6, 3.35)]
    rule = AloneRule(STOP_WORDS)

    decision = rule.judge(utterance, twice, 4.0, panel=[twice, twice, twice])

    assert decision is not None and decision.verdict is Verdict.FOLLOWED_BY_SPEECH
    assert not rule.ended and "2 times in one breath" in decision.reason
    # Said twice with a pause between, each is a stretch of its own and the second ends it.
    once = rule.judge(Utterance(2.95, 3.4, 0.35), twice[1:], 4.0, panel=[twice[1:]] * 3)
    assert once is not None and once.verdict is Verdict.SPEECH_ENDED


def test_a_referee_that_cannot_tell_the_stop_word_from_its_ordinary_word_refuses_nothing():
    # In a quiet room the Listener keeps each referee's hearings scored nearly as high as its
    # best (Refereed.close): one that heard «ганс» but «пас» alone almost as likely agrees,
    # though one referee at least must choose «пас» outright.
    utterance = Utterance(2.0, 2.6, 0.5)
    said = [word("пас")]
    chose = Refereed([word("пас")])
    torn = Refereed([word("ганс")], close=[(word("пас"),)])
    refusing = Refereed([word("ганс")])
    more = Refereed([word("ганс")], close=[(word("пас"), HeardWord("пятый", 2.3, 2.5))])
    rule = AloneRule(STOP_WORDS)

    assert rule.agreed(utterance, torn) and not rule.agreed(utterance, refusing)
    assert not rule.agreed(utterance, torn, doubting=False)
    assert not rule.agreed(utterance, more)  # the close hearing must be stop words alone too
    assert rule.stands(utterance, said, [chose, torn, refusing])
    assert not rule.stands(utterance, said, [chose, refusing, refusing])
    refused = rule.judge(utterance, said, 3.2, panel=[refusing, more, torn])
    assert refused is not None and "1 of 3 wider grammars" in refused.reason
    assert "«ганс»; «ганс»; «ганс»" in refused.reason  # what each referee heard best
    # Doubt alone never ends a speech: a short «да» left two referees torn, none chose.
    doubt = rule.judge(utterance, said, 3.2, panel=[torn, torn, refusing])
    assert doubt is not None and doubt.verdict is Verdict.LOW_CONFIDENCE
    assert doubt.phrase == "listen_only_doubt" and not rule.ended


def test_a_click_heard_as_a_word_is_taken_out_and_a_word_as_long_as_a_word_is_not():
    # The burst at «спасибо»'s start, heard by a grammar of ordinary words as «ганс» in its
    # first 0.1 s: voice that short is no word. 0.2 s of the voice (shortest_word_seconds) is.
    utterance = Utterance(2.0, 2.9, 0.5)
    thanks = HeardWord("спасибо", 2.1, 2.85)
    rule = AloneRule(STOP_WORDS)

    assert rule.without_clicks(utterance, [HeardWord("ганс", 1.9, 2.1), thanks]) == (thanks,)
    said = [HeardWord("пятый", 1.9, 2.2), thanks]
    assert rule.without_clicks(utterance, said) == tuple(said)
    # A stop word is never a click, however short (the rule's other tests judge it).
    short = (HeardWord("пас", 2.0, 2.05),)
    assert rule.without_clicks(utterance, short) == short
    longer = AloneRule(STOP_WORDS, AloneTuning(shortest_word_seconds=0.35))
    assert longer.without_clicks(utterance, said) == (thanks,)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["спасибо", "пас", "ганс", "пятый"]),
            st.floats(0, 4, allow_nan=False),
            st.floats(0, 1.5, allow_nan=False),
        ),
        max_size=6,
    )
)
def test_taking_clicks_out_keeps_every_stop_word_and_every_word_long_enough(spans):
    utterance = Utterance(1.0, 2.5, 0.5)
    words = [HeardWord(text, start, start + length) for text, start, length in spans]
    kept = AloneRule(STOP_WORDS).without_clicks(utterance, words)
    assert [w for w in words if w.word in STOP_WORDS] == [w for w in kept if w.word in STOP_WORDS]
    for word in kept:
        inside = min(word.end, utterance.end) - max(word.start, utterance.start)
        assert word.word in STOP_WORDS or inside >= 0.2 - 1e-6
    assert list(kept) == [w for w in words if w in kept]  # in the order heard


def test_a_stop_word_stretched_over_the_quiet_of_cleaned_audio_ends_nothing():
    # Cleaning the room's hiss out leaves a residue in the quiet before a short «да»; the
    # decoder stretches a stop word over it, from the cleaned audio's very first sample.
    # Said, a stop word begins inside the padding of quiet before the voice.
    utterance = Utterance(2.0, 2.6, 0.5)
    cleaned = (1.8, 2.8)  # the voice with 0.2 s of quiet either side
    agreeing = [[word("пас")]] * 3
    rule = AloneRule(STOP_WORDS)

    stretched = [HeardWord("пас", 1.81, 2.5)]
    refused = rule.judge(utterance, stretched, 3.2, panel=agreeing, cleaned=cleaned)
    assert refused is not None and refused.verdict is Verdict.LOW_CONFIDENCE
    assert refused.phrase == "listen_residue" and not rule.ended
    assert not rule.needs_panel(utterance, stretched, cleaned)  # no referee is asked
    # The same words heard as captured are the decoder's, not the cleaning's.
    assert rule.stands(utterance, stretched, agreeing)

    # A word running to the very end is a soft ending fading into the hiss: it ends.
    for said in ([HeardWord("пас", 1.9, 2.7)], [HeardWord("пас", 2.1, 2.8)]):
        assert rule.needs_panel(utterance, said, cleaned)
        assert rule.stands(utterance, said, agreeing, cleaned)
    ended = rule.judge(
        utterance, [HeardWord("пас", 2.1, 2.8)], 3.2, panel=agreeing, cleaned=cleaned
    )
    assert ended is not None and ended.verdict is Verdict.SPEECH_ENDED


def test_a_panel_of_referees_decides_by_majority_so_one_look_alike_word_cannot_veto():
    # One referee's ordinary words may hold one the model hears for «пас» (the proxy's 한신):
    # alone it refused «пас» said clearly; two of three referees hearing it end the speech.
    utterance = Utterance(2.0, 2.6, 0.5)
    said = [word("пас")]
    stealer, agreeing = [word("ганс")], [word("пас")]

    rule = AloneRule(STOP_WORDS)
    assert not rule.stands(utterance, said, [stealer])
    assert rule.stands(utterance, said, [stealer, agreeing, agreeing])
    assert not rule.ended  # stands() only asks
    refused = rule.judge(utterance, said, 3.2, panel=[stealer, stealer, agreeing])
    assert refused is not None and refused.verdict is Verdict.LOW_CONFIDENCE
    assert "1 of 3 wider grammars" in refused.reason and "«ганс»; «пас»" in refused.reason
    assert dict(refused.params)["agreeing"] == "1" and dict(refused.params)["asked"] == "3"
    nothing = rule.judge(utterance, said, 3.2, panel=[[], [], agreeing])
    assert nothing is not None and nothing.verdict is Verdict.LOW_CONFIDENCE  # silence is no
    ended = rule.judge(utterance, said, 3.2, panel=[agreeing, stealer, agreeing])
    assert ended is not None and ended.verdict is Verdict.SPEECH_ENDED and rule.ended


def test_a_stretch_standing_alone_is_offered_early_once_so_its_look_runs_inside_the_window():
    rule = AloneRule(STOP_WORDS)
    rule.look_ahead_seconds = 0.2
    before = timeline((0, 2.0, SPEAKER_DB), (2.0, 2.5, None), (2.5, 3.1, SPEAKER_DB))

    assert looks(rule, before) == [] and rule.take_early() == []
    assert looks(rule, timeline((3.1, 3.25, None))) == [] and rule.take_early() == []
    assert looks(rule, timeline((3.25, 3.4, None))) == []  # 0.2 s of quiet: offered, not ready
    [early] = rule.take_early()
    assert abs(early.start - 2.5) < STEP and abs(early.end - 3.1) < STEP
    [ready] = looks(rule, timeline((3.4, 3.8, None)))  # the window is over: the same stretch
    assert (ready.start, ready.end, ready.quiet_before) == (
        early.start, early.end, early.quiet_before,
    )  # fmt: skip
    assert rule.take_early() == []  # offered once


def test_a_stretch_that_is_not_alone_is_never_offered_early():
    rule = AloneRule(STOP_WORDS)
    rule.look_ahead_seconds = 0.2
    # «…среди нас» with no pause before «спасибо»: the end of a sentence, not a word alone.
    looks(rule, timeline((0, 3.1, SPEAKER_DB), (3.1, 4.0, None)))
    assert rule.take_early() == []


def _ended(rule: AloneRule, frames: list[Frame]) -> Utterance:
    [utterance] = looks(rule, frames)
    said = [HeardWord("спасибо", 2.5, 3.1)]
    decision = rule.judge(utterance, said, frames[-1].end, referee=said)
    assert decision is not None and decision.verdict is Verdict.SPEECH_ENDED
    return utterance


def test_the_speaker_talking_on_after_an_end_is_noticed_as_soon_as_it_is_a_word():
    # «…среди нас. Спасибо», the end, and the player goes on: the end was a breath.
    rule = AloneRule(STOP_WORDS)
    _ended(rule, timeline((0, 2.0, SPEAKER_DB), (2.0, 2.5, None), (2.5, 3.1, SPEAKER_DB),
                          (3.1, 3.75, None)))  # fmt: skip
    assert rule.spoke_on_at is None

    looks(rule, timeline((3.75, 3.85, None), (3.85, 3.95, SPEAKER_DB)))
    assert rule.spoke_on_at is None  # a click, not yet a word
    looks(rule, timeline((3.95, 4.3, SPEAKER_DB)))
    assert rule.spoke_on_at is not None and 4.05 - STEP <= rule.spoke_on_at <= 4.05 + STEP


def test_murmur_after_an_end_is_not_the_speaker_talking_on():
    rule = AloneRule(STOP_WORDS)
    _ended(rule, timeline((0, 2.0, SPEAKER_DB), (2.0, 2.5, None), (2.5, 3.1, SPEAKER_DB),
                          (3.1, 3.75, None)))  # fmt: skip

    looks(rule, timeline((3.75, 6.0, SPEAKER_DB - 20)))  # the table, far from the microphone

    assert rule.spoke_on_at is None


def test_nothing_is_talking_on_before_a_speech_has_ended():
    rule = AloneRule(STOP_WORDS)
    looks(rule, timeline((0, 2.0, SPEAKER_DB), (2.0, 2.5, None), (2.5, 4.0, SPEAKER_DB)))
    assert rule.spoke_on_at is None
    rule.reset()
    assert rule.spoke_on_at is None and not rule.ended


WEBRTC_STEP = 0.03


@given(st.floats(min_value=0.0005, max_value=WEBRTC_STEP - 0.0005))
def test_with_30_ms_yes_or_no_frames_the_speech_never_ends_before_the_window(tail):
    # WebRTC (a 32-bit Pi's VAD) judges 30 ms at a time, and 0.6 s is exactly 20 frames: the
    # word's last milliseconds (``tail``) fall in a frame judged quiet. The speech still ends
    # only after a full window of real quiet, and no more than two frames later.
    rule = AloneRule(STOP_WORDS, AloneTuning(tail_seconds=WEBRTC_STEP))
    voice_end = 103 * WEBRTC_STEP  # the last voice frame ends at 3.09 s
    word_end = voice_end + tail
    frames = [
        Frame(i * WEBRTC_STEP, (i + 1) * WEBRTC_STEP, speech, SPEAKER_DB if speech else -65.0)
        for i in range(200)
        for speech in [i < 60 or 83 <= i < 103]
    ]

    ready = [(frame.end, rule.hear([frame])) for frame in frames]
    [(ended_at, [utterance])] = [(at, found) for at, found in ready if found]

    assert abs(utterance.end - voice_end) < 1e-9
    assert WINDOW <= ended_at - word_end <= WINDOW + 2 * WEBRTC_STEP


def test_a_hearing_that_needs_the_whole_panel_ends_nothing_on_two_referees_of_three():
    rule = AloneRule(STOP_WORDS)
    utterance = Utterance(2.0, 2.6, 0.5)
    said = [word("спасибо", 0.9)]
    refusing = (word("пятый"),)

    assert rule.stands(utterance, said, [said, said, refusing])
    assert not rule.stands(utterance, said, [said, said, refusing], unanimous=True)
    assert not rule.stands(utterance, said, [said, refusing], unanimous=True)  # asked no more
    refused = rule.judge(utterance, said, 3.2, panel=[said, said, refusing], unanimous=True)
    assert refused is not None and refused.verdict is Verdict.LOW_CONFIDENCE
    ended = rule.judge(utterance, said, 3.2, panel=[said, said, said], unanimous=True)
    assert ended is not None and ended.verdict is Verdict.SPEECH_ENDED


def test_in_hiss_most_hearings_and_one_referee_end_a_clear_stop_word_the_panel_missed():
    # In white noise the referees' ordinary words take the hiss around a clear «спасибо»: two
    # of three heard a filler in it. When three of the look's four hearings each heard the stop
    # word on its own, one referee that heard it alone is enough.
    rule = AloneRule(STOP_WORDS)
    utterance = Utterance(2.0, 2.6, 0.5)
    said = [word("спасибо", 0.9)]
    refusing = (word("пятый"),)
    panel = [said, refusing, refusing]

    assert not rule.stands(utterance, said, panel)  # the panel alone: 1 of 3
    assert not rule.stands(utterance, said, panel, hearings=(2, 4))  # two hearings: not most
    assert not rule.stands(utterance, said, [refusing, refusing], hearings=(4, 4))  # no referee
    assert not AloneRule(STOP_WORDS, AloneTuning(agreeing_hearings=0)).stands(
        utterance, said, panel, hearings=(4, 4)
    )
    decision = rule.judge(utterance, said, 3.2, panel=panel, hearings=(3, 4))
    assert decision is not None and decision.verdict is Verdict.SPEECH_ENDED and rule.ended
    assert "3 of 4 hearings and 1 of 3 wider grammars" in decision.reason
    assert decision.phrase == "listen_alone_by_hearings"
    assert dict(decision.params)["hearings"] == "3" and dict(decision.params)["made"] == "4"


def test_most_hearings_stand_in_for_the_panel_only_for_a_stop_word_said_at_a_speaking_pace():
    # A short word said alone in noise, heard as «спасибо» in 0.35 s of voice: 7 sounds at 20 a
    # second, within what a person can say (the rule's 22), but no one's ordinary pace (15): the
    # panel's majority decides. In 0.5 s (14 a second) most hearings and a referee end it.
    rule = AloneRule(STOP_WORDS)
    refusing = (word("пятый"),)
    quick = Utterance(2.0, 2.35, 0.5)
    said = [HeardWord("спасибо", 2.02, 2.34, 0.9)]
    assert not rule.stands(quick, said, [said, refusing, refusing], hearings=(4, 4))
    assert rule.stands(quick, said, [said, said, refusing])  # a majority: as before
    paced = Utterance(2.0, 2.5, 0.5)
    said = [HeardWord("спасибо", 2.02, 2.49, 0.9)]
    assert rule.stands(paced, said, [said, refusing, refusing], hearings=(3, 4))


def test_most_hearings_never_end_a_stop_word_said_with_other_words_or_too_long():
    # The hearings' agreement stands in for the panel's majority only: every other test holds.
    rule = AloneRule(STOP_WORDS)
    utterance = Utterance(2.0, 2.6, 0.5)
    more = [HeardWord("пятый", 2.05, 2.3), HeardWord("спасибо", 2.3, 2.55, 0.9)]
    assert not rule.stands(utterance, more, [more] * 3, hearings=(4, 4))
    long = Utterance(2.0, 5.0, 0.5)
    drawn = [HeardWord("пас", 2.05, 4.95, 0.9)]
    assert not rule.stands(long, drawn, [drawn] * 3, hearings=(4, 4))


def in_noise(*spans: tuple[float, float, float, float, bool] | tuple[float, float]) -> list[Frame]:
    """Frames from (start, end, level, treble level, the VAD hears speech), or (start, end) for
    the room alone: pink noise, whose full level moves by chance from frame to frame by 4 dB
    and its treble level by 0.2 dB (``ROOM``)."""
    out = []
    for span in spans:
        start, end = span[0], span[1]
        t, k = start, 0
        while t < end - 1e-9:
            if len(span) == 2:
                level, treble, speech = ROOM[0] + 2 * (-1) ** k, ROOM[1] + 0.1 * (-1) ** k, False
            else:
                level, treble, speech = span[2], span[3], span[4]
            out.append(Frame(t, min(end, t + STEP), speech, level, treble))
            t += STEP
            k += 1
    return out


ROOM = (-31.0, -38.0)
"""Pink noise at 10 dB under the speaker: its middle level, and its treble level (``Frame``)."""
VOICE = (-18.0, -26.0)


def sentence_tail_pause_word(tail: tuple[float, float], pause: float) -> list[Frame]:
    """In pink noise: a sentence, 0.16 s the VAD hears as speech at ``tail`` (level, treble),
    ``pause`` seconds it hears no speech in, then a word said on its own."""
    word = 2.56 + pause
    return in_noise(
        (0.0, 1.0),
        (1.0, 2.4, *VOICE, True),
        (2.4, 2.56, *tail, True),
        (2.56, word),
        (word, word + 0.58, *VOICE, True),
        (word + 0.58, word + 2.0),
    )


def test_the_vad_lingering_on_the_room_s_noise_after_a_sentence_does_not_eat_the_breath():
    # «…нас», a breath of 0.3 s, «спасибо». The VAD goes on hearing speech for 0.16 s of the
    # breath, in frames the room's rumble made louder (-29.5 dB) but whose treble is the
    # room's: it leaves 0.16 s it calls quiet, and the sentence and the stop word were one
    # stretch, too long to be a stop word.
    frames = sentence_tail_pause_word((-29.5, -37.9), 0.16)

    [utterance] = AloneRule(STOP_WORDS).hear(frames)
    assert abs(utterance.start - 2.72) < STEP and utterance.quiet_before >= 0.25

    assert AloneRule(STOP_WORDS, AloneTuning(room_floor_db=0.0)).hear(frames) == []


def test_in_hiss_the_frames_the_vad_hears_last_stay_the_speaker_s():
    # White noise: its treble moves as much as its full level, and a soft syllable's treble
    # sinks into it. On held-out seed 36 cutting such frames out of «…합니다 | 감사합니다»
    # left 0.29 s of quiet inside a sentence, and its last word cut the player short.
    hiss = [
        (1.0 + i * STEP, 1.0 + (i + 1) * STEP, -33.0 + (i % 3), -30.4 + (i % 3), False)
        for i in range(int(1.0 / STEP))
    ]
    soft = (-29.0, -30.3)
    frames = in_noise(
        *[(t - 1.0, e - 1.0, level, treble, speech) for t, e, level, treble, speech in hiss],
        (1.0, 2.4, *VOICE, True),
        (2.4, 2.66, *soft, True),
        (2.66, 2.69, -33.0, -30.4, False),
        (2.69, 3.3, *VOICE, True),
        *[(t + 2.3, e + 2.3, level, treble, speech) for t, e, level, treble, speech in hiss],
    )

    assert AloneRule(STOP_WORDS).hear(frames) == []  # one stretch: the sentence going on


def test_a_soft_syllable_above_the_room_s_treble_is_the_speaker_s():
    # The sentence's soft last syllable, 4 dB over the room's treble: «…нас, спасибо» with 0.1 s
    # between is a sentence going on, and nothing is looked at.
    frames = sentence_tail_pause_word((-28.0, -34.0), 0.1)

    assert AloneRule(STOP_WORDS).hear(frames) == []


def test_a_pause_between_words_the_vad_hears_through_keeps_the_sentence_whole():
    # «…сегодня | спасибо вам»: 0.26 s between two words of a sentence, the treble at the
    # room's, the rumble by chance over the speaker's margin in every other frame, and the VAD
    # never stops hearing speech. Taking those frames for the room (held-out seed 36) let the
    # sentence's last words, heard as 감사합니다 after the speaker's breath, end the speech: a
    # player cut short.
    louder, softer = (-29.0, -38.0), (-34.0, -38.0)
    between = [
        (1.9 + i * STEP, 1.9 + (i + 1) * STEP, *(louder if i % 2 else softer), True)
        for i in range(6)
    ]
    frames = in_noise(
        (0.0, 1.0),
        (1.0, 1.9, *VOICE, True),
        *between,
        (1.9 + 6 * STEP, 2.16, *softer, True),
        (2.16, 2.8, *VOICE, True),
        (2.8, 3.6),
        (3.6, 4.2, *VOICE, True),
        (4.2, 5.0),
    )

    ready = AloneRule(STOP_WORDS).hear(frames)

    assert [round(u.start, 1) for u in ready] == [3.6]  # only what follows the breath


@settings(max_examples=100, deadline=None)
@given(TURNS)
def test_in_a_quiet_room_the_room_s_floor_changes_nothing(turns):
    frames = [
        replace(frame, treble_db=frame.level_db - (8 if frame.speech else 5))
        for frame in timeline(*spans_of(turns))
    ]
    without = AloneRule(STOP_WORDS, AloneTuning(room_floor_db=0.0)).hear(frames)
    assert AloneRule(STOP_WORDS).hear(frames) == without


def test_a_stop_word_the_grammar_put_second_ends_a_speech_only_on_the_panel_s_majority():
    # Vosk gives a second choice no confidence: however it is heard, the referees decide, a
    # majority agreeing and one choosing it outright; every other test holds as for a first.
    rule = AloneRule(STOP_WORDS, AloneTuning(sure_confidence=0.5, min_confidence=0.5))
    utterance = Utterance(2.0, 2.6, 0.5)
    said = [word("спасибо")]
    first = (word("ганс"),)
    torn = Refereed((word("пятый"),), [said])

    assert rule.stands(utterance, said)  # a first choice this sure needs no referee
    assert not rule.stands(utterance, said, second_to=first)  # a second choice does
    assert not rule.stands(utterance, said, [said, (word("пятый"),)], second_to=first)  # 1 of 2
    assert not rule.stands(utterance, said, [torn, torn, torn], second_to=first)  # none chose
    assert rule.needs_panel(utterance, said, second_to=first)
    short = Utterance(2.0, 2.15, 0.5)  # too short for «спасибо»: no panel can save it
    assert not rule.needs_panel(short, [HeardWord("спасибо", 2.0, 2.15)], second_to=first)

    decision = rule.judge(utterance, said, 3.2, panel=[said, torn], second_to=first)
    assert decision is not None and decision.verdict is Verdict.SPEECH_ENDED and rule.ended
    assert decision.phrase == "listen_alone_second_choice"
    assert dict(decision.params)["first"] == "«ганс»"
    assert "second choice after «ганс», and 2 of 2 wider grammars" in decision.reason


def test_only_a_stretch_as_long_as_a_stop_word_can_be_could_hold_one():
    rule = AloneRule(STOP_WORDS)
    assert rule.could_hold_stop_word(Utterance(2.0, 2.6, 0.5))
    assert not rule.could_hold_stop_word(Utterance(2.0, 2.05, 0.5))  # a click
    assert not rule.could_hold_stop_word(Utterance(2.0, 6.0, 0.5))  # a sentence
