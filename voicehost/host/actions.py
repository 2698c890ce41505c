"""One table of what a person can ask the host, shared by the keyboard, scripts and the keypad.

The keyboard names an action with a word (``.``, ``f 5``, ``u``), the keypad with a key
(``[+]``, ``[*] 5 [Enter]``, ``[/]``); both end up here, so an action means the same thing and
makes the same command whichever way it was given. Numbers follow one rule too: a number is one
to ``MAX_DIGITS`` digits, and whether it is a seat at this table (1..players) is the rules'
question alone, so a wrong seat is refused with the same message from the keyboard, a script
and the keypad.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from voicehost.game.inputs import EndSpeech, Foul, Miss, Remove, TeamLoss, VoteCount
from voicehost.game.model import Seat
from voicehost.host.commands import (
    Command,
    Name,
    Quit,
    Remotes,
    Source,
    Submit,
    TogglePause,
    Undo,
)
from voicehost.ports import Key

MAX_DIGITS = 3
"""Seats go up to 13 and counts up to 12; a longer number is a slip of the finger."""

NUMBER = re.compile(rf"\d{{1,{MAX_DIGITS}}}")


class Action(StrEnum):
    """Something a person asks for, apart from typing the seats or the count asked for."""

    END_SPEECH = "end_speech"  # the speech (or the discussion, or the pause after a vote) ends
    MISS = "miss"  # the mafia missed on purpose
    FOUL = "foul"  # a foul for the seat that follows
    REMOVE = "remove"  # FIIM: remove the seat that follows at once (MR 10.11 to 10.20)
    TEAM_LOSS = "team_loss"  # FIIM: the seat's team loses (MR 10.21 to 10.24); confirmed
    VOTE = "vote"  # the count that follows is a vote count
    UNDO = "undo"  # take back the last entry
    PAUSE = "pause"  # stop or restart the clock
    PROTOCOL = "protocol"  # the console writes the protocol now
    STATUS = "status"  # the console shows the table
    HELP = "help"  # the console lists the commands
    QUIT = "quit"  # stop hosting; the journal keeps the game (the keyboard asks first)
    WAIT = "wait"  # scripts only: let the running timer run out, or let seconds pass
    NAME = "name"  # the seat that follows gets the player's name typed after it
    PAIR = "pair"  # the phone showing the number that follows becomes a remote (none: count)
    UNPAIR = "unpair"  # every remote is dropped: phones pair again


CONSOLE_ACTIONS = frozenset({Action.PROTOCOL, Action.STATUS, Action.HELP, Action.WAIT})
"""Actions the console carries out itself: they make no command for the loop."""


@dataclass(frozen=True)
class ActionSpec:
    """How an action is given: keyboard words, a keypad key, and whether a number follows.

    ``words`` are as a person types them in either language, the first the one ``help`` shows;
    each word also works as typed with the Russian keyboard layout on (``u`` is ``г``, ``f 5``
    is ``а 5``): ``words_of`` adds those, so hosts who switch layouts are never refused.
    """

    words: tuple[str, ...]
    key: Key | None
    number: bool = False


ACTIONS: dict[Action, ActionSpec] = {
    Action.END_SPEECH: ActionSpec(
        (".", "end", "e", "thanks", "pass", "спасибо", "пас", "конец"), Key.END_SPEECH
    ),
    Action.MISS: ActionSpec(("miss", "-", "промах"), Key.MISS),
    Action.FOUL: ActionSpec(("f", "foul", "фол", "ф"), Key.FOUL, number=True),
    Action.REMOVE: ActionSpec(("remove", "удалить"), None, number=True),
    Action.TEAM_LOSS: ActionSpec(("teamloss", "поражение"), None, number=True),
    Action.VOTE: ActionSpec(("v", "votes", "vote", "голоса", "голос"), None, number=True),
    Action.UNDO: ActionSpec(("u", "undo", "отмена", "отменить"), Key.UNDO),
    Action.PAUSE: ActionSpec(("p", "pause", "пауза"), None),
    Action.PROTOCOL: ActionSpec(("protocol", "протокол"), None),
    Action.STATUS: ActionSpec(("status", "статус", "стол"), None),
    Action.HELP: ActionSpec(("help", "?", "помощь", "справка"), None),
    Action.QUIT: ActionSpec(("q", "quit", "exit", "выход", "выйти"), None),
    Action.WAIT: ActionSpec(("wait", "ждать"), None),
    Action.NAME: ActionSpec(("name", "имя"), None, number=True),
    # The keypad pairs with the foul key twice: ``[*] [*] 1 2 3 4 [Enter]`` (0: unpair).
    Action.PAIR: ActionSpec(("pair", "пульт"), None, number=True),
    Action.UNPAIR: ActionSpec(("unpair", "отключить"), None),
}

PAIRING_DIGITS = 4
"""The number a phone shows the host to be paired (voicehost.web.pairing.NUMBER_DIGITS)."""

PAIRING_NUMBER = re.compile(rf"\d{{1,{PAIRING_DIGITS}}}")


def pairing_number_of(digits: str) -> int | None:
    """The number a phone shows, as typed (``1234``), or None if ``digits`` spell none."""
    return int(digits) if PAIRING_NUMBER.fullmatch(digits) else None


#: The Russian ЙЦУКЕН layout over the US one, key by key: what a host types when they meant
#: ``u`` and the layout was Russian (``г``). The full stop's key gives «ю»; the Russian full
#: stop sits on the slash key, so ``.`` is ``.`` either way.
RUSSIAN_LAYOUT = str.maketrans(
    "qwertyuiop[]asdfghjkl;'zxcvbnm,.`", "йцукенгшщзхъфывапролджэячсмитьбюё"
)


def on_russian_layout(word: str) -> str:
    """``word`` as typed with the Russian layout on: ``f`` -> ``а``, ``undo`` -> ``гтвщ``."""
    return word.translate(RUSSIAN_LAYOUT)


def words_of(action: Action) -> tuple[str, ...]:
    """Every word that names ``action``: its own words, then their Russian-layout twins."""
    own = ACTIONS[action].words
    twins = (on_russian_layout(word) for word in own if word.isascii())
    return tuple(dict.fromkeys([*own, *(twin for twin in twins if twin not in own)]))


CONFIRM_WORDS = frozenset({"yes", "да", on_russian_layout("yes"), "y"})
"""The word after the seat that confirms a step which ends the game (``teamloss 5 да``), and
the answer that confirms quitting. Not «н» (``y`` on the Russian layout): it reads as «нет»."""

_BY_WORD = {word: action for action in ACTIONS for word in words_of(action)}
_BY_KEY = {spec.key: action for action, spec in ACTIONS.items() if spec.key is not None}


def action_of_word(word: str) -> Action | None:
    """The action a keyboard word names (lower case), if any."""
    return _BY_WORD.get(word)


def action_of_key(key: Key) -> Action | None:
    """The action a keypad key names, if any (digits, Enter and Correct build entries)."""
    return _BY_KEY.get(key)


def number_of(digits: str) -> int | None:
    """The number ``digits`` spell under the one number rule, or None if they spell none."""
    return int(digits) if NUMBER.fullmatch(digits) else None


def command_for(
    action: Action,
    source: Source,
    number: int | None = None,
    *,
    confirmed: bool = False,
    text: str = "",
) -> Command:
    """The command an action makes; ``number`` for the actions that take one, ``confirmed``
    when the person also typed the confirming word (only a team loss asks for it), ``text``
    the name typed after the seat (a name is never read as a command)."""
    match action:
        case Action.END_SPEECH:
            return Submit(EndSpeech(), source)
        case Action.MISS:
            return Submit(Miss(), source)
        case Action.UNDO:
            return Undo(source)
        case Action.PAUSE:
            return TogglePause()
        case Action.QUIT:
            return Quit()
        case Action.UNPAIR:
            return Remotes(0, source)
        case Action.PAIR:
            return Remotes(number, source)
    if action in CONSOLE_ACTIONS:
        raise ValueError(f"{action} is the console's own: it makes no command")
    if number is None:
        raise ValueError(f"{action} needs a number")
    if action is Action.FOUL:
        return Submit(Foul(Seat(number)), source)
    if action is Action.REMOVE:
        return Submit(Remove(Seat(number)), source)
    if action is Action.TEAM_LOSS:
        return Submit(TeamLoss(Seat(number), confirmed), source)
    if action is Action.NAME:
        return Name(number, text, source)
    return Submit(VoteCount(number), source)
