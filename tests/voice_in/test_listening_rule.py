"""The grammar from the model's own vocabulary: fillers, competitors and how words sound.

The decision rule itself is tested in test_alone_rule.py.
"""

from __future__ import annotations

from voicehost.voice_in.rule import (
    choose_competitors,
    choose_fillers,
    sound_key,
    sounds_like,
)


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
