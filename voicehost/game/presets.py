"""The rule sets ``rules.preset`` names: each is an engine class over the same game model.

The club rules of docs/RULES.md are ``Engine``; FIIM's (docs/RULES-FIIM.md) are ``FiimEngine``,
which replaces only the rule functions that differ. What a preset fixes about the table (ten
players, three black) is data in ``voicehost.game.rules.PRESETS``.
"""

from __future__ import annotations

from voicehost.game.engine import Engine
from voicehost.game.fiim import FiimEngine
from voicehost.game.rules import PRESETS, GameRules

ENGINES: dict[str, type[Engine]] = {"club": Engine, "fiim": FiimEngine}
assert set(ENGINES) == set(PRESETS), "every preset needs its engine"


def engine_for(settings: GameRules) -> Engine:
    """The engine that plays by ``settings`` (its ``rules.preset``)."""
    return ENGINES[settings.rules.preset](settings)
