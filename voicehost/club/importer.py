"""`voicehost club import DIR`: the journals and protocols of earlier games (a USB stick from
another table) into the club's records. A game imported twice is one game: a journal's game has
the id it had at its own table, a protocol without its journal an id of its content."""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voicehost.club import facts, records
from voicehost.club.outbox import Sent
from voicehost.config import Settings, StorageSettings
from voicehost.errors import VoicehostError
from voicehost.host.journal import JournalError


@dataclass
class Imported:
    found: int = 0
    put: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # (path: why) of what was not a game
    sent: Sent = field(default_factory=Sent)


def import_folder(settings: Settings, folder: Path) -> Imported:
    if not folder.is_dir():
        raise VoicehostError(
            f"{folder} is not a folder; give the folder of journals/protocols",
            phrase="import_not_a_folder",
            folder=folder,
        )
    result = Imported()
    outbox = records.outbox_of(settings)
    journals = sorted(folder.rglob("*.jsonl"))
    stems = {path.stem for path in journals}
    for journal in journals:
        result.found += 1
        # marks and FIIM extra points kept beside the journal (or in its protocols folder)
        beside = journal.parent / "protocols"
        protocol_dir = beside if beside.is_dir() else journal.parent
        local = dataclasses.replace(
            settings,
            storage=StorageSettings(
                journal_dir=str(journal.parent), protocol_dir=str(protocol_dir)
            ),
        )
        try:
            game = records.facts_of(local, journal)
        except (JournalError, VoicehostError) as exc:
            result.skipped.append(f"{journal}: {exc}")
            continue
        outbox.put(game)
        result.put.append(game["id"])
    for path in sorted(folder.rglob("*.json")):
        if path.stem in stems or path.name.endswith((".marks.json", ".extra.json")):
            continue
        data = _protocol(path)
        if data is None:
            continue
        result.found += 1
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(path.stat().st_mtime))
        game = facts.build(
            settings, data, identity=facts.protocol_identity(data),
            table=path.parent.name or "import", evening=None, started=stamp, finished=stamp,
            marks=records.load_marks(path.with_name(f"{path.stem}.marks.json")),
        )  # fmt: skip
        outbox.put(game)
        result.put.append(game["id"])
    result.sent = records.send_outbox(settings)
    return result


def _protocol(path: Path) -> Any:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("seats"), list):
        return None
    if data.get("winner") not in (*facts.TEAMS, "draw"):
        return None
    return data
