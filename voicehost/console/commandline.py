"""The keyboard command language, shared by `voicehost play` and `voicehost play --script`.

One command per line (see the README's "Keyboard reference"). Numbers mean what the game is
asking for: seats (registration, nominations, night choices) or, during a vote, a count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from voicehost.errors import VoicehostError
from voicehost.game.effects import Prompt, PromptKind
from voicehost.game.inputs import EndSpeech, EnterSeats, Foul, Miss, VoteCount
from voicehost.host.loop import Command, Quit, Submit, TogglePause, Undo

END_WORDS = {".", "end", "e", "спасибо", "пас", "thanks", "pass"}
MISS_WORDS = {"miss", "-", "промах"}
FOUL_WORDS = {"f", "foul", "фол"}
VOTE_WORDS = {"v", "votes", "vote", "голоса"}
UNDO_WORDS = {"u", "undo", "отмена"}
PAUSE_WORDS = {"p", "pause", "пауза"}
QUIT_WORDS = {"q", "quit", "exit", "выход"}


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


Action = Command | Wait | ShowHelp | ShowStatus | WriteProtocol

HELP = """Keyboard reference
  5            enter seat 5 (registration, a nomination, a night choice)
  5 7          enter two seats (two nominations; the mafia's seats on night 0)
  3            during a vote: 3 raised masks for the candidate being voted on
  v 3          a vote count, explicitly
  .            end the current speech (also: end, спасибо, пас); after a vote's
               counts are announced: the count is right, go on at once
  miss         the mafia miss on purpose (also: -, промах)
  f 5          a foul for seat 5 (also: foul 5)
  u            undo the last entry (a miscount: before anyone leaves)
  p            pause / resume the clock
  protocol     write the protocol now
  status       show the table
  help         this text
  q            quit (the journal keeps the game: `voicehost resume`)
  wait         scripts only: let the running timer run out; `wait 10` lets 10 s pass"""


def strip_comment(line: str) -> str:
    """A line without its ``#`` comment and surrounding blanks."""
    return line.split("#", 1)[0].strip()


def parse(line: str, prompt: Prompt) -> Action | None:
    """One line -> an action (None for an empty line). Raises CommandError."""
    text = strip_comment(line)
    if not text:
        return None
    words = [word for word in re.split(r"[\s,;]+", text.lower()) if word]
    head, rest = words[0], words[1:]
    if head in END_WORDS and not rest:
        return Submit(EndSpeech())
    if head in MISS_WORDS and not rest:
        return Submit(Miss())
    if head in UNDO_WORDS and not rest:
        return Undo()
    if head in PAUSE_WORDS and not rest:
        return TogglePause()
    if head in QUIT_WORDS and not rest:
        return Quit()
    if head in FOUL_WORDS:
        return Submit(Foul(_one_number(rest, text)))
    if head in VOTE_WORDS:
        return Submit(VoteCount(_one_number(rest, text)))
    if head == "wait":
        return Wait(float(_one_number(rest, text)) if rest else None)
    if head == "help" and not rest:
        return ShowHelp()
    if head == "status" and not rest:
        return ShowStatus()
    if head == "protocol" and not rest:
        return WriteProtocol()
    numbers = [_number(word, text) for word in words]
    # During the pause after the last count a number is a second count: the rules refuse it
    # and say how to confirm or correct, which a seat entry's "not now" would not.
    if prompt.kind in (PromptKind.VOTE_COUNT, PromptKind.THIRD_VOTE_COUNT, PromptKind.CONFIRM_VOTE):
        if len(numbers) != 1:
            raise CommandError(f"«{text}»: a vote takes one number, the count of raised masks")
        return Submit(VoteCount(numbers[0]))
    return Submit(EnterSeats(tuple(numbers)))


def _number(word: str, text: str) -> int:
    if not re.fullmatch(r"-?\d{1,3}", word):
        raise CommandError(f"«{text}» is not a command; type `help` for the list")
    return int(word)


def _one_number(words: list[str], text: str) -> int:
    if len(words) != 1:
        raise CommandError(f"«{text}»: this command takes exactly one number")
    return _number(words[0], text)
