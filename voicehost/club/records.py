"""Recording finished games for the club: journal -> outbox -> database.

At a game's end the host records it here: its facts (from the journal, the source of truth, with
the marks and the evening) go to the outbox and the evening, then the journal is marked
recorded, and the outbox is sent to the database: at once for the table's own SQLite file, on
a thread of its own for a server, so a game's end never waits for the network. A game whose
recording was cut short (a kill, a power cut) is found by ``catch_up``: a finished journal
without its ``.recorded`` marker is recorded again (the same id: never twice in the database
nor in the evening).
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicehost.club import evening, facts, home
from voicehost.club.db import ClubDatabase, ClubDatabaseError, open_database, url_for
from voicehost.club.files import write_unsynced
from voicehost.club.outbox import Outbox, Sent
from voicehost.config import Settings
from voicehost.errors import VoicehostError
from voicehost.game.state import GameState
from voicehost.host import scores, storage
from voicehost.host.journal import JournalError, journals, read
from voicehost.notices import LOG_ONLY

log = logging.getLogger(__name__)


def club_settings_of(path: Path) -> Settings:
    """The settings of the config file at ``path`` (the club's commands read nothing else)."""
    from voicehost.config import load

    return load(path)


def table_name(settings: Settings) -> str:
    return settings.club.table or socket.gethostname() or "table"


def data_dir(settings: Settings) -> Path:
    return home.folder(settings)


def outbox_of(settings: Settings) -> Outbox:
    return Outbox(data_dir(settings) / "outbox")


def database_url(settings: Settings) -> str:
    return url_for(settings.club.database, data_dir(settings), Path(settings.base_dir))


_OPEN: dict[str, ClubDatabase] = {}
_OPEN_LOCK = threading.Lock()


def connect(settings: Settings) -> ClubDatabase:
    """The club database, opened and migrated once per process (the next game's record then
    costs only its own transaction); raises ClubDatabaseError."""
    url = database_url(settings)
    with _OPEN_LOCK:
        database = _OPEN.get(url)
        if database is None:
            if not settings.club.database:  # the table's own folder: owner-only, as journals
                try:
                    storage.private_folder(data_dir(settings))
                except OSError as exc:
                    reason = storage.reason(exc)
                    raise ClubDatabaseError(
                        f"the club database {url} cannot be used ({reason})",
                        phrase="club_database_unreachable",
                        url=url,
                        reason=reason,
                    ) from exc
            database = open_database(url, timeout=settings.club.sync_timeout_seconds)
            _OPEN[url] = database
        return database


def forget(settings: Settings) -> None:
    """Close the database this process keeps open (a test's server that goes away)."""
    with _OPEN_LOCK:
        database = _OPEN.pop(database_url(settings), None)
    if database is not None:
        database.close()


def warm_up(settings: Settings) -> None:
    """On a thread at a game's start: load the database code, open and migrate the database,
    record what an earlier run left unrecorded and send the outbox, so that the game's end
    costs only its own record. Whatever fails waits in the outbox."""

    def work() -> None:
        try:
            with _SENDING:
                connect(settings)
            catch_up(settings)
            send_outbox(settings)
        except ClubDatabaseError as exc:  # the server is away: the outbox waits for it
            log.info("club database: %s", exc, extra=LOG_ONLY)
        except Exception:  # noqa: BLE001 - never reaches the table
            log.exception("warming up the club's database failed", extra=LOG_ONLY)

    threading.Thread(target=work, daemon=True, name="club-warm-up").start()


def marks_path(settings: Settings, stem: str) -> Path:
    return settings.path(settings.storage.protocol_dir) / f"{stem}.marks.json"


def load_marks(path: Path) -> facts.Marks:
    """The marks kept beside a protocol (none when there is no file or it is damaged)."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return facts.no_marks()
    marks = facts.no_marks()
    if not isinstance(data, dict):
        return marks
    for key in ("best_player", "best_move"):
        value = data.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            marks[key] = value
    for key in ("extra", "penalty"):
        for item in data.get(key) or []:
            if isinstance(item, dict) and isinstance(item.get("seat"), int):
                points = item.get("points", 0.0)
                marks[key].append(  # type: ignore[literal-required]
                    facts.Mark(
                        seat=item["seat"],
                        points=float(points) if isinstance(points, int | float) else 0.0,
                        comment=str(item.get("comment", ""))[:200],
                    )
                )
    return marks


def save_marks(path: Path, marks: facts.Marks) -> None:
    storage.private_folder(path.parent)
    storage.write_private(path, json.dumps(marks, ensure_ascii=False, indent=2).encode("utf-8"))


def header_data(settings: Settings) -> dict[str, str]:
    """What the club adds to a new game's journal header: this table, the open evening."""
    data = {"table": table_name(settings)}
    open_evening = evening.current(data_dir(settings))
    if open_evening is not None:
        data["evening"] = str(open_evening["id"])
    return data


def facts_of(settings: Settings, journal: Path, state: GameState | None = None) -> facts.GameFacts:
    """The facts of a finished game from its journal and what is kept beside its protocol."""
    header, _ = read(journal)
    protocol_dir = settings.path(settings.storage.protocol_dir)
    marks = load_marks(marks_path(settings, journal.stem))
    extra: list[Any] = []
    game = header.get("game", {})
    if isinstance(game, dict) and game.get("preset") == "fiim":
        from voicehost.phrases import PhraseBook

        book = PhraseBook.load(settings.language)
        try:
            extra = scores.load(
                scores.path_for(protocol_dir, journal.stem),
                int(game.get("players", 10)),
                settings.fiim.score_extra_limit,
                book,
            )
        except scores.ScoreInputError:
            extra = []
    table = header.get("table") if isinstance(header.get("table"), str) else None
    evening_id = header.get("evening") if isinstance(header.get("evening"), str) else None
    return facts.from_journal(
        settings,
        journal,
        table=table or table_name(settings),
        evening=evening_id,
        marks=marks,
        extra_points=extra,
        state=state,
    )


def recorded_marker(journal: Path) -> Path:
    return journal.with_suffix(".recorded")


@dataclass
class Recorded:
    """What recording one game did."""

    facts: facts.GameFacts
    sent: Sent | None  # None: sending goes on in the background (a server)


def record_finished(
    settings: Settings,
    journal: Path,
    *,
    send: bool = True,
    background: bool | None = None,
    state: GameState | None = None,
) -> Recorded:
    """Record a finished game: outbox (fsync'ed), the evening, the journal's marker, then send.

    Every step before the marker is done again, whole, when a kill cuts them short: the marker
    comes last, so ``catch_up`` finds the game unrecorded, puts it in the outbox again (the
    same id: the database writes nothing twice) and adds it to its evening (once: by its id).
    ``background`` (default: for a server, not for SQLite) sends on a daemon thread: whatever
    it does not finish stays in the outbox for the next send.
    """
    game = facts_of(settings, journal, state)
    outbox = outbox_of(settings)
    outbox.put(game)
    evening.add_game(data_dir(settings), game)
    # The marker only spares a second try: lost in a power cut, the game is recorded again.
    write_unsynced(recorded_marker(journal), game["id"].encode())
    if not send:
        return Recorded(game, None)
    if background is None:
        background = bool(settings.club.database)
    if background:
        thread = threading.Thread(
            target=lambda: _send_quietly(settings), daemon=True, name="club-sync"
        )
        thread.start()
        _SENDERS.append(thread)
        return Recorded(game, None)
    return Recorded(game, send_outbox(settings))


_SENDERS: list[threading.Thread] = []


def finish_sending(timeout: float) -> bool:
    """Before the program exits: let the background sends finish, for at most ``timeout``
    seconds in all (what they do not finish stays in the outbox). True when all finished."""
    import time

    deadline = time.monotonic() + timeout
    while _SENDERS:
        thread = _SENDERS[0]
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            return False
        _SENDERS.pop(0)
    return True


def _send_quietly(settings: Settings) -> None:
    try:
        send_outbox(settings)
    except Exception:  # noqa: BLE001 - a background send must never reach the table
        log.exception("sending the club's outbox failed", extra=LOG_ONLY)


def send_outbox(settings: Settings) -> Sent:
    """Send what waits in the outbox; when the database cannot be reached, say why."""
    outbox = outbox_of(settings)
    outbox.recover()
    if not outbox.waiting():
        return Sent()
    with _SENDING:  # one send at a time in a process (the game's end, the warm-up)
        try:
            database = connect(settings)
        except ClubDatabaseError as exc:
            return Sent(waiting=len(outbox.waiting()), problem=str(exc), error=exc)
        sent = outbox.send(database)
        if sent.problem:  # the server went away: open it afresh next time
            forget(settings)
        return sent


_SENDING = threading.Lock()


def catch_up(settings: Settings) -> list[str]:
    """Record the finished games whose recording never finished (no ``.recorded`` marker):
    they go to the outbox. Returns their ids."""
    found: list[str] = []
    for journal in journals(settings.path(settings.storage.journal_dir)):
        if not journal.with_suffix(".finished").exists():
            continue
        identity = record_left(settings, journal)
        if identity is not None:
            found.append(identity)
    return found


def record_left(settings: Settings, journal: Path, state: GameState | None = None) -> str | None:
    """Record an ended game unless it is recorded already (its marker) or was played before the
    club's records (`voicehost club import` takes it); nothing is sent. Returns its id when
    recorded now; what fails is said in the log and tried again next time."""
    if recorded_marker(journal).exists():
        return None
    try:
        header, _ = read(journal)
        if "table" not in header:
            return None
        return record_finished(settings, journal, send=False, state=state).facts["id"]
    except (JournalError, VoicehostError, OSError) as exc:
        log.warning("cannot record %s for the club: %s", journal, exc, extra=LOG_ONLY)
        return None
