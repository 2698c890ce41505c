"""The game's own exceptions. The rules import nothing of voicehost outside ``game/``, so the
host turns these into messages from the phrase book (``RuleViolation``) or into a journal error
that names the file and the line (``BadRecord``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class GameError(Exception):
    """Root of the exceptions the rules raise."""


class RuleViolation(GameError):
    """An input breaks a rule of the game. The state is unchanged.

    ``code`` is a key of the ``errors`` section of the phrase book; ``params`` fill its text.
    """

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code, params)
        self.code = code
        self.params: Mapping[str, Any] = params

    def __str__(self) -> str:
        return f"{self.code} {dict(self.params)}"


class BadRecord(GameError):
    """A recorded input or rules record (from a journal) is not one the game knows; the text
    says what is wrong with it."""
