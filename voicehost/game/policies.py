"""Every policy a rule set may name, by kind: the names the engine's registries know.

Each part of the engine keeps one registry per kind of policy (a dict from the name a rule set
gives to the function or table of functions that does it) and looks it up once, when the engine
is built. ``voicehost rules check`` reads the names here, so a file is checked against exactly
what the engine can play.
"""

from __future__ import annotations

from voicehost.game.day import DAY_OPENINGS, NOMINATIONS
from voicehost.game.end import SCORES, WINS
from voicehost.game.fouls import FOULS
from voicehost.game.morning import KILLS, MORNING, NIGHT_RECORDS
from voicehost.game.night import ACTIONS, AGREEMENT, LEARNS
from voicehost.game.table import CARDS
from voicehost.game.vote import TIES, VOTES

#: The known names of each kind, by the key a rule set file gives it.
KNOWN: dict[str, tuple[str, ...]] = {
    "action": tuple(ACTIONS),  # roles.*.action
    "learns": tuple(LEARNS),  # roles.*.learns
    "cards": tuple(CARDS),  # cards
    "agreement": tuple(AGREEMENT),  # night.agreement
    "morning": tuple(MORNING),  # night.morning
    "record": tuple(NIGHT_RECORDS),  # night.record
    "kills": tuple(KILLS),  # night.kills
    "opening": tuple(DAY_OPENINGS),  # day.opening
    "nominations": tuple(NOMINATIONS),  # day.nominations
    "vote": tuple(VOTES),  # day.vote
    "ties": tuple(TIES),  # day.ties
    "fouls": tuple(FOULS),  # day.fouls
    "win": tuple(WINS),  # end.win
    "scores": tuple(SCORES),  # end.scores
}


def asks(action: str) -> bool:
    """Whether a role of ``action`` checks (and so must say what it learns)."""
    known = ACTIONS.get(action)
    return known is not None and known.asks


#: A file without ``night.kills``: its kills resolve as its ``night.record`` had them.
KILLS_OF_RECORD: dict[str, str] = {
    "shot_check_heal": "shot_or_heal",
    "shots_checks": "one_shot",
    "actions": "after_blocks_and_heals",
}
