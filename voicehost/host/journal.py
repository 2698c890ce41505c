"""The crash-safe journal: one JSON object per line, flushed and fsync'ed before effects happen.

The first line is a header with the game's rules (so a resumed game keeps the rules it started
with, whatever config.yaml says now). Every accepted input follows as ``{"input": {...}}``, and
an undo as ``{"undo": true}``. The file is created with mode 0600: it holds the roles.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicehost.config import Settings
from voicehost.errors import VoicehostError
from voicehost.game.errors import BadRecord
from voicehost.game.inputs import Input, drop_last_undoable, from_json, to_json
from voicehost.game.rules import GameRules

FORMAT = "voicehost-journal/1"


class JournalError(VoicehostError):
    """A journal cannot be read or written; the text names the file and the line."""


@dataclass(frozen=True)
class JournalEntry:
    """One line after the header: an input, or an undo of the last undoable input."""

    event: Input | None
    source: str = "keyboard"
    undo: bool = False


def settings_from_record(base: Settings, record: Any, path: Path | None = None) -> Settings:
    """``base`` with the game-deciding parts replaced by those recorded in a journal header."""
    try:
        game = GameRules.from_record(record)
    except BadRecord as exc:
        raise JournalError(f"{path or 'the journal'}, line 1 (the header): {exc}") from exc
    language = record.get("language", base.language)
    if language not in ("ru", "en"):
        raise JournalError(f"{path or 'the journal'}, line 1 (the header): language {language!r}")
    return dataclasses.replace(base.with_game(game), language=language)


class Journal:
    """Appends entries to a journal file, each flushed to disk before the caller goes on."""

    def __init__(self, path: Path, handle: Any) -> None:
        self.path = path
        self._handle = handle

    @classmethod
    def create(cls, path: Path, settings: Settings) -> Journal:
        """Start a new journal (owner-only permissions) with the game's header."""
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError as exc:
            raise JournalError(f"journal {path} already exists; use `voicehost resume`") from exc
        except OSError as exc:
            raise JournalError(f"cannot create journal {path}: {exc.strerror}") from exc
        journal = cls(path, os.fdopen(descriptor, "a", encoding="utf-8"))
        header = {
            "format": FORMAT,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "game": {**settings.game.to_record(), "language": settings.language},
        }
        journal._write(header)
        return journal

    @classmethod
    def reopen(cls, path: Path) -> Journal:
        """Continue appending to an existing journal (after a resume).

        A line torn by a power cut is cut off first, so the next entry starts on a line of its
        own and a later resume reads the journal cleanly.
        """
        try:
            _drop_torn_tail(path)
            handle = open(path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the game
        except OSError as exc:
            raise JournalError(f"cannot open journal {path}: {exc.strerror}") from exc
        return cls(path, handle)

    def append(self, event: Input, source: str) -> None:
        self._write({"input": to_json(event), "source": source, "at": round(time.time(), 3)})

    def append_undo(self, source: str) -> None:
        self._write({"undo": True, "source": source, "at": round(time.time(), 3)})

    def append_note(self, note: dict[str, Any]) -> None:
        """A line that replay ignores (e.g. 'resumed at')."""
        self._write({"note": note, "at": round(time.time(), 3)})

    def _write(self, record: dict[str, Any]) -> None:
        self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()


def read(path: Path) -> tuple[dict[str, Any], list[JournalEntry]]:
    """The header and the entries of a journal. A torn last line (power cut) is ignored."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as exc:
        raise JournalError(f"no journal at {path}; `voicehost resume` with no file finds "
                           "the newest one") from exc  # fmt: skip
    except OSError as exc:
        raise JournalError(f"cannot read journal {path}: {exc.strerror}") from exc
    records = list(_parse(path, lines))
    if not records or records[0].get("format") != FORMAT:
        raise JournalError(f"{path} is not a voicehost journal (no header line)")
    header = records[0]
    entries: list[JournalEntry] = []
    for record in records[1:]:
        if record.get("undo"):
            entries.append(JournalEntry(None, str(record.get("source", "keyboard")), undo=True))
        elif "input" in record:
            entries.append(JournalEntry(from_json(record["input"]), str(record.get("source", ""))))
    return header, entries


def _drop_torn_tail(path: Path) -> None:
    """End the file on a whole line: a torn tail is cut off, a whole record gets its newline.

    ``read`` keeps a last record that parses (it was written whole, only its newline was lost)
    and drops one that does not; this makes the file say the same.
    """
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return
    keep = data.rfind(b"\n") + 1
    try:
        json.loads(data[keep:])
        whole = True
    except ValueError:
        whole = False
    with open(path, "r+b") as handle:
        if whole:
            handle.seek(0, os.SEEK_END)
            handle.write(b"\n")
        else:
            handle.truncate(keep)
        handle.flush()
        os.fsync(handle.fileno())


def _parse(path: Path, lines: list[str]) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == len(lines):
                return  # the write was cut by a power loss: it never took effect
            raise JournalError(f"{path} line {number} is damaged: {exc.msg}") from exc
        if not isinstance(record, dict):
            raise JournalError(f"{path} line {number} is not a journal record")
        yield record


def newest_unfinished(directory: Path, *, played_only: bool = False) -> Path | None:
    """The most recent journal in ``directory`` whose game has not ended, if any.

    A game somebody played (``played``) comes before an empty one that was started and left at
    once, however new: a restart that opened a new game never hides the real one. With
    ``played_only`` an empty game is never returned.
    """
    return _newest(directory, finished=False, played_only=played_only)


def newest_game(directory: Path) -> Path | None:
    """The most recent journal in ``directory``, finished or not (a played one first)."""
    return _newest(directory, finished=True, played_only=False)


def _newest(directory: Path, *, finished: bool, played_only: bool) -> Path | None:
    if not directory.is_dir():
        return None
    candidates = sorted(directory.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
    if not finished:
        candidates = [p for p in candidates if not p.with_suffix(".finished").exists()]
    for path in candidates:
        if played(path):
            return path
    return None if played_only or not candidates else candidates[0]


def played(path: Path) -> int:
    """How many entries a person made in the journal's game (timer events not counted); 0 for
    an empty or unreadable journal."""
    try:
        _, entries = read(path)
    except (VoicehostError, ValueError, KeyError, TypeError):
        return 0  # not a journal this voicehost can read: nothing to resume in it
    return sum(1 for entry in effective_entries(entries) if entry.source != "timer")


def mark_finished(path: Path) -> None:
    """Leave a marker beside a journal whose game has ended."""
    path.with_suffix(".finished").touch()


def effective_entries(entries: list[JournalEntry]) -> list[JournalEntry]:
    """The inputs that stand after applying every undo: the game itself."""
    kept: list[JournalEntry] = []
    for entry in entries:
        if entry.undo:
            drop_last_undoable(kept, lambda item: item.event)
        else:
            kept.append(entry)
    return kept
