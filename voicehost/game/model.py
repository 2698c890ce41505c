"""Names the game is made of: roles, teams, phases, timers, cues."""

from __future__ import annotations

from enum import StrEnum
from typing import NewType

Seat = NewType("Seat", int)
"""A place at the table, 1..players: the one shape a seat has from the key press to the protocol."""


class Role(StrEnum):
    """A card a player draws."""

    CIVILIAN = "civilian"
    MAFIA = "mafia"
    COMMISSAR = "commissar"
    DOCTOR = "doctor"
    DON = "don"  # the head of the black team, who looks for the Sheriff (the Commissar)
    SHERIFF = "sheriff"  # FIIM: the red player who checks for black
    PUTANA = "putana"  # city: «путана», whose client is blocked for the night and the next vote
    MANIAC = "maniac"  # city: the third team, who kills alone and wins alone
    IMMORTAL = "immortal"  # city: a civilian no night kill can take


class Team(StrEnum):
    """Red are the civilians (with the Commissar and the Doctor); black are the mafia; a rule
    set may have a third team that plays for itself (the city's Maniac). A card's team is the
    rule set's (``RuleSet.team``)."""

    RED = "red"
    BLACK = "black"
    MANIAC = "maniac"


class Phase(StrEnum):
    """Where the game is. Each value is also the screen's name for it."""

    ACQUAINTANCE = "acquaintance"  # the cards are drawn: each player introduces themselves
    NIGHT0_MAFIA = "night0_mafia"
    NIGHT0_COMMISSAR = "night0_commissar"
    NIGHT0_DOCTOR = "night0_doctor"
    NIGHT0_DON = "night0_don"  # FIIM: the Don wakes to be seen
    NIGHT0_SHERIFF = "night0_sheriff"  # FIIM: the Sheriff wakes to be seen
    NIGHT0_PUTANA = "night0_putana"
    NIGHT0_MANIAC = "night0_maniac"
    NIGHT0_IMMORTAL = "night0_immortal"
    NIGHT0_SEATING = "night0_seating"  # FIIM: free seating before the first morning
    NIGHT0_DEAL = "night0_deal"  # FIIM: the cards are dealt at night (MR 4.3, 4.4)
    DISCUSSION = "discussion"
    NOMINATION = "nomination"
    DEFENCE = "defence"
    VOTE = "vote"
    THIRD_VOTE = "third_vote"
    LAST_WORDS = "last_words"
    NIGHT_MAFIA = "night_mafia"
    NIGHT_COMMISSAR = "night_commissar"
    NIGHT_DOCTOR = "night_doctor"
    NIGHT_DON = "night_don"  # FIIM: the Don looks for the Sheriff
    NIGHT_SHERIFF = "night_sheriff"  # FIIM: the Sheriff checks for black
    NIGHT_PUTANA = "night_putana"
    NIGHT_MANIAC = "night_maniac"
    NIGHT_IMMORTAL = "night_immortal"
    GAME_OVER = "game_over"

    @property
    def is_night(self) -> bool:
        return self.value.startswith("night")


class TimerKind(StrEnum):
    """What a running timer measures."""

    DISCUSSION = "discussion"
    ACQUAINTANCE_SPEECH = "acquaintance_speech"
    NOMINATION_SPEECH = "nomination_speech"
    DEFENCE_SPEECH = "defence_speech"
    LAST_WORDS = "last_words"
    NIGHT_WINDOW = "night_window"
    VOTE_RESULT = "vote_result"  # counts announced; a miscount can still be undone

    @property
    def is_speech(self) -> bool:
        """A timed speech of one player: the Listener may end it on a stop word."""
        return self in (
            TimerKind.ACQUAINTANCE_SPEECH,
            TimerKind.NOMINATION_SPEECH,
            TimerKind.DEFENCE_SPEECH,
            TimerKind.LAST_WORDS,
        )


class Cue(StrEnum):
    """Short non-verbal sounds. KEY_ACK is identical for every key, by design (fair nights)."""

    WARNING = "warning"  # some seconds before a speech ends
    TIME_UP = "time_up"  # the speech's time is over
    SPEECH_ENDED = "speech_ended"  # a speech ended early (stop word or key)
    KEY_ACK = "key_ack"  # any key press on the keypad
    REJECT = "reject"  # a rejected entry: one neutral "try again"
