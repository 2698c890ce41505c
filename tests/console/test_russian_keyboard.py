"""Hosts switch keyboard layouts all the time: every command has Russian words and works as
typed with the Russian layout on, `help` lists every command in the game's language, and a
mistyped `q` never ends the evening."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.commandline import CommandError, help_text, parse
from voicehost.console.terminal import LineHandler, LogScreen
from voicehost.console.text import ScreenPrivateChannel, SilentCues, TextSpeaker
from voicehost.game.effects import Prompt, PromptKind
from voicehost.game.inputs import EnterSeats, VoteCount
from voicehost.game.model import Seat
from voicehost.host.actions import (
    ACTIONS,
    RUSSIAN_LAYOUT,
    Action,
    action_of_word,
    on_russian_layout,
    words_of,
)
from voicehost.host.commands import Submit
from voicehost.host.loop import Host
from voicehost.phrases import PhraseBook

BOOKS = {language: PhraseBook.load(language) for language in ("ru", "en")}
BOOK = BOOKS["ru"]
SEATS = Prompt(PromptKind.NOMINATE, 1, 1, subject=Seat(1))
COUNT = Prompt(PromptKind.VOTE_COUNT, subject=Seat(4), max_count=9)


def same(line: str, other: str, prompt: Prompt = SEATS) -> None:
    assert parse(line, prompt, BOOK) == parse(other, prompt, BOOK), (line, other)


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("г", "u"),
        ("з", "p"),
        ("а 5", "f 5"),
        ("ф 5", "f 5"),
        ("фол 5", "f 5"),
        ("f5", "f 5"),
        ("а5", "f 5"),
        ("F5", "f 5"),
        ("ю", "."),
        ("статус", "status"),
        ("помощь", "help"),
        ("протокол", "protocol"),
        ("пауза", "p"),
        ("отмена", "u"),
        ("выход", "q"),
        ("й", "q"),
        ("ьшыы", "miss"),
        ("промах", "miss"),
        ("утв", "end"),
        ("3.", "3"),
        ("3. 5", "3 5"),
    ],
)
def test_a_command_typed_in_russian_or_on_the_russian_layout_is_the_command(
    typed: str, meant: str
) -> None:
    assert parse(typed, SEATS, BOOK) is not None
    same(typed, meant)


def test_a_count_with_a_full_stop_or_a_glued_word_is_the_count() -> None:
    assert parse("3.", COUNT, BOOK) == Submit(VoteCount(3))
    assert parse("м3", COUNT, BOOK) == parse("v 3", COUNT, BOOK)
    assert parse("3.", SEATS, BOOK) == Submit(EnterSeats((Seat(3),)))


@pytest.mark.parametrize("action", list(Action))
def test_every_word_of_every_action_and_its_layout_twin_names_that_action(action) -> None:
    for word in words_of(action):
        assert action_of_word(word) is action, word
    for word in ACTIONS[action].words:
        if word.isascii():
            assert action_of_word(on_russian_layout(word)) is action, word


def test_no_word_names_two_actions() -> None:
    seen: dict[str, Action] = {}
    for action in Action:
        for word in words_of(action):
            assert seen.setdefault(word, action) is action, (word, seen[word], action)


def test_the_layout_covers_every_latin_letter() -> None:
    assert {chr(code) for code in RUSSIAN_LAYOUT} >= set("abcdefghijklmnopqrstuvwxyz")


@pytest.mark.parametrize("language", ["ru", "en"])
def test_help_lists_every_command_with_its_words_in_the_games_language(language: str) -> None:
    book = BOOKS[language]
    text = help_text(book)
    assert text.splitlines()[0] == book.screen("help_title")
    for action, spec in ACTIONS.items():
        assert book.screen(f"help_{action.value}") in text, action
        for word in spec.words:
            assert word in text, (action, word)
    for word in ("пауза", "отмена", "выход", "статус", "помощь", "протокол", "г", "а"):
        assert word in text


def test_russian_help_is_russian() -> None:
    text = help_text(BOOK)
    assert "Команды клавиатуры" in text
    assert "undo the last" not in text and "also:" not in text


# --------------------------------------------------------------------- q asks first


def make_handler() -> tuple[Host, LineHandler, LogScreen]:
    clock = FakeClock()
    screen = LogScreen()
    host = Host(
        config.load(None),
        BOOK,
        clock,
        speaker=TextSpeaker(clock),
        cues=SilentCues(),
        private=ScreenPrivateChannel(screen, book=BOOK),
        screen=screen,
    )
    host.start()
    return host, LineHandler(host, screen, lambda: ""), screen


@pytest.mark.parametrize("typed", ["q", "й", "выход"])
def test_q_asks_first_and_a_second_q_or_da_quits(typed: str) -> None:
    for confirm in ("q", "да", "y", "выход"):
        host, handler, screen = make_handler()
        handler.line(typed)
        assert not host.quit
        assert screen.lines[-1] == BOOK.screen("quit_question")
        handler.line(confirm)
        assert host.quit, confirm


def test_a_mistyped_q_costs_nothing_the_next_entry_is_carried_out() -> None:
    host, handler, screen = make_handler()
    handler.line("q")
    handler.line("2 5 9")  # the host meant to enter the mafia's seats
    assert not host.quit
    assert BOOK.screen("quit_cancelled") in screen.lines
    assert len(host.accepted) == 1
    for no in ("нет", "н", "n"):
        handler.line("q")
        handler.line(no)
        assert not host.quit
        assert screen.lines[-1] == BOOK.screen("quit_cancelled")  # and no «unknown command»


# --------------------------------------------------------------------- fuzz

cyrillic_words = st.sampled_from(sorted({w for a in Action for w in words_of(a)}))
numbers = st.integers(min_value=0, max_value=20).map(str)
glue = st.sampled_from(["", " ", ".", ", "])


@given(word=cyrillic_words, number=numbers, between=glue, language=st.sampled_from(["ru", "en"]))
def test_any_word_with_any_number_is_a_command_or_a_clear_refusal(
    word: str, number: str, between: str, language: str
) -> None:
    book = BOOKS[language]
    for prompt in (SEATS, COUNT):
        try:
            parse(f"{word}{between}{number}", prompt, book)
        except CommandError as exc:
            assert str(exc).strip()
