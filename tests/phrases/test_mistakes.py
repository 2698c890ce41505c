"""Mistakes in a call or in a book give a VoicehostError that names what is wrong, and where."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from voicehost.errors import VoicehostError
from voicehost.phrases import DEFAULT_PHRASES_DIR, PhraseBook, PhraseBookError


@pytest.mark.parametrize(
    ("key", "params", "named"),
    [
        ("day.no_such_phrase", {}, ["day.no_such_phrase"]),
        ("day.speech_nomination", {}, ["day.speech_nomination", "seat"]),
        ("day.speech_nomination", {"seats": 5}, ["seat", "given: seats"]),
        ("day.speech_nomination", {"seat": "five"}, ["{seat}", "whole number"]),
        ("day.speech_nomination", {"seat": True}, ["{seat}", "whole number"]),
        ("day.speech_nomination", {"seat": 2.5}, ["{seat}", "whole number"]),
        ("day.speech_nomination", {"seat": 100}, ["{seat}", "0 to 99"]),
        ("day.speech_nomination", {"seat": -1}, ["{seat}", "0 to 99"]),
        ("day.candidates", {"seats": ()}, ["{seats:list}", "empty"]),
        ("day.candidates", {"seats": 5}, ["{seats:list}", "tuple"]),
        ("day.candidates", {"seats": "57"}, ["{seats:list}", "tuple"]),
        ("day.leaves", {"seat": 1, "role": "werewolf"}, ["werewolf", "mafia"]),
    ],
)
def test_render_mistakes_name_the_key_and_parameter(
    book: PhraseBook, key: str, params: dict[str, Any], named: list[str]
) -> None:
    with pytest.raises(VoicehostError) as caught:
        book.render(key, params)
    for text in named:
        assert text in str(caught.value)


@pytest.mark.parametrize(
    ("call", "named"),
    [
        (lambda b: b.error("no_such_code"), "no_such_code"),
        (lambda b: b.error("seat_left", {}), "seat"),
        (lambda b: b.error("not_now", {"phase": "dawn"}), "dawn"),
        (lambda b: b.phase_name("dawn"), "dawn"),
        (lambda b: b.word("werewolf"), "werewolf"),
    ],
)
def test_lookup_mistakes_name_what_is_missing(book: PhraseBook, call: Any, named: str) -> None:
    with pytest.raises(PhraseBookError, match=named):
        call(book)


def test_unknown_language_names_the_available_ones() -> None:
    with pytest.raises(PhraseBookError) as caught:
        PhraseBook.load("de")
    assert "'de'" in str(caught.value)
    assert "available: en, ru" in str(caught.value)


def test_a_missing_book_names_the_available_ones(tmp_path: Path) -> None:
    (tmp_path / "ru.yaml").write_text((DEFAULT_PHRASES_DIR / "ru.yaml").read_text(encoding="utf-8"))
    with pytest.raises(PhraseBookError, match=r"available: ru\b"):
        PhraseBook.load("en", tmp_path)


def test_a_book_in_a_language_without_grammar_says_so(tmp_path: Path) -> None:
    (tmp_path / "de.yaml").write_text("language: de\n", encoding="utf-8")
    with pytest.raises(PhraseBookError, match="cannot say numbers in 'de'.*en, ru"):
        PhraseBook.load("de", tmp_path)


GOOD_BOOK = """\
language: en
stop_words: [thank you, pass]
phrases:
  day.speech_nomination: "Player number {seat}, you have the floor."
words:
  and: "and"
errors:
  seat_left: "Player {seat} has left."
phases:
  vote: "vote"
screen:
  paused: "PAUSED"
"""


def write_book(folder: Path, text: str) -> None:
    (folder / "en.yaml").write_text(text, encoding="utf-8")


def test_a_small_book_loads(tmp_path: Path) -> None:
    write_book(tmp_path, GOOD_BOOK)
    book = PhraseBook.load("en", tmp_path)
    assert book.render("day.speech_nomination", {"seat": 4}).text == (
        "Player number four, you have the floor."
    )


@pytest.mark.parametrize(
    ("old", "new", "named"),
    [
        ('"Player number {seat}, you', "Player: number {seat}, you", ["line 4", "not valid YAML"]),
        ("{seat},", "{seat|vote|votes|voted},", ["line 4", "2 noun forms, not 3"]),
        ("{seat},", "{seat:x},", ["line 4", "unknown modifier :x"]),
        ("{seat},", "{Seat},", ["line 4", "not a parameter name"]),
        ("{seat},", "{seat:list|a|b},", ["line 4", "no noun forms"]),
        ("{seat},", "{seat:phase},", ["line 4", "screen only"]),
        ("{seat},", "seat},", ["line 4", "unbalanced brace"]),
        ("{seat} has", "{seat has", ["line 8", "unbalanced brace"]),
        ('  and: "and"', '  or: "or"', ["words.and is missing"]),
        ("language: en", "language: ru", ["line 1", "must be 'en'"]),
        ("stop_words: [thank you, pass]", "stop_words: []", ["line 2", "stop_words"]),
        ('  vote: "vote"\n', '  vote: "vote"\nsounds: []\n', ["line 11", "section 'sounds'"]),
        ('phases:\n  vote: "vote"\n', "", ["missing section(s): phases"]),
        ("  and:", '  and: "+"\n  and:', ["line 7", "words.and is given twice"]),
    ],
)
def test_book_mistakes_name_file_and_line(
    tmp_path: Path, old: str, new: str, named: list[str]
) -> None:
    assert old in GOOD_BOOK
    write_book(tmp_path, GOOD_BOOK.replace(old, new, 1))
    with pytest.raises(PhraseBookError) as caught:
        PhraseBook.load("en", tmp_path)
    message = str(caught.value)
    assert str(tmp_path / "en.yaml") in message
    for text in named:
        assert text in message
