"""Where the club's data lives: the evening, the outbox and the SQLite season.

The club is this table's, not a config file's: every config file that names no
``club.data_dir`` of its own keeps the club in one folder, ``club/`` beside voicehost's own
config.yaml, so a host with a config file per kind of game (a city night, a FIIM game) plays
one evening and one season. A config file that names a folder keeps a separate club there.
"""

from __future__ import annotations

import os
from pathlib import Path

from voicehost.config import DEFAULT_CONFIG, Settings

HOME = DEFAULT_CONFIG.parent / "club"
"""The club's folder of every config file that names none (``club.data_dir: ""``)."""

#: Moves the shared folder (a test's own, so that no test writes into the club's).
HOME_ENVIRONMENT = "VOICEHOST_CLUB_HOME"


def shared() -> Path:
    """The club's folder shared by every config file that names none."""
    moved = os.environ.get(HOME_ENVIRONMENT)
    return Path(moved) if moved else HOME


def folder(settings: Settings) -> Path:
    """The club's folder of ``settings``: its own ``club.data_dir`` (relative to its file), or
    the one the table's config files share."""
    if settings.club.data_dir:
        return settings.path(settings.club.data_dir)
    return shared()


def separate(settings: Settings) -> bool:
    """Whether ``settings`` keep a club of their own, apart from the table's shared one."""
    return folder(settings).resolve() != shared().resolve()
