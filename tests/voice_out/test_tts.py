"""Real espeak-ng synthesis, no mocks: the Russian voice speaks Russian, or startup stops."""

from __future__ import annotations

import time

import pytest

from voicehost.clips import loudness_dbfs, trim_silence
from voicehost.errors import MissingDependency
from voicehost.voice_out.tts import EspeakSynthesizer, VoiceChoice, resolve_voice

PHRASES = ["Слово игроку номер пять.", "Просыпается мафия!", "Голосование."]


@pytest.mark.parametrize("text", PHRASES)
def test_the_russian_voice_speaks_words_not_letters(ru_voice, en_voice, text):
    russian = trim_silence(ru_voice.render(text))
    spelled = trim_silence(en_voice.render(text))  # espeak's English voice spells Cyrillic
    assert loudness_dbfs(russian) > -35, "the announcement is silent"
    assert 0.3 < russian.duration < 0.2 * len(text), "not a plausible length for the words"
    assert russian.duration < 0.6 * spelled.duration, "it is spelled letter by letter"


def test_the_voice_switches_back_and_forth_in_one_process(ru_voice, en_voice):
    first = trim_silence(ru_voice.render("Мафия засыпает.")).duration
    en_voice.render("The city wakes up.")
    again = trim_silence(ru_voice.render("Мафия засыпает.")).duration
    assert again == pytest.approx(first, abs=0.05)


def test_a_missing_voice_stops_startup_with_the_install_hint():
    with pytest.raises(MissingDependency) as caught:
        EspeakSynthesizer(VoiceChoice("zle/xx-nowhere", 150, 1.0))
    message = str(caught.value)
    assert "zle/xx-nowhere" in message
    assert "sudo apt-get install espeak-ng" in message


@pytest.mark.parametrize(
    ("voice", "language", "expected"),
    [("auto", "ru", "zle/ru"), ("auto", "en", "gmw/en"), ("gmw/en-us", "ru", "gmw/en-us")],
)
def test_auto_picks_the_language_s_voice(voice, language, expected):
    assert resolve_voice(voice, language) == expected


def test_auto_without_a_voice_for_the_language_says_what_to_set():
    with pytest.raises(MissingDependency, match="voice.voice"):
        resolve_voice("auto", "xx")


def test_the_chosen_rate_holds_even_when_espeak_lost_it(ru_voice):
    """espeak-ng queues a rate change, and pyttsx3 cancels that queue while espeak-ng is busy:
    a fresh engine busy with pyttsx3's default rate 200 could keep it for a whole evening
    (seen in one start of thirty). Here espeak-ng is put back at 200 behind the synthesizer's
    back, as a cancelled change leaves it; the next phrase must still be at the club's rate."""
    from pyttsx3.drivers import _espeak

    text = "Голосование."
    at_chosen_rate = trim_silence(ru_voice.render(text)).duration
    _espeak.SetParameter(_espeak.RATE, 200, 0)
    while _espeak.IsPlaying():  # queued: let espeak-ng take it, or the next phrase cancels it
        time.sleep(0.005)
    spoken = trim_silence(ru_voice.render(text)).duration
    assert spoken == pytest.approx(at_chosen_rate, abs=0.01)
    too_fast = EspeakSynthesizer(VoiceChoice(ru_voice.choice.voice, 200, 1.0)).render(text)
    assert trim_silence(too_fast).duration < at_chosen_rate - 0.05, "200 is not the chosen rate"
