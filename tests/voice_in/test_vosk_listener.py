"""The Listener with the real Vosk Korean model and espeak-ng speech (no Vosk mocks).

Korean stand-ins for the Russian stop words: 감사합니다 («спасибо») and 패스 («пас»). Every
Listener here is the game's own: made by ``ListenerKit`` from config.yaml's defaults (grammar,
competitors, referee, silence window, VAD), as ``voicehost play`` makes it, so a changed
default is tested as it ships. Each recording starts with half a second of room noise, as a
speech does after its announcement, and a sentence comes before the first stop word: the proxy
model hears espeak's 감사합니다 poorly as the very first word of a recording (bench figures:
docs/HEARING.md). Decoding is deterministic, so each recording here always gives the same
decisions.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import pytest

from voicehost.clock import FakeClock
from voicehost.config import Settings
from voicehost.voice_in.microphone import ArraySource
from voicehost.voice_in.models import model_vocabulary
from voicehost.voice_in.rule import Decision, Verdict, sound_key, sounds_like
from voicehost.voice_in.vosk_listener import (
    REFEREE_ALTERNATIVES,
    REFEREE_FILLERS,
    AudioDropped,
    ListenerEvent,
    ListenerKit,
    SpokeOn,
    StopWordRecognizer,
    VocabularyError,
    VoskListener,
    WordsHeard,
    grammar_words,
    referee_recognizers,
)

RATE = 16000
STOP_WORDS = ("감사합니다", "패스")
GAME = Settings().listener  # config.yaml's defaults, as the game runs
SILENCE = GAME.silence_seconds


@dataclass
class Heard:
    """What one run of the Listener reported."""

    listener: VoskListener
    events: list[ListenerEvent] = field(default_factory=list)
    stops: list[int] = field(default_factory=list)
    spoke_on: list[int] = field(default_factory=list)

    def decisions(self, verdict: Verdict) -> list[Decision]:
        return [e for e in self.events if isinstance(e, Decision) and e.verdict is verdict]

    @property
    def words(self) -> list[str]:
        return [w.word for e in self.events if isinstance(e, WordsHeard) for w in e.words]


def make_listener(model, vad: str | None = None) -> Heard:
    """The game's Listener (``ListenerKit`` on config.yaml's defaults, ``listener.vad`` set
    when ``vad`` is given), fed by the test."""
    settings = Settings()
    if vad is not None:
        settings = replace(settings, listener=replace(settings.listener, vad=vad))
    kit = ListenerKit.on_model(model, settings, STOP_WORDS)
    heard = Heard(listener=None)  # type: ignore[arg-type]
    source = ArraySource(np.zeros(0, dtype=np.int16), RATE)
    heard.listener = kit.listener(source, FakeClock(), heard.events.append)
    heard.listener.start(heard.stops.append, heard.spoke_on.append, thread=False)
    return heard


def play(
    heard: Heard, samples: np.ndarray, at_time: Callable[[float], None] | None = None
) -> Heard:
    """Feed a recording block by block on this thread (the Listener thread's own code path)."""
    for block in ArraySource(samples, RATE, block_seconds=0.05).blocks():
        if at_time is not None:
            at_time(block.captured_at)
        heard.listener.process(block)
    return heard


@pytest.fixture
def listener(korean_model, vad) -> Heard:
    """The game's Listener with each VAD in turn: silero (a PC, a 64-bit Pi) and webrtc (what
    ``auto`` falls back to on a 32-bit Pi 3, which has no silero wheel)."""
    return make_listener(korean_model, vad)


def test_a_stop_word_as_the_last_word_ends_the_speech_after_the_silence(listener, record):
    recording = record([0.5, "저는 오번을 의심합니다", 1.0, "감사합니다", 2.0])
    listener.listener.listen(7)

    play(listener, recording.samples)

    assert listener.stops == [7]
    [ended] = listener.decisions(Verdict.SPEECH_ENDED)
    # espeak's robotic 감사합니다 is sometimes taken for the other stop word: either ends it.
    assert ended.word.word in STOP_WORDS
    waited = ended.at - recording.speech_ends[1]
    assert SILENCE <= waited <= SILENCE + 0.2, waited
    assert listener.spoke_on == []  # the quiet after it: the end stands


def test_a_stop_word_in_mid_speech_does_not_end_it(listener, record):
    # «감사합니다» then, after a short breath, more speech: only the last stop word counts.
    recording = record([0.5, "저는 오번을 의심해요", 0.8, "감사합니다", 0.25, "패스", 2.0])
    listener.listener.listen(1)

    play(listener, recording.samples)

    [ended] = listener.decisions(Verdict.SPEECH_ENDED)
    assert ended.word.word == "패스"
    assert ended.at >= recording.speech_ends[2] + SILENCE
    assert listener.stops == [1]


@pytest.mark.parametrize(
    "sentence",
    ["감사합니다, 그리고 저는 칠번을 의심합니다", "감사합니다. 어젯밤에 아무 일도 없었습니다"],
)
def test_thanks_at_the_start_of_a_sentence_does_not_end_the_speech(listener, record, sentence):
    recording = record([0.5, sentence, 2.0])
    listener.listener.listen(1)

    play(listener, recording.samples)

    assert listener.stops == []
    assert listener.decisions(Verdict.SPEECH_ENDED) == []


def test_the_host_s_own_voice_is_not_heard(listener, record):
    # The host says «...감사합니다» (dropped by the echo guard); then the player says «패스».
    recording = record([0.5, "저는 오번을 의심해요", 0.8, "감사합니다", 2.0, "패스", 2.0])
    listener.listener.listen(3)
    listener.listener.deafen_until(recording.speech_ends[1])

    play(listener, recording.samples)

    assert any(isinstance(event, AudioDropped) for event in listener.events)
    [ended] = listener.decisions(Verdict.SPEECH_ENDED)
    assert ended.word.word == "패스"
    assert listener.stops == [3]


def test_without_the_echo_guard_the_host_s_voice_would_end_the_speech(listener, record):
    recording = record([0.5, "저는 오번을 의심해요", 0.8, "감사합니다", 2.0, "패스", 2.0])
    listener.listener.listen(3)

    play(listener, recording.samples)

    assert listener.decisions(Verdict.SPEECH_ENDED)[0].word.word == "감사합니다"


def test_deaf_until_listen_and_after_stop_listening(listener, record):
    recording = record([0.5, "감사합니다", 1.5, "패스", 1.5, "감사합니다", 1.5])
    first_end, second_end, _ = recording.speech_ends
    clock = listener.listener.clock
    assert isinstance(clock, FakeClock)

    def host(now: float) -> None:
        clock.set(now)
        if now >= first_end + 1.0 and listener.listener._token is None and not listener.stops:
            listener.listener.listen(2)  # the second speech starts before «패스»
        if now >= second_end + 1.4:
            # The timer ran out: deaf again. «패스» was the second speech's first word, whose
            # window is 1.2 s (wary_silence_seconds): it ended that speech just before.
            listener.listener.stop_listening()

    play(listener, recording.samples, host)

    assert listener.stops == [2]
    assert [d.word.word for d in listener.decisions(Verdict.SPEECH_ENDED)] == ["패스"]
    assert "감사합니다" not in listener.words


def test_a_speech_ends_once_even_if_more_stop_words_follow(listener, record):
    recording = record([0.5, "감사합니다", 1.5, "패스", 1.5])
    listener.listener.listen(4)

    play(listener, recording.samples)

    assert listener.stops == [4]


def test_word_times_restart_after_a_reset(korean_model, record):
    recording = record(["감사합니다", 1.0])
    recognizer = StopWordRecognizer(korean_model, STOP_WORDS, RATE)
    recognizer.accept(recording.samples)
    first = recognizer.finish().words
    recognizer.reset()
    recognizer.accept(recording.samples)
    again = recognizer.finish().words

    assert [w.word for w in first] == [w.word for w in again] == ["감사합니다"]
    assert again[0].start == pytest.approx(first[0].start, abs=0.05)
    assert again[0].end <= recording.seconds


def test_a_referee_gives_its_best_hearings_best_first_with_their_times(korean_model, record):
    # The panel's recognisers give Vosk's n best hearings (ListenerTuning.referee_doubt reads
    # them): the first is what a plain recogniser hears, each scored, times from the reset.
    # 패스트 alone: the proxy is torn between two look-alikes of 패스.
    recording = record([0.2, "패스트", 0.2])  # a second look's clip: the word, 0.2 s either side
    words = grammar_words(korean_model, STOP_WORDS, REFEREE_FILLERS, GAME.competitors)
    plain = StopWordRecognizer(korean_model, words, RATE)
    [referee] = referee_recognizers(korean_model, [words], RATE)
    for recognizer in (plain, referee):  # as the second look decodes: the same seed each time
        recognizer.fresh()
        recognizer.accept(recording.samples)
    said, heard = plain.finish(), referee.finish()

    assert 1 < len(heard.alternatives) <= REFEREE_ALTERNATIVES
    scores = [score for score, _ in heard.alternatives]
    assert scores == sorted(scores, reverse=True)
    assert heard.words == heard.alternatives[0][1]
    assert [w.word for w in heard.words] == [w.word for w in said.words]
    assert {w.word for _, heard_words in heard.alternatives for w in heard_words} >= {"패스트"}
    assert heard.words[0].start == pytest.approx(said.words[0].start, abs=0.02)
    assert plain.alternatives == 0 and said.alternatives == ()


def test_a_model_of_another_language_is_refused_with_the_missing_words(korean_model):
    with pytest.raises(VocabularyError) as error:
        grammar_words(korean_model, ("감사합니다", "спасибо", "пас"), 0)

    message = str(error.value)
    assert "«спасибо», «пас»" in message
    assert "감사합니다" not in message
    assert "another language" in message
    assert error.value.missing == ("спасибо", "пас")


def test_the_game_s_grammar_has_the_stop_words_look_alikes_and_a_referee_from_the_model(
    korean_model,
):
    kit = ListenerKit.on_model(korean_model, Settings(), STOP_WORDS)
    count = GAME.competitors

    assert kit.words[:2] == STOP_WORDS
    assert "[unk]" not in kit.words  # the Korean model has none
    look_alikes = kit.words[2:]  # fillers are off by default: nothing else
    stops = [sound_key(word) for word in STOP_WORDS]
    assert not GAME.fillers
    assert all(sounds_like(sound_key(word), stops) for word in look_alikes)
    thanks = [word for word in look_alikes if word.endswith("니다")]
    assert {"합니다", "생각합니다"} <= set(thanks)  # where «…합니다» lands
    # Up to listener.competitors for each stop word (the model has only 4 near 감사합니다).
    assert 0 < len(thanks) <= count and 0 < len(look_alikes) - len(thanks) <= count
    # The referees: the same words and ordinary words of the model, none sounding like a stop
    # word (such a filler takes the stop word's own place when it is said), each referee its
    # own draw of them, so that one word the model confuses with a stop word is one vote.
    assert len(kit.referees) == 3
    drawn = []
    for referee in kit.referees:
        assert referee[: len(kit.words)] == kit.words
        fillers = referee[len(kit.words) :]
        assert len(fillers) == REFEREE_FILLERS
        assert not any(sounds_like(sound_key(filler), stops) for filler in fillers)
        assert all(korean_model.knows(word) for word in referee)
        drawn.append(set(fillers))
    assert all(len(one & other) <= 2 for one, other in itertools.combinations(drawn, 2))


@pytest.mark.parametrize("breath", [0.5, 0.7, 0.9])
def test_a_sentence_ending_like_the_stop_word_then_a_breath_does_not_cut_the_player(
    listener, record, breath
):
    # The shape that cut players short: «…생각합니다», a breath as long as the window, then
    # the real stop word. The sentence's last word has the sentence right before it.
    recording = record([0.5, "저는 오번을 생각합니다", breath, "감사합니다", 2.0])
    listener.listener.listen(1)

    play(listener, recording.samples)

    assert listener.stops == [1]
    [ended] = listener.decisions(Verdict.SPEECH_ENDED)
    assert ended.at >= recording.speech_ends[1] + SILENCE


def test_a_look_alike_said_on_its_own_lands_on_itself(listener, record):
    recording = record([0.5, "저는 오번을 의심해요", 0.8, "생각합니다", 2.0])
    listener.listener.listen(1)

    play(listener, recording.samples)

    assert listener.stops == []
    assert listener.words[-1] == "생각합니다"


def test_a_recording_decodes_the_same_whatever_was_decoded_before(korean_model, record):
    # Kaldi draws on libc's rand(): each speech starts from a new recogniser and one seed.
    speech = record([0.5, "저는 오번을 의심해요", 0.8, "감사합니다", 2.0]).samples
    other = record([0.3, "칠번은 너무 조용했어요", 0.4, "패스", 1.0], seed=9).samples

    def hear(*recordings: np.ndarray) -> list[ListenerEvent]:
        heard = make_listener(korean_model)
        for number, samples in enumerate(recordings, 1):
            heard.listener.listen(number)
            start = len(heard.events)
            play(heard, samples)
        return [_relative(event) for event in heard.events[start:]]

    alone = hear(speech)
    assert alone == hear(other, other, speech) == hear(speech, other, speech)
    assert any(isinstance(e, tuple) and e[0] is Verdict.SPEECH_ENDED for e in alone)


def _relative(event: ListenerEvent) -> object:
    """An event without its clock times (the recordings start at different times)."""
    if isinstance(event, WordsHeard):
        return tuple(
            (w.word, round(w.end - w.start, 3), round(w.confidence, 3)) for w in event.words
        )
    if isinstance(event, Decision):
        return (event.verdict, event.word.word, round(event.at - event.word.end, 3))
    return event


def test_the_vocabulary_is_read_from_the_graph_when_there_is_no_words_txt(korean_folder):
    assert not (korean_folder / "graph" / "words.txt").exists()

    vocabulary = model_vocabulary(korean_folder)

    assert len(vocabulary) > 100_000
    assert {"감사합니다", "패스"} <= set(vocabulary)


def test_a_live_microphone_s_uneven_timestamps_are_one_stream(listener, record):
    # Callbacks of a real sound card come a few milliseconds early or late.
    recording = record([0.5, "저는 오번을 의심합니다", 1.0, "감사합니다", 2.0])
    jitter = np.random.default_rng(3)
    listener.listener.listen(2)

    for number, block in enumerate(
        ArraySource(recording.samples, RATE, block_seconds=0.05).blocks()
    ):
        # From the second block on: a first block stamped before listen() loses its first
        # milliseconds, as it should (and 3 ms less audio is another second look).
        late = float(jitter.uniform(-0.004, 0.004)) if number else 0.0
        listener.listener.process(replace(block, captured_at=block.captured_at + late))

    assert listener.stops == [2]
    assert not any(isinstance(event, AudioDropped) for event in listener.events)


def test_a_player_who_talks_on_after_an_end_is_heard_within_the_host_s_hold(listener, record):
    # «…의심해요. 감사합니다», a breath longer than the window, and the player goes on: the
    # Listener ends the speech, then says the speaker talked on, soon enough for the host's
    # hold (listener.spoke_on_seconds) to give the speech back.
    recording = record(
        [0.5, "저는 오번을 의심해요", 0.8, "감사합니다", 0.85, "칠번도 의심해요", 2.0]
    )
    listener.listener.listen(5)

    play(listener, recording.samples)

    assert listener.stops == [5] and listener.spoke_on == [5]
    [ended] = listener.decisions(Verdict.SPEECH_ENDED)
    [spoke] = [event for event in listener.events if isinstance(event, SpokeOn)]
    assert 0 < spoke.at - ended.at <= GAME.spoke_on_seconds, spoke.at - ended.at
    assert spoke.at >= recording.speech_ends[1] + 0.85  # the player's own voice, not the breath


def test_after_a_speech_is_given_back_a_later_stop_word_ends_it_again(listener, record):
    recording = record(
        [0.5, "저는 오번을 의심해요", 0.8, "감사합니다", 0.85, "칠번도 의심해요", 0.8, "패스", 2.0]
    )
    clock = listener.listener.clock
    assert isinstance(clock, FakeClock)
    listener.listener.listen(5)
    given_back: list[float] = []

    def host(now: float) -> None:
        clock.set(now)
        if listener.spoke_on and not given_back:
            given_back.append(now)
            listener.listener.listen(5)  # the host gave the speech back: hear it afresh

    play(listener, recording.samples, host)

    assert listener.stops == [5, 5]
    last = listener.decisions(Verdict.SPEECH_ENDED)[-1]
    assert last.word.word == "패스" and last.at >= recording.speech_ends[3] + SILENCE


def _run(kit: ListenerKit, samples: np.ndarray, tuning=None) -> list[int]:
    stops: list[int] = []
    source = ArraySource(np.zeros(0, dtype=np.int16), RATE)
    heard = kit.listener(source, FakeClock(), tuning=tuning)
    heard.start(stops.append, thread=False)
    heard.listen(1)
    for block in ArraySource(samples, RATE, block_seconds=0.05).blocks():
        heard.process(block)
    return stops


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_stop_word_in_a_hissing_room_ends_the_speech(korean_model, record, seed):
    # White noise about 12 dB under the voice: the look hears 감사합니다 once the room's steady
    # noise is taken out of its audio, and as a look-alike without that.
    recording = record([0.5, "저는 오번을 의심해요", 0.8, "감사합니다", 2.0], -34.0, seed)
    kit = ListenerKit.on_model(korean_model, Settings(), STOP_WORDS)

    assert _run(kit, recording.samples) == [1]
    assert _run(kit, recording.samples, replace(kit.tuning, denoise=0.0)) == []


def test_in_a_hissing_room_a_sentence_ending_like_the_stop_word_still_cuts_nobody(
    korean_model, record
):
    recording = record([0.5, "저는 오번을 생각합니다", 0.7, "감사합니다", 2.0], -34.0, 2)
    events: list[ListenerEvent] = []
    kit = ListenerKit.on_model(korean_model, Settings(), STOP_WORDS)
    listener = kit.listener(
        ArraySource(np.zeros(0, dtype=np.int16), RATE), FakeClock(), events.append
    )
    listener.start(lambda token: None, thread=False)
    listener.listen(1)
    for block in ArraySource(recording.samples, RATE, block_seconds=0.05).blocks():
        listener.process(block)

    ends = [e for e in events if isinstance(e, Decision) and e.verdict is Verdict.SPEECH_ENDED]
    # Heard, and only after 감사합니다: «…생각합니다» and the breath ended nothing.
    assert len(ends) == 1 and ends[0].at >= recording.speech_ends[1] + SILENCE
