"""The outbox: finished games waiting for the club database, one file each.

A game is written here first (a whole file, fsync'ed, then renamed into place), and only
sending it to the database takes it out: the file is deleted after the database has committed
the game. A kill at any moment leaves the game in the database, in the outbox, or both for an
instant (committed, not yet deleted); the next send finds it in the database (its id is the
primary key), writes nothing twice and deletes the file. A table without its server keeps
playing: its games wait here and go when the server is back, exactly once.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voicehost.club.db import ClubDatabase, ClubDatabaseError
from voicehost.club.facts import GameFacts
from voicehost.club.files import write_whole
from voicehost.notices import LOG_ONLY
from voicehost.phrases import PhraseBook

log = logging.getLogger(__name__)


@dataclass
class Sent:
    """What one send did."""

    recorded: list[str] = field(default_factory=list)  # new in the database
    already: list[str] = field(default_factory=list)  # the database had them: file removed
    waiting: int = 0  # still in the outbox
    problem: str = ""  # why they wait, in words (English, for the log)
    error: ClubDatabaseError | None = None  # the same, for the book to say (PhraseBook.explain)


class Outbox:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path_of(self, identity: str) -> Path:
        return self.folder / f"{identity}.json"

    def put(self, facts: GameFacts) -> Path:
        """Keep a game until the database has it (atomic: whole or not at all)."""
        target = self.path_of(facts["id"])
        write_whole(target, json.dumps(facts, ensure_ascii=False).encode("utf-8"))
        return target

    def waiting(self) -> list[Path]:
        """The games in the outbox, oldest first."""
        try:
            found = [(path.stat().st_mtime, path) for path in self.folder.glob("*.json")]
        except OSError:
            return []
        return [path for _, path in sorted(found)]

    def load(self, path: Path) -> GameFacts | None:
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            log.warning("outbox: %s cannot be read (%s); it is kept", path, exc, extra=LOG_ONLY)
            return None
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            return None
        game: GameFacts = data  # type: ignore[assignment]  # written by put() from GameFacts
        return game

    def send(self, database: ClubDatabase) -> Sent:
        """Send every waiting game; stop at the first the database cannot take."""
        sent = Sent()
        for path in self.waiting():
            facts = self.load(path)
            if facts is None:
                continue
            try:
                new = database.record(facts)
            except ClubDatabaseError as exc:
                sent.problem, sent.error = str(exc), exc
                break
            (sent.recorded if new else sent.already).append(facts["id"])
            # No folder sync: a file that comes back after a power cut is sent again, and the
            # database, which has the game, writes nothing.
            path.unlink(missing_ok=True)
        sent.waiting = len(self.waiting())
        return sent


def why(book: PhraseBook, sent: Sent) -> str:
    """Why games wait in the outbox, in the book's language (the driver's own words inside)."""
    return book.explain(sent.error) if sent.error is not None else sent.problem
