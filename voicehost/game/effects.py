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

    COMMISSAR_ANSWER = "commissar_answer"
    ENTRY_CONFIRMED = "entry_confirmed"
    DON_ANSWER = "don_answer"  # FIIM: found says "this is the Sheriff"
    SHERIFF_ANSWER = "sheriff_answer"  # FIIM: found says "this player is black"


@dataclass(frozen=True)
class Private:
    """A message for one player only (the Commissar's answer, a night entry's confirmation).

    It must never reach the table's speaker: the host sends it to the PrivateChannel.
    """

    kind: PrivateKind
    is_mafia: bool | None = None
    seats: tuple[Seat, ...] = ()
    found: bool | None = None


@dataclass(frozen=True)
class GameOver:
    """A team has won (None: a FIIM draw)."""

    winner: Team | None


Effect = Say | PlayCue | StartTimer | CancelTimer | Private | GameOver


class PromptKind(StrEnum):
    """What the game is waiting for a person to enter now."""

    REGISTER_MAFIA = "register_mafia"
    REGISTER_COMMISSAR = "register_commissar"
    REGISTER_DOCTOR = "register_doctor"
    REGISTER_DON = "register_don"
    REGISTER_SHERIFF = "register_sheriff"
    NOMINATE = "nominate"
    MAFIA_TARGET = "mafia_target"
    COMMISSAR_CHECK = "commissar_check"
    DOCTOR_HEAL = "doctor_heal"
    DON_CHECK = "don_check"
    SHERIFF_CHECK = "sheriff_check"
    VOTE_COUNT = "vote_count"
    THIRD_VOTE_COUNT = "third_vote_count"
    BEST_MOVE = "best_move"  # FIIM: the first night's victim names three seats
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
    """

    kind: PromptKind
    seats_min: int = 0
    seats_max: int = 0
    subject: Seat | None = None
    max_count: int | None = None
    speech_running: bool = False
    night: bool = False
    late: bool = False
