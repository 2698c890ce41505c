"""The count «Раз… два… три!» is said at a speaking pace, and a stressed word of the phrase book
reaches espeak-ng as phonemes (not spelled out letter by letter)."""

from __future__ import annotations

import numpy as np

from voicehost.phrases import PhraseBook
from voicehost.voice_out.cache import AudioCache
from voicehost.voice_out.speech import SpeechLibrary, pauses_between
from voicehost.voice_out.tts import VoiceChoice, engine_version

RU = VoiceChoice("zle/ru", 150, 1.0)


def test_the_count_is_three_pieces_with_the_count_pause_between_them() -> None:
    utterance = PhraseBook.load("ru").render("day.vote_for", {"seat": 5})
    assert utterance.text.endswith("покинул стол? Раз… два… три!")
    texts = [segment.text for segment in utterance.segments]
    assert texts[-4:] == ["покинул стол?", "Раз…", "два…", "три!"]
    pauses = pauses_between(utterance, count_pause=0.7)
    assert pauses[-2:] == [0.7, 0.7]
    assert all(pause < 0.7 for pause in pauses[:-2])
    assert pauses[-3] > 0.1  # the question ends before «Раз»


def test_the_count_pause_setting_lengthens_the_spoken_count(tmp_path, ru_voice) -> None:
    cache = AudioCache(tmp_path, RU, engine_version(), lambda: ru_voice)
    book = PhraseBook.load("ru")
    utterance = book.render("day.vote_for", {"seat": 5})
    durations = {}
    for pause in (0.0, 0.6):
        library = SpeechLibrary(rate=22050, target_dbfs=-18, cache=cache, count_pause=pause)
        library.prepare(utterance.segments)
        durations[pause] = library.utterance_clip(utterance).duration
    assert abs(durations[0.6] - durations[0.0] - 1.2) < 0.01
    count = [library.segment_clip(s).duration for s in utterance.segments[-3:]]
    # «Раз… два… три!» at 0.6 s: one word about every second, as a host counts
    assert 1.5 < sum(count) + 2 * 0.6 < 3.5


def test_a_stressed_word_is_said_from_its_phonemes(ru_voice) -> None:
    book = PhraseBook.load("ru")
    (form,) = [s for s in book.render("day.vote_result", {"seat": 5, "votes": 3}).segments][-1:]
    assert form.text == "[[g'olVsa]]" and form.shown == "голоса"
    spoken = ru_voice.render(form.text)
    plain = ru_voice.render("голоса")
    # spelled out, "[[g'olVsa]]" would last seconds; as phonemes it is the word itself
    assert abs(spoken.duration - plain.duration) < 0.2
    assert not np.array_equal(spoken.samples, plain.samples)  # but stressed elsewhere
