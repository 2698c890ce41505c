"""The outbox: finished games waiting for the club database, one file each.

A game is written here first (a whole file, fsync'ed, then renamed into place), and only
sending it to the database takes it out: the file is deleted after the database has committed
the game. A kill at any moment leaves the game in the database, in the outbox, or both for an
instant (committed, not yet deleted); the next send finds it in the database (its id is the
primary key), writes nothing twice and deletes the file. A write cut short leaves its temporary
file: the next send puts it in place when it is whole and removes it when it is not. A table
without its server keeps playing: its games wait here and go when the server is back, exactly
once.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voicehost.club.db import ClubDatabase, ClubDatabaseError
from voicehost.club.facts import GameFacts
from voicehost.club.files import write_whole
from voicehost.host import storage
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
        data = json.dumps(facts, ensure_ascii=False).encode("utf-8")
        storage.private_folder(self.folder)
        with folder_lock(self.folder, wait=True):
            write_whole(target, data)
        return target

    def recover(self) -> list[str]:
        """Finish the writes a kill cut short: a game whole in its temporary file is put in
        place, a part of one is removed. Returns the ids put in place. Passed over while
        another write is going on (the next send looks again)."""
        if not self._leftovers():
            return []
        recovered: list[str] = []
        with folder_lock(self.folder, wait=False) as locked:
            if not locked:
                return []
            for temporary in self._leftovers():  # looked at again: a write may have ended
                target = temporary.with_name(temporary.name[1 : -len(".tmp")])
                try:
                    if not target.exists() and self.load(temporary, quiet=True) is not None:
                        _sync_file(temporary)
                        os.replace(temporary, target)
                        recovered.append(target.stem)
                    else:
                        temporary.unlink()
                except OSError as exc:
                    log.warning("outbox: %s: %s", temporary, exc, extra=LOG_ONLY)
            storage.sync_folder(self.folder)
        if recovered:
            log.info("outbox: %d game(s) recovered from cut writes", len(recovered), extra=LOG_ONLY)
        return recovered

    def _leftovers(self) -> list[Path]:
        try:
            return sorted(self.folder.glob(".*.json.tmp"))
        except OSError:
            return []

    def waiting(self) -> list[Path]:
        """The games in the outbox, oldest first."""
        try:
            found = [(path.stat().st_mtime, path) for path in self.folder.glob("*.json")]
        except OSError:
            return []
        return [path for _, path in sorted(found)]

    def load(self, path: Path, *, quiet: bool = False) -> GameFacts | None:
        """The game of an outbox file; None when it is not one whole (``quiet``: not logged)."""
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            if not quiet:
                log.warning("outbox: %s cannot be read (%s); it is kept", path, exc, extra=LOG_ONLY)
            return None
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            return None
        if quiet and f"{data['id']}.json" != path.name.removeprefix(".").removesuffix(".tmp"):
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


@contextlib.contextmanager
def folder_lock(folder: Path, *, wait: bool) -> Iterator[bool]:
    """Hold the outbox's lock (an flock on the folder, across processes and threads): writes
    take it waiting, the clean-up of cut writes only when it is free. Yields whether held."""
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(descriptor)  # closing releases the lock


def _sync_file(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def why(book: PhraseBook, sent: Sent) -> str:
    """Why games wait in the outbox, in the book's language (the driver's own words inside)."""
    return book.explain(sent.error) if sent.error is not None else sent.problem
