"""The command line's words are read from the book once and kept; a changed book is read again,
and a cache that cannot be written changes nothing (``voicehost --help`` stays cheap)."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicehost.cli import texts


@pytest.fixture
def book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    phrases = tmp_path / "phrases"
    phrases.mkdir()
    monkeypatch.setattr(texts, "PHRASES_DIR", phrases)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = phrases / "ru.yaml"
    path.write_text('phrases: {}\ncli:\n  play: "сыграть партию"\n', encoding="utf-8")
    return path


def test_the_help_text_comes_from_the_book_and_then_from_the_cache(book: Path) -> None:
    assert texts.load_section("ru") == {"play": "сыграть партию"}
    assert (book.parent.parent / "cache" / "voicehost" / "cli-ru.json").is_file()
    assert texts.load_section("ru") == {"play": "сыграть партию"}


def test_a_changed_book_is_read_again(book: Path) -> None:
    texts.load_section("ru")
    book.write_text('cli:\n  play: "играть"\n', encoding="utf-8")
    assert texts.load_section("ru") == {"play": "играть"}


def test_a_broken_cache_or_one_that_cannot_be_written_changes_nothing(book: Path) -> None:
    cache = book.parent.parent / "cache"
    cache.write_text("not a folder", encoding="utf-8")  # the cache folder cannot be made
    assert texts.load_section("ru") == {"play": "сыграть партию"}
    cache.unlink()
    texts.load_section("ru")
    (cache / "voicehost" / "cli-ru.json").write_text("{broken", encoding="utf-8")
    assert texts.load_section("ru") == {"play": "сыграть партию"}
