"""The keyboard command language, shared by `voicehost play` and `voicehost play --script`.

One command per line (see the README's "Keyboard reference"). Numbers mean what the game is
asking for: seats (registration, nominations, night choices) or, during a vote, a count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from voicehost.errors import VoicehostError
from voicehost.game.effects import Prompt, PromptKind
from voicehost.game.inputs import EnterSeats, VoteCount
from voicehost.game.model import Seat
from voicehost.host.actions import (
    ACTIONS,
    CONFIRM_WORDS,
    Action,
    action_of_word,
    command_for,
    number_of,
)
from voicehost.host.commands import Command, Source, Submit, Voters
from voicehost.phrases import PhraseBook


class CommandError(VoicehostError):
    """A line that is not a command; the text says what was wrong and how to get help."""


@dataclass(frozen=True)
class Wait:
    """Scripts: let the running timer run out (``seconds`` None) or let time pass."""

    seconds: float | None = None


@dataclass(frozen=True)
class ShowHelp:
    """Print the keyboard reference."""


@dataclass(frozen=True)
class ShowStatus:
    """Print the table's status."""


@dataclass(frozen=True)
class WriteProtocol:
    """Write the protocol now."""


Line = Command | Wait | ShowHelp | ShowStatus | WriteProtocol


#: `3: 1 4 6 9`: the voters against candidate 3 (the count is their number).
VOTERS = re.compile(r"(\d{1,3})\s*:\s*([\d\s,;]*)")


def strip_comment(line: str) -> str:
    """A line without its ``#`` comment and surrounding blanks."""
    return line.split("#", 1)[0].strip()


def parse(line: str, prompt: Prompt, book: PhraseBook) -> Line | None:
    """One line -> a command or a console action (None for an empty line).

    Raises CommandError in the book's words."""
    named = _name_line(line, book)
    if named is not None:
        return named
    voters = VOTERS.fullmatch(strip_comment(line))
    if voters is not None:
        candidate = _number(voters.group(1), line.strip(), book)
        seats = [
            _number(word, line.strip(), book)
            for word in re.split(r"[\s,;]+", voters.group(2))
            if word
        ]
        return Voters(candidate, tuple(seats))
    text = strip_comment(line)
    if not text:
        return None
    words = [word for word in re.split(r"[\s,;]+", text.lower()) if word]
    if not words:  # only separators, e.g. a lone `,` (Shift+`.` on a Russian layout)
        raise CommandError(book.error("unknown_command", {"text": text}))
    head, rest = words[0], words[1:]
    action = action_of_word(head)
    if action is Action.TEAM_LOSS and len(rest) == 2 and rest[1] in CONFIRM_WORDS:
        return command_for(action, Source.KEYBOARD, _number(rest[0], text, book), confirmed=True)
    if action is Action.TEAM_LOSS and len(rest) != 1:
        raise CommandError(book.screen("team_loss_form", {"text": text}))
    if action is not None and ACTIONS[action].number:
        return command_for(action, Source.KEYBOARD, _one_number(rest, text, book))
    if action is not None and not rest:
        return command_for(action, Source.KEYBOARD)
    if head == "wait":
        return Wait(float(_one_number(rest, text, book)) if rest else None)
    if head == "help" and not rest:
        return ShowHelp()
    if head == "status" and not rest:
        return ShowStatus()
    if head == "protocol" and not rest:
        return WriteProtocol()
    numbers = [_number(word, text, book) for word in words]
    # During the pause after the last count a number is a second count: the rules refuse it
    # and say how to confirm or correct, which a seat entry's "not now" would not.
    if prompt.kind in (PromptKind.VOTE_COUNT, PromptKind.THIRD_VOTE_COUNT, PromptKind.CONFIRM_VOTE):
        if len(numbers) != 1:
            raise CommandError(book.screen("one_count", {"text": text}))
        return Submit(VoteCount(numbers[0]))
    return Submit(EnterSeats(tuple(Seat(number) for number in numbers)))


def _name_line(line: str, book: PhraseBook) -> Command | None:
    """``имя 5 Анна`` / ``name 5 Anna``: the seat and the name as typed, the whole rest of the
    line (a ``#`` in it is part of the name; nothing in a name is read as a command). ``имя 5``
    alone takes the seat's name away."""
    head, _, rest = line.strip().partition(" ")
    if action_of_word(head.lower()) is not Action.NAME:
        return None
    seat_word, _, name = rest.strip().partition(" ")
    seat = number_of(seat_word)
    if seat is None:
        raise CommandError(book.screen("name_form", {"text": line.strip()[:40]}))
    return command_for(Action.NAME, Source.KEYBOARD, seat, text=name)


def _number(word: str, text: str, book: PhraseBook) -> int:
    number = number_of(word)
    if number is None:
        raise CommandError(book.error("unknown_command", {"text": text}))
    return number


def _one_number(words: list[str], text: str, book: PhraseBook) -> int:
    if len(words) != 1:
        raise CommandError(book.screen("one_number", {"text": text}))
    return _number(words[0], text, book)
