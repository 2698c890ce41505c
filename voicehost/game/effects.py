"""Effects: what the rules ask the host to do. Only the host carries them out.

One engine can then drive the speaker, the console, a test and a replay in the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from voicehost.game.model import Cue, Seat, Team, TimerKind


@dataclass(frozen=True)
class Say:
    """Announce a phrase of the phrase book aloud (and on screen).

    ``key`` is a phrase key such as ``"day.speech_nomination"``; ``params`` fill its
    placeholders (ints for seats and counts, tuples of ints for seat lists, str for roles).
    """

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PlayCue:
    """Play a short cue now."""

    cue: Cue


@dataclass(frozen=True)
class StartTimer:
    """Start a timer once every announcement before it has finished playing.

    At ``seconds - warn_before`` the host feeds ``TimerWarning(timer_id)``; at ``seconds`` it
    feeds ``TimeUp(timer_id)``. Only one timer runs at a time: a new one replaces the old.
    ``listen`` tells the Listener to hear stop words during this timer.
    """

    timer_id: int
    timer: TimerKind
    seconds: float
    warn_before: float | None
    listen: bool
    speaker: Seat | None = None


@dataclass(frozen=True)
class CancelTimer:
    """Stop the running timer (a speech ended early, a phase ended)."""


class PrivateKind(StrEnum):
    """What a private message tells."""

    ENTRY_CONFIRMED = "entry_confirmed"
    ANSWER = "answer"  # a check's answer: ``found`` yes or no, ``answer`` its words
    REFUSED = "refused"  # a night entry refused: ``answer`` the reason's words, ``again`` whether
    # another entry can help (the shared screen and the voice say only that it was refused)


@dataclass(frozen=True)
class Private:
    """A message for one player only (a check's answer, a night entry's confirmation).

    It must never reach the table's speaker: the host sends it to the PrivateChannel.
    ``found`` is the answer (the Commissar found the mafia, the Don the Sheriff, the Sheriff a
    black player); ``answer`` names its words (a key of the phrase book's screen section), so
    an adapter shows any rule set's answer without knowing its roles.
    """

    kind: PrivateKind
    seats: tuple[Seat, ...] = ()
    found: bool | None = None
    answer: str = ""
    again: bool = False
    role: str = ""  # the role whose night step took an entry (a role's value; the host's to say)


@dataclass(frozen=True)
class GameOver:
    """A team has won (None: a FIIM draw)."""

    winner: Team | None


Effect = Say | PlayCue | StartTimer | CancelTimer | Private | GameOver


class PromptKind(StrEnum):
    """What the game is waiting for a person to enter now."""

    SEATS = "seats"  # seats: for a role at night, a nomination, a best move
    VOTE_COUNT = "vote_count"
    THIRD_VOTE_COUNT = "third_vote_count"
    CONFIRM_VOTE = "confirm_vote"  # the counts are announced: confirm, or undo a miscount
    NONE = "none"


@dataclass(frozen=True)
class Prompt:
    """The question of the moment, for the screen and for the keypad.

    ``seats_min``/``seats_max`` bound how many seats an entry takes; ``subject`` is the seat the
    question is about (the nominating speaker, the candidate being voted on); ``speech_running``
    says whether an "end speech" key means something now; ``night`` says that nothing about the
    entry may be spoken or shown to the table; ``late`` says that the window or the speech for
    it has run out and the game is still waiting for the entry.

    A seats question is generic: ``role`` is whose entry it is (a role's value, None by day),
    ``action`` what the seats are for (``register``, ``kill``, ``check``, ``heal``, ``block``,
    ``nominate``, ``best_move``...), ``may_miss`` whether "no one" may be entered, and
    ``question`` the screen's words for it (a key of the book's screen section). Adapters show
    and take any rule set's questions from these fields without naming a role or a phase.

    Where a team's members enter one after another on one question (FIIM's shots, MR 8.4),
    ``subject`` is whose entry is next, ``turn`` its place and ``turns`` how many there are
    («1 из 3»); both are 0 elsewhere. They follow the seats, never what was entered.
    """

    kind: PromptKind
    seats_min: int = 0
    seats_max: int = 0
    subject: Seat | None = None
    max_count: int | None = None
    speech_running: bool = False
    night: bool = False
    late: bool = False
    role: str | None = None
    action: str | None = None
    may_miss: bool = False
    question: str = ""
    turn: int = 0
    turns: int = 0
