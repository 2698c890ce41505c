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
    CONSOLE_ACTIONS,
    Action,
    action_of_word,
    command_for,
    number_of,
    on_russian_layout,
    pairing_number_of,
)
from voicehost.host.commands import Command, Source, Submit, Voters
from voicehost.phrases import PhraseBook


class CommandError(VoicehostError):
    """A line that is not a command; the text says what was wrong and how to get help."""


@dataclass(frozen=True)
class Wait:
    """Scripts: let the running timer run out (``seconds`` None), let time pass, or let it run
    to its warning (``warning``: the moment the rules give, whatever the timers are set to)."""

    seconds: float | None = None
    warning: bool = False


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


#: `wait warning`: the running timer goes on to its warning (a window's «no agreed shot»).
WAIT_WARNING_WORDS = frozenset({"warning", "предупреждения", "предупреждение", "⚠"})

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
    words = _words(text)
    if not words:  # only separators, e.g. a lone `,` (Shift+`.` on a Russian layout)
        raise CommandError.written(book.error("unknown_command", {"text": text}))
    head, rest = words[0], words[1:]
    action = action_of_word(head)
    if action is Action.TEAM_LOSS and len(rest) == 2 and rest[1] in CONFIRM_WORDS:
        return command_for(action, Source.KEYBOARD, _number(rest[0], text, book), confirmed=True)
    if action is Action.TEAM_LOSS and len(rest) != 1:
        raise CommandError.written(book.screen("team_loss_form", {"text": text}))
    if action is Action.WAIT:
        if len(rest) == 1 and rest[0] in WAIT_WARNING_WORDS:
            return Wait(warning=True)
        return Wait(float(_one_number(rest, text, book)) if rest else None)
    if action is Action.PAIR:  # `пульт 1234`: the number the phone shows; `пульт`: how many
        return command_for(action, Source.KEYBOARD, _pairing_number(rest, text, book))
    if action is not None and ACTIONS[action].number:
        return command_for(action, Source.KEYBOARD, _one_number(rest, text, book))
    if action in _CONSOLE and not rest:
        return _CONSOLE[action]
    if action is not None and action not in CONSOLE_ACTIONS and not rest:
        return command_for(action, Source.KEYBOARD)
    numbers = [_number(word, text, book) for word in words]
    # During the pause after the last count a number is a second count: the rules refuse it
    # and say how to confirm or correct, which a seat entry's "not now" would not.
    if prompt.kind in (PromptKind.VOTE_COUNT, PromptKind.THIRD_VOTE_COUNT, PromptKind.CONFIRM_VOTE):
        if len(numbers) != 1:
            raise CommandError.written(book.screen("one_count", {"text": text}))
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
        raise CommandError.written(book.screen("name_form", {"text": line.strip()[:40]}))
    return command_for(Action.NAME, Source.KEYBOARD, seat, text=name)


_CONSOLE: dict[Action | None, Line] = {
    Action.HELP: ShowHelp(),
    Action.STATUS: ShowStatus(),
    Action.PROTOCOL: WriteProtocol(),
}

#: A word glued to its number (``f5``, ``а5``, ``v3``): the word and the number apart.
_GLUED = re.compile(r"(\D+?)(\d+)")
#: A number with a full stop after it (``3.``): the stop is the end of the sentence.
_STOPPED = re.compile(r"(\d+)\.+")


def _words(text: str) -> list[str]:
    """The words of a line, lower case: ``f5`` is ``f 5`` and ``3.`` is ``3``, so that a host
    typing fast or in a sentence is understood."""
    words: list[str] = []
    for word in re.split(r"[\s,;]+", text.lower()):
        glued = _GLUED.fullmatch(word)
        stopped = _STOPPED.fullmatch(word)
        if glued is not None and action_of_word(glued.group(1)) is not None:
            words.extend(glued.groups())
        elif stopped is not None:
            words.append(stopped.group(1))
        elif word:
            words.append(word)
    return words


def _number(word: str, text: str, book: PhraseBook) -> int:
    number = number_of(word)
    if number is None:
        raise CommandError.written(book.error("unknown_command", {"text": text}))
    return number


def _pairing_number(words: list[str], text: str, book: PhraseBook) -> int | None:
    if not words:
        return None
    number = pairing_number_of(words[0]) if len(words) == 1 else None
    if number is None:
        raise CommandError.written(book.screen("pair_form", {"text": text}))
    return number


def _one_number(words: list[str], text: str, book: PhraseBook) -> int:
    if len(words) != 1:
        raise CommandError.written(book.screen("one_number", {"text": text}))
    return _number(words[0], text, book)


#: The width of the help's first column (``teamloss 5 да`` goes on a line of its own).
_HELP_COLUMN = 13


def help_text(book: PhraseBook) -> str:
    """The keyboard reference in the book's language, drawn from the action table: every
    action with its words in both languages and its key on the Russian layout, so a command
    added to the table is listed the day it is added."""
    rows = [book.screen("help_title"), book.screen("help_layout")]
    rows += _help_rows("5", book.screen("help_seat"))
    rows += _help_rows("5 7", book.screen("help_two_seats"))
    rows += _help_rows("3", book.screen("help_count"))
    rows += _help_rows("3: 1 4 6 9", book.screen("help_voters"))
    for action, spec in ACTIONS.items():
        first, *others = spec.words
        usage = first + (" 3" if action is Action.VOTE else " 5" if spec.number else "")
        if action is Action.PAIR:
            usage = f"{first} 1234"
        if action is Action.NAME:
            usage += " " + book.screen("help_name_example")
        if action is Action.TEAM_LOSS:
            usage += " " + book.screen("help_confirm_word")
        # A one-key command's twin is worth a line of its own; longer words follow the rule
        # the help's second line gives.
        twin = on_russian_layout(first)
        also = [*others, *([twin] if twin != first and len(first) == 1 else [])]
        rows += _help_rows(usage, book.screen(f"help_{action.value}"))
        if also:
            rows += _help_rows("", book.screen("help_also", {"text": ", ".join(also)}))
    return "\n".join(rows)


def _help_rows(usage: str, text: str) -> list[str]:
    if len(usage) >= _HELP_COLUMN:
        return [f"  {usage}", f"  {'':{_HELP_COLUMN}}{text}"]
    return [f"  {usage:{_HELP_COLUMN}}{text}"]
