"""Fixtures for the phrase book tests: both real books, loaded once."""

from __future__ import annotations

import pytest

from voicehost.phrases import PhraseBook

LANGUAGES = ("ru", "en")


@pytest.fixture(scope="session")
def books() -> dict[str, PhraseBook]:
    """The real books of the repository, by language."""
    return {language: PhraseBook.load(language) for language in LANGUAGES}


@pytest.fixture(params=LANGUAGES)
def book(request: pytest.FixtureRequest, books: dict[str, PhraseBook]) -> PhraseBook:
    """Each real book in turn."""
    return books[request.param]
