"""The club's files as a host meets them: what a killed write leaves in the outbox is put in
place or taken away (issue 42, finding 8)."""

from __future__ import annotations

import json
from pathlib import Path

from clubkit import club_settings, finished_journals

from voicehost.club import records
from voicehost.club.db import open_database


def test_a_write_cut_by_a_kill_leaves_nothing_in_the_outbox(tmp_path: Path) -> None:
    """A temporary file holding a whole game is sent; one holding a part is removed."""
    settings = club_settings(tmp_path)
    whole, cut = finished_journals(tmp_path, 2)
    outbox = records.outbox_of(settings)
    for journal, keep in ((whole, None), (cut, 100)):
        game = records.facts_of(settings, journal)
        data = json.dumps(game, ensure_ascii=False).encode("utf-8")
        outbox.folder.mkdir(parents=True, exist_ok=True)
        leftover = outbox.folder / f".{game['id']}.json.tmp"
        leftover.write_bytes(data[:keep])
    sent = records.send_outbox(settings)
    assert len(sent.recorded) == 1 and not sent.waiting
    assert sorted(outbox.folder.iterdir()) == []
    database = open_database(records.database_url(settings))
    assert database.count_games() == 1
    database.close()
    records.forget(settings)
