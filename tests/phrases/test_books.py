"""Both phrase books: same keys and placeholders, every phrase renders, segments say it all."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost.game.model import Phase, Role
from voicehost.phrases import Kind, PhraseBook, shown

SAMPLE_SEATS = (3, 8, 12)


def sample_params(
    book: PhraseBook, key: str, section: str = "phrases", number: int = 7, role: str = "mafia"
) -> dict[str, Any]:
    """Parameters for every placeholder of ``key``, of the kind the engine passes."""
    params: dict[str, Any] = {}
    for placeholder in book.placeholders(key, section):
        if placeholder.kind is Kind.LIST:
            params[placeholder.name] = SAMPLE_SEATS
        elif placeholder.kind is Kind.WORD:
            params[placeholder.name] = role
        elif placeholder.kind is Kind.PHASE:
            params[placeholder.name] = Phase.VOTE
        elif placeholder.kind is Kind.TEXT:
            params[placeholder.name] = "любимая книга"
        else:
            params[placeholder.name] = number
    return params


def normalised(text: str) -> str:
    """Letters and digits only, single-spaced: what is heard, not how it is punctuated."""
    return " ".join(re.sub(r"[^\w]+", " ", text).casefold().split())


def shape(book: PhraseBook, key: str, section: str) -> list[tuple[str, str, str]]:
    return [(p.name, p.kind, p.gender) for p in book.placeholders(key, section)]


def test_books_have_the_same_keys(books: dict[str, PhraseBook]) -> None:
    russian, english = books["ru"], books["en"]
    assert english.keys() == russian.keys()
    assert english.error_codes() == russian.error_codes()
    assert english.words().keys() == russian.words().keys()
    assert english.phases().keys() == russian.phases().keys()
    assert english.screen_keys() == russian.screen_keys()


def test_books_have_the_same_placeholders(books: dict[str, PhraseBook]) -> None:
    russian, english = books["ru"], books["en"]
    for section, keys in (
        ("phrases", russian.keys()),
        ("errors", russian.error_codes()),
        ("screen", russian.screen_keys()),
    ):
        for key in keys:
            assert shape(english, key, section) == shape(russian, key, section), key


def test_stop_words_are_what_players_say(books: dict[str, PhraseBook]) -> None:
    assert books["ru"].stop_words == ("спасибо", "пас")
    assert books["en"].stop_words == ("thank you", "pass")


def test_every_role_and_phase_has_a_name(book: PhraseBook) -> None:
    assert all(book.word(role) for role in Role)
    assert all(book.phase_name(phase) for phase in Phase)
    assert book.word(Role.CIVILIAN) == {"ru": "мирный житель", "en": "civilian"}[book.language]


@pytest.mark.parametrize("role", list(Role))
def test_every_phrase_renders_and_its_segments_say_all_of_it(book: PhraseBook, role: Role) -> None:
    phrase_keys = book.keys()
    for key in phrase_keys:
        utterance = book.render(key, sample_params(book, key, role=role))
        assert utterance.key == key
        assert "{" not in utterance.text and "}" not in utterance.text, utterance.text
        said = " ".join(segment.shown for segment in utterance.segments)
        assert normalised(said) == normalised(utterance.text), key
        assert all(segment.text == segment.text.strip() for segment in utterance.segments)
        assert "\u0301" not in utterance.text, key  # the screen never shows a stress mark


def test_every_error_renders(book: PhraseBook) -> None:
    for code in book.error_codes():
        text = book.error(code, sample_params(book, code, "errors", number=2))
        assert text and "{" not in text and "}" not in text, code


def test_every_screen_text_renders(book: PhraseBook) -> None:
    for key in book.screen_keys():
        text = book.screen(key, sample_params(book, key, "screen", number=2))
        assert text and "{" not in text and "}" not in text, key


def test_fixed_pieces_are_keyed_by_phrase_and_position(books: dict[str, PhraseBook]) -> None:
    utterance = books["ru"].render("day.leaves", {"seat": 5, "role": "mafia"})
    assert [(s.key, s.text) for s in utterance.segments] == [
        ("day.leaves#0", "Игрок номер"),
        ("num.m.5", "пять"),
        ("day.leaves#1", "покидает стол. Роль игрока:"),
        ("word.mafia", "мафия"),
    ]
    assert utterance.text == "Игрок номер пять покидает стол. Роль игрока: мафия."


def test_a_phrase_without_placeholders_is_one_segment(book: PhraseBook) -> None:
    utterance = book.render("night.mafia_wakes")
    assert [s.key for s in utterance.segments] == ["night.mafia_wakes#0"]
    assert utterance.segments[0].text == utterance.text


def test_all_segments_has_every_numeral_in_each_gender_used(books: dict[str, PhraseBook]) -> None:
    russian = {s.key: s.text for s in books["ru"].all_segments()}
    english = {s.key: s.text for s in books["en"].all_segments()}
    for number in range(100):
        for gender in "mfn":
            assert f"num.{gender}.{number}" in russian
        assert f"num.m.{number}" in english
    assert not any(key.startswith(("num.f.", "num.n.")) for key in english)
    assert russian["num.f.21"] == "двадцать одна"
    assert russian["num.n.2"] == "два"
    assert english["num.m.21"] == "twenty-one"


def test_all_segments_has_every_word_form_and_fixed_piece(book: PhraseBook) -> None:
    segments = {s.key: s.text for s in book.all_segments()}
    assert len(segments) == len(book.all_segments()), "keys are unique"
    for name, text in book.words().items():
        assert shown(segments[f"word.{name}"]) == text
    phrase_keys = book.keys()
    for key in phrase_keys:
        for placeholder in book.placeholders(key):
            for form in placeholder.forms:
                assert segments[f"form.{shown(form)}"] == book.spoken(form)
        assert any(segment_key.startswith(f"{key}#") for segment_key in segments), key


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_rendered_segment_is_pre_rendered(books: dict[str, PhraseBook], data: Any) -> None:
    book = books[data.draw(st.sampled_from(sorted(books)))]
    key = data.draw(st.sampled_from(book.keys()))
    number = data.draw(st.integers(0, 99))
    role = data.draw(st.sampled_from(list(Role)))
    cached = {s.key: s.text for s in book.all_segments(texts=["любимая книга"])}
    for segment in book.render(key, sample_params(book, key, number=number, role=role)).segments:
        assert cached.get(segment.key) == segment.text
