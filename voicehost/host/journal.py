"""The crash-safe journal: one JSON object per line, written before its effects happen.

What a person entered (a key, a typed line, a heard word) is written and fsync'ed before any of
its effects: once the table has heard the answer, the input survives a power cut. The host's
own timer events (a warning, time up) are written before their effects too (a kill -9 at any
instant finds the journal a prefix of the game), but fsync'ed by a writer thread, in groups: a
timed cue never waits for the disk (13 ms at p99 on an SD card, 95 ms at worst), and a power
cut can lose at most the timer events since the last fsync, which the resumed game fires again.

The first line is a header with the game's rules (so a resumed game keeps the rules it started
with, whatever config.yaml says now). Every accepted input follows as ``{"input": {...}}``, and
an undo as ``{"undo": true}``. The file is owner-only (0600, in a 0700 folder): it holds the
roles. A host holds an exclusive ``flock`` on its journal, so a second host of the same game is
refused instead of writing a second story into it.

When the disk is full (or read-only, or gone), the game goes on: the records that could not be
written wait in memory, in order, and are written as soon as the disk takes them again. The
host hears about each change of that state once, through ``on_saving``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import logging
import os
import stat
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicehost.config import Settings
from voicehost.errors import VoicehostError
from voicehost.game.errors import BadRecord
from voicehost.game.inputs import Input, drop_last_undoable, from_json, to_json
from voicehost.game.rules import GameRules
from voicehost.host import storage
from voicehost.notices import LOG_ONLY, notice

FORMAT = "voicehost-journal/1"
FORMAT_FAMILY = "voicehost-journal/"
#: While records wait in memory, the periodic ``retry`` tries the disk again this often (s).
RETRY_SECONDS = 2.0

log = logging.getLogger(__name__)

#: ``on_saving(saving, reason)``: False when records start waiting in memory (``reason`` says
#: why), True when they are all on disk again.
SavingHook = Callable[[bool, str], None]
#: ``on_moved(old, new)``: the journal file vanished under the host (its folder deleted, or the
#: file replaced by a folder) and the whole game so far was written to ``new``.
MovedHook = Callable[[Path, Path], None]
#: Words for a rule violation's code and params (the phrase book's ``error``).
Describe = Callable[[str, Mapping[str, Any]], str]


class JournalError(VoicehostError):
    """A journal cannot be read or written; the text names the file and the line."""


class JournalBusy(JournalError):
    """Another voicehost is hosting this journal's game right now."""


@dataclass(frozen=True)
class JournalEntry:
    """One line after the header: an input, or an undo of the last undoable input."""

    event: Input | None
    source: str = "keyboard"
    undo: bool = False
    line: int = 0  # the journal's line number (1 is the header); 0 when not from a file


def settings_from_record(base: Settings, record: Any, path: Path | None = None) -> Settings:
    """``base`` with the game-deciding parts replaced by those recorded in a journal header."""
    where = f"{path or 'the journal'}, line 1 (the header)"
    try:
        game = GameRules.from_record(record)
    except BadRecord as exc:
        raise JournalError(f"{where}: {exc}") from exc
    language = record.get("language", base.language)
    if language not in ("ru", "en"):
        raise JournalError(f"{where}: language {language!r}; it must be ru or en")
    return dataclasses.replace(base.with_game(game), language=language)


def _lock(descriptor: int, path: Path) -> None:
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        os.close(descriptor)
        raise JournalBusy(
            f"the game in {path} is being hosted by another voicehost right now (is the "
            "service running? `sudo systemctl stop voicehost`); stop that one first",
            phrase="journal_busy",
            path=path,
        ) from exc


class Journal:
    """Appends entries to a journal file, each flushed to disk before the caller goes on."""

    def __init__(
        self,
        path: Path,
        descriptor: int | None,
        *,
        on_saving: SavingHook | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_moved: MovedHook | None = None,
    ) -> None:
        self.path = path
        self._descriptor = descriptor
        self._on_saving = on_saving
        self._on_moved = on_moved
        self._clock = clock
        self._pending: list[bytes] = []  # whole lines not yet on disk, oldest first
        self._written_of_first = 0  # bytes of _pending[0] already written (a short write)
        self._unsynced = False  # written but fsync failed: sync before anything else
        self._saving = True
        self._next_try = 0.0
        self.problem = ""  # why records wait in memory, in words; "" when all are on disk
        self._syncer: _Syncer | None = None  # fsyncs deferred lines (timer events), in groups

    @property
    def saving(self) -> bool:
        """Whether every accepted record is on disk."""
        return self._saving

    @property
    def unsaved(self) -> int:
        """How many records wait in memory."""
        return len(self._pending)

    @classmethod
    def create(
        cls,
        path: Path,
        settings: Settings,
        *,
        on_saving: SavingHook | None = None,
        extra: Mapping[str, Any] | None = None,
        on_moved: MovedHook | None = None,
    ) -> Journal:
        """Start a new journal (owner-only, locked) with the game's header.

        A journal that cannot be created now (a full or read-only disk, no folder) is no reason
        to stop the game: the header waits in memory with the inputs, no empty file is left
        behind, and ``on_saving(False, ...)`` says so. ``extra`` is the host's own data about the
        game (the players' ``names``, the club's ``evening`` and ``table``): replay ignores it.
        """
        header: dict[str, Any] = {
            "format": FORMAT,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "game": {**settings.game.to_record(), "language": settings.language},
        }
        header.update({key: value for key, value in (extra or {}).items() if value})
        journal = cls(path, None, on_saving=on_saving, on_moved=on_moved)
        if path.exists():
            raise JournalError(
                f"journal {path} already exists; use `voicehost resume`",
                phrase="journal_exists",
                path=path,
            )
        journal._pending.append(_line(header))
        journal._flush()
        return journal

    @classmethod
    def reopen(
        cls,
        path: Path,
        *,
        on_saving: SavingHook | None = None,
        on_moved: MovedHook | None = None,
    ) -> Journal:
        """Continue appending to an existing journal (after a resume), holding its lock.

        A line torn by a power cut (or garbage after the last whole line) is cut off first and
        the cut is fsync'ed, so the next entry starts on a line of its own and every later
        resume reads the journal cleanly. A journal readable by others is made owner-only.
        """
        try:
            descriptor = os.open(path, os.O_RDWR)
        except OSError as exc:
            raise JournalError(f"cannot open journal {path}: {storage.reason(exc)}") from exc
        _lock(descriptor, path)
        try:
            mode = stat.S_IMODE(os.fstat(descriptor).st_mode)
            if mode & 0o077:
                os.fchmod(descriptor, storage.FILE_MODE)
                log.warning(
                    "journal %s could be read by others (mode %o): it is owner-only (600) now",
                    path,
                    mode,
                    extra=notice("journal_was_readable", path=path),
                )
            _drop_torn_tail(descriptor)
            os.lseek(descriptor, 0, os.SEEK_END)
        except OSError as exc:
            os.close(descriptor)
            raise JournalError(f"cannot repair journal {path}: {storage.reason(exc)}") from exc
        return cls(path, descriptor, on_saving=on_saving, on_moved=on_moved)

    def append(self, event: Input, source: str, *, sync: bool = True) -> None:
        """Write an accepted input; with ``sync`` (a person's input) fsync it before returning,
        without (the host's own timer event) leave the fsync to the writer thread."""
        record = {"input": to_json(event), "source": source, "at": round(time.time(), 3)}
        self._write(record, sync=sync)

    def append_undo(self, source: str) -> None:
        self._write({"undo": True, "source": source, "at": round(time.time(), 3)})

    def append_names(
        self, names: Mapping[str, str], source: str, *, renamed: Mapping[str, str] | None = None
    ) -> None:
        """Names given during the game (seat key -> name, "" when taken away); ``renamed``: the
        seats whose player was renamed (seat key -> the name before), the same person."""
        record: dict[str, Any] = {"names": dict(names), "source": source}
        if renamed:
            record["renamed"] = dict(renamed)
        self._write({**record, "at": round(time.time(), 3)})

    def append_voters(self, voters: Mapping[str, Any]) -> None:
        """Who voted against whom, for the count just written (host data: replay skips it)."""
        self._write({"voters": dict(voters), "at": round(time.time(), 3)})

    def append_note(self, note: dict[str, Any]) -> None:
        """A line that replay ignores (e.g. 'resumed at')."""
        self._write({"note": note, "at": round(time.time(), 3)})

    def retry(self) -> bool:
        """Called now and then by the host: try to write what waits in memory (at most every
        ``RETRY_SECONDS``). True when everything is on disk."""
        if self._saving:
            return True
        if self._clock() < self._next_try:
            return False
        self._flush()
        return self._saving

    def _write(self, record: dict[str, Any], *, sync: bool = True) -> None:
        self._pending.append(_line(record))
        self._flush(sync=sync)

    def _flush(self, *, sync: bool = True) -> None:
        """Write every waiting line, in order, and fsync them (``sync``) or have the writer
        thread fsync them soon; on a disk error keep the rest."""
        sync = sync or not self._saving  # a disk in trouble is tried (and told) here, in order
        try:
            if self._descriptor is None:
                self._descriptor = self._open_new()
            while self._pending:
                line = self._pending[0]
                while self._written_of_first < len(line):
                    self._written_of_first += os.write(
                        self._descriptor, line[self._written_of_first :]
                    )
                self._pending.pop(0)
                self._written_of_first = 0
                self._unsynced = True
            if sync:
                os.fsync(self._descriptor)
                self._unsynced = False
            else:
                self._sync_soon(self._descriptor)
            if not self._still_there():
                self._move_to_new_file()
        except OSError as exc:
            self._failed(exc)
            return
        if not self._saving:
            self._saving = True
            self.problem = ""
            if self._on_saving is not None:
                self._on_saving(True, "")
            else:
                log.warning(
                    "journal %s: saving again, every input is on disk", self.path, extra=LOG_ONLY
                )

    def _open_new(self) -> int:
        """Create the file (owner-only, locked); a failed first write leaves no empty file."""
        storage.private_folder(self.path.parent)
        try:
            # read-write: a journal whose name vanishes is copied from this descriptor
            descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, storage.FILE_MODE)
        except FileExistsError as exc:
            raise JournalError(
                f"journal {self.path} already exists; use `voicehost resume`",
                phrase="journal_exists",
                path=self.path,
            ) from exc
        try:
            _lock(descriptor, self.path)
            os.fchmod(descriptor, storage.FILE_MODE)
            header = self._pending[0]
            written = 0
            while written < len(header):
                written += os.write(descriptor, header[written:])
            os.fsync(descriptor)
        except OSError:
            os.close(descriptor)
            self.path.unlink(missing_ok=True)
            raise
        storage.sync_folder(self.path.parent)
        self._pending.pop(0)
        return descriptor

    def _still_there(self) -> bool:
        """Whether the journal's name still leads to the file being written: a deleted folder
        or a folder put in the file's place leaves the host writing to a file nobody can find,
        which a crash would lose."""
        assert self._descriptor is not None
        try:
            named = os.stat(self.path)
        except OSError:
            return False
        mine = os.fstat(self._descriptor)
        return mine.st_nlink > 0 and (named.st_dev, named.st_ino) == (mine.st_dev, mine.st_ino)

    def _move_to_new_file(self) -> None:
        """Write the whole game so far (the lost file is still open: it holds every line) to a
        new journal beside where the old one was, and go on writing there."""
        assert self._descriptor is not None
        old_path, old = self.path, self._descriptor
        size = os.fstat(old).st_size
        data = os.pread(old, size, 0)
        storage.private_folder(old_path.parent)
        new_path = _free_name(old_path)
        descriptor = os.open(new_path, os.O_RDWR | os.O_CREAT | os.O_EXCL, storage.FILE_MODE)
        try:
            _lock(descriptor, new_path)
            written = 0
            while written < len(data):
                written += os.write(descriptor, data[written:])
            os.fsync(descriptor)
        except OSError:
            os.close(descriptor)
            new_path.unlink(missing_ok=True)
            raise
        storage.sync_folder(new_path.parent)
        if self._syncer is not None:  # it fsyncs the old file: the next deferred line starts one
            self._syncer.stop()
            self._syncer = None
        os.close(old)
        self._descriptor, self.path = descriptor, new_path
        log.warning(
            "journal %s vanished (its folder was deleted or the file replaced): the whole game "
            "so far is written to %s",
            old_path,
            new_path,
            extra=LOG_ONLY,  # the host says it on the screen, by day
        )
        if self._on_moved is not None:
            self._on_moved(old_path, new_path)

    def _failed(self, exc: OSError) -> None:
        self._next_try = self._clock() + RETRY_SECONDS
        if not self._saving:
            return
        self._saving = False
        self.problem = storage.reason(exc)
        if self._on_saving is not None:
            self._on_saving(False, self.problem)  # the host says it when it tells no secret
            return
        log.warning(
            "journal %s cannot be written (%s): inputs wait in memory until it can",
            self.path,
            self.problem,
            extra=LOG_ONLY,  # no host to tell the table (a host is told through on_saving)
        )

    def _sync_soon(self, descriptor: int) -> None:
        if self._syncer is None:
            self._syncer = _Syncer(descriptor, self.path, self)
        self._syncer.request()

    def close(self) -> None:
        """Write what can be written and release the lock; what cannot is said in the log."""
        if self._syncer is not None:
            self._syncer.stop()
            self._syncer = None
        if self._pending or self._unsynced:
            self._flush()
        if self._pending:
            log.error(
                "journal %s: %d input(s) could not be saved (%s)",
                self.path,
                len(self._pending),
                self.problem,
                extra=LOG_ONLY,
            )
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None


class _Syncer:
    """The writer thread: fsyncs the journal soon after a line written without one.

    Requests that come while it syncs are served by one more fsync (a group commit). It never
    touches the host: a failed fsync is left for the next person's input, whose own fsync on
    the loop's thread meets the same disk error and says so.

    The thread ends with its journal: at ``close()``, or when the journal is dropped without
    one (a finished script's host, a test), so that no idle thread is left waiting for ever.
    """

    def __init__(self, descriptor: int, path: Path, journal: Journal) -> None:
        self._descriptor = descriptor
        self._wanted = threading.Event()
        self._stopping = False
        self._thread = threading.Thread(
            target=self._run, name=f"journal-sync {path.name}", daemon=True
        )
        # Holds the syncer, not the journal: the journal can still be collected.
        self._ends_with_journal = weakref.finalize(journal, self._release)
        self._thread.start()

    def request(self) -> None:
        self._wanted.set()

    def stop(self) -> None:
        """Finish the fsync in progress (the journal closes the file after this)."""
        self._ends_with_journal.detach()
        self._release()
        self._thread.join()

    def _release(self) -> None:
        """Let the thread end after the fsync in progress (no join: the collector may call
        this on any thread)."""
        self._stopping = True
        self._wanted.set()

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            if self._stopping:
                return
            # A failure says nothing here, not even to the log (a line at night would tell
            # when something happened): the next person's input fsyncs on the loop's thread,
            # meets the same disk error, and the host says it when it may.
            with contextlib.suppress(OSError):
                os.fsync(self._descriptor)


def _free_name(path: Path) -> Path:
    """``path`` if nothing is there now, else ``<stem>-saved-<n><suffix>`` beside it."""
    if not os.path.lexists(path):
        return path
    number = 1
    while os.path.lexists(candidate := path.with_name(f"{path.stem}-saved-{number}{path.suffix}")):
        number += 1
    return candidate


def _line(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")


def read(path: Path) -> tuple[dict[str, Any], list[JournalEntry]]:
    """The header and the entries of a journal, each checked: a record this voicehost cannot
    use raises JournalError naming the file, the line and what is wrong. A torn last line (a
    power cut) is ignored."""
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise JournalError(
            f"no journal at {path}; `voicehost resume` with no file finds the newest one",
            phrase="journal_missing",
            path=path,
        ) from exc
    except OSError as exc:
        raise JournalError(f"cannot read journal {path}: {storage.reason(exc)}") from exc
    numbered = list(_parse(path, data))
    if not numbered:
        raise JournalError(f"{path} is empty: it is not a voicehost journal (no header line)")
    first, header = numbered[0]
    fmt = header.get("format")
    if first != 1 or not isinstance(fmt, str) or not fmt.startswith(FORMAT_FAMILY):
        raise JournalError(f"{path} is not a voicehost journal (line 1 is no journal header)")
    if fmt != FORMAT:
        raise JournalError(
            f"{path}, line 1: the journal is in format {fmt!r}, written by a newer voicehost; "
            "update voicehost to resume it"
        )
    if "game" not in header:
        raise JournalError(f"{path}, line 1 (the header): the game's rules are missing")
    try:
        GameRules.from_record(header["game"])
    except BadRecord as exc:
        raise JournalError(f"{path}, line 1 (the header): {exc}") from exc
    entries: list[JournalEntry] = []
    for number, record in numbered[1:]:
        source = record.get("source", "keyboard")
        if not isinstance(source, str):
            raise JournalError(f"{path}, line {number}: source is {source!r}; it must be text")
        if "undo" in record:
            if record["undo"] is not True:
                raise JournalError(f"{path}, line {number}: undo is {record['undo']!r}")
            entries.append(JournalEntry(None, source, undo=True, line=number))
        elif "input" in record:
            try:
                event = from_json(record["input"])
            except BadRecord as exc:
                raise JournalError(f"{path}, line {number}: {exc}") from exc
            entries.append(JournalEntry(event, source, line=number))
        elif not {"note", "names", "voters"} & record.keys():
            raise JournalError(
                f"{path}, line {number}: not a record this voicehost knows (keys: "
                f"{', '.join(sorted(map(str, record))) or 'none'}); a newer voicehost's journal?"
            )
    return header, entries


def names_in(path: Path) -> dict[str, str]:
    """The players' names a journal holds (seat key -> name, as last given; the header's first,
    then each ``names`` line). Unreadable names are passed over: they are not the game."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    names: dict[str, str] = {}
    try:
        for _, record in _parse(path, data):
            given = record.get("names")
            if isinstance(given, dict):
                for seat, name in given.items():
                    if isinstance(name, str) and name:
                        names[str(seat)] = name
                    else:
                        names.pop(str(seat), None)
    except JournalError:
        pass  # a damaged line: the names up to it stand
    return names


def renames_in(path: Path) -> dict[str, list[str]]:
    """The earlier names of each renamed seat's player, in the order given (seat key -> names):
    the same person under another spelling (``Journal.append_names``'s ``renamed``)."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    earlier: dict[str, list[str]] = {}
    try:
        for _, record in _parse(path, data):
            renamed = record.get("renamed")
            if isinstance(renamed, dict):
                for seat, name in renamed.items():
                    if isinstance(name, str) and name:
                        earlier.setdefault(str(seat), []).append(name)
    except JournalError:
        pass  # a damaged line: the renames up to it stand
    return earlier


def _drop_torn_tail(descriptor: int) -> None:
    """End the file on a whole record: garbage after the last good line is cut off and a whole
    last record gets its newline, both fsync'ed.

    ``read`` keeps a last record that parses (it was written whole, only its newline was lost)
    and ignores a last line that does not; this makes the file say the same, so what is
    appended next starts on a line of its own.
    """
    size = os.lseek(descriptor, 0, os.SEEK_END)
    if size == 0:
        return
    os.lseek(descriptor, 0, os.SEEK_SET)
    data = b""
    while len(data) < size:
        chunk = os.read(descriptor, size - len(data))
        if not chunk:
            break
        data += chunk
    body = data.rstrip(b"\n")
    keep = body.rfind(b"\n") + 1
    last = body[keep:]
    if _decodes(last):
        if not data.endswith(b"\n"):
            os.lseek(descriptor, 0, os.SEEK_END)
            os.write(descriptor, b"\n")
            os.fsync(descriptor)
        return
    os.ftruncate(descriptor, keep)
    os.fsync(descriptor)


def _decodes(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line.decode("utf-8")), dict)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False


def _parse(path: Path, data: bytes) -> Iterator[tuple[int, dict[str, Any]]]:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    last = len(lines)
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
            record = json.loads(text)
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            if number == last:
                return  # the write was cut by a power loss: it never took effect
            what = "is not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else "is damaged"
            raise JournalError(
                f"{path}, line {number} {what}; the journal was changed by something other "
                "than voicehost"
            ) from exc
        if not isinstance(record, dict):
            if number == last:
                return
            raise JournalError(f"{path}, line {number} is not a journal record")
        yield number, record


def newest_unfinished(directory: Path, *, played_only: bool = False) -> Path | None:
    """The most recent journal in ``directory`` whose game has not ended, if any.

    A game somebody played (``played``) comes before an empty one that was started and left at
    once, however new: a restart that opened a new game never hides the real one. With
    ``played_only`` an empty game is never returned.
    """
    return _newest(unfinished(directory), played_only=played_only)


def in_use(path: Path) -> bool:
    """Whether another voicehost is hosting the game of ``path`` right now (it holds the lock)."""
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(descriptor)  # closing releases a lock taken here
    return False


def newest_game(directory: Path) -> Path | None:
    """The most recent journal in ``directory``, finished or not (a played one first)."""
    return _newest(journals(directory), played_only=False)


def _newest(candidates: list[Path], *, played_only: bool) -> Path | None:
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


def journals(directory: Path) -> list[Path]:
    """The journals in ``directory``, newest first."""
    try:
        if not directory.is_dir():
            return []
        candidates = []
        for path in directory.glob("*.jsonl"):
            try:
                candidates.append((path.stat().st_mtime, path))
            except OSError:
                continue  # gone meanwhile
    except OSError:
        return []
    candidates.sort(reverse=True)
    return [path for _, path in candidates]


def unfinished(directory: Path) -> list[Path]:
    """The journals in ``directory`` whose game has not ended, newest first, played ones
    before empty ones."""
    found = [path for path in journals(directory) if not path.with_suffix(".finished").exists()]
    return sorted(found, key=lambda path: played(path) == 0)


def set_aside(path: Path, reason: str) -> str:
    """Rename a journal that cannot be resumed (it is kept, never deleted) so the boot service
    passes over it; returns the message that says so (for the screen, the log, the voice)."""
    target = path.with_name(f"{path.name}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        os.replace(path, target)
        storage.sync_folder(path.parent)
    except OSError as exc:
        return (
            f"The journal {path} cannot be resumed ({reason}) and cannot be set aside "
            f"({storage.reason(exc)}); move it away by hand."
        )
    return (
        f"The journal {path} cannot be resumed ({reason}); it was set aside as {target.name} "
        "(kept for the club's records), and the host goes on without it."
    )


def choose_resumable(
    directory: Path, check: Callable[[Path], object]
) -> tuple[Path | None, list[str]]:
    """For the boot service: the newest unfinished journal that can be resumed, setting aside
    (with a message each) those that cannot; ``None`` when a new game should start.

    ``check(path)`` replays a journal and raises JournalError when it cannot be resumed. A
    journal another host holds right now raises JournalBusy: a game is being hosted on this
    machine, and a second one must not start beside it.
    """
    messages: list[str] = []
    good: list[Path] = []
    for path in journals(directory):  # newest first: every bad one is set aside on the way
        if path.with_suffix(".finished").exists():
            continue
        try:
            check(path)
            descriptor = os.open(path, os.O_RDONLY)
            _lock(descriptor, path)  # closes it and raises JournalBusy when another host holds it
            os.close(descriptor)
        except JournalBusy:
            raise
        except (JournalError, OSError) as exc:
            reason = str(exc).removeprefix(f"{path}, ").removeprefix(f"{path} ")
            message = set_aside(path, reason)
            log.warning("%s", message, extra=LOG_ONLY)  # the caller shows and says it
            messages.append(message)
            continue
        good.append(path)
    # A game somebody played comes before a newer one that was started and left empty.
    return _newest(good, played_only=False), messages


@contextlib.contextmanager
def held(path: Path) -> Iterator[None]:
    """Hold a journal's lock meanwhile, so no host takes its game; raises JournalBusy when
    another voicehost hosts it, OSError when it cannot be opened."""
    descriptor = os.open(path, os.O_RDONLY)
    _lock(descriptor, path)  # closes it and raises JournalBusy when another host holds it
    try:
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def mark_finished(path: Path) -> None:
    """Leave an owner-only marker beside a journal whose game has ended, fsync'ed with its
    folder (a power cut right after the last input must not make the next boot resume it);
    a marker already there is kept."""
    if path.with_suffix(".finished").exists():
        return
    try:
        storage.write_private(path.with_suffix(".finished"), b"")
    except OSError as exc:
        log.warning(
            "cannot mark %s finished (%s): the service may offer to resume it",
            path,
            storage.reason(exc),
            extra=notice("cannot_mark_finished", path=path, reason=storage.reason(exc)),
        )


def effective_entries(entries: list[JournalEntry]) -> list[JournalEntry]:
    """The inputs that stand after applying every undo: the game itself."""
    kept: list[JournalEntry] = []
    for entry in entries:
        if entry.undo:
            drop_last_undoable(kept, lambda item: item.event)
        else:
            kept.append(entry)
    return kept


__all__ = [
    "FORMAT",
    "Journal",
    "JournalBusy",
    "JournalEntry",
    "JournalError",
    "choose_resumable",
    "effective_entries",
    "held",
    "mark_finished",
    "newest_unfinished",
    "read",
    "set_aside",
    "settings_from_record",
    "unfinished",
]
