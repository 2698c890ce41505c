"""Each piece of an announcement carries the pause its text has after it, read once where the
phrase book builds the text: the speaker joins pieces without searching the text again."""

from __future__ import annotations

from voicehost.phrases import PhraseBook
from voicehost.ports import Pause


def test_the_vote_question_carries_its_sentence_end_and_the_counts_pauses() -> None:
    utterance = PhraseBook.load("ru").render("day.vote_for", {"seat": 5})
    pauses = [(segment.text, segment.pause_after) for segment in utterance.segments]
    assert pauses[-4:] == [
        ("покинул стол?", Pause.SENTENCE),
        ("Раз…", Pause.COUNT),
        ("два…", Pause.COUNT),
        ("три!", Pause.END),
    ]
    assert all(pause is Pause.WORD for _, pause in pauses[:-5])  # «… игрока номер | пять …»


def test_a_list_of_seats_pauses_at_its_commas() -> None:
    book = PhraseBook.load("en")
    utterance = book.render("day.candidates", {"seats": [3, 7, 9]})
    kinds = [segment.pause_after for segment in utterance.segments]
    assert Pause.CLAUSE in kinds and kinds[-1] is Pause.END
