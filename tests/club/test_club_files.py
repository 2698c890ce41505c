"""The club's files as a host meets them: owner-only like the journals (whatever the umask), a
wrong `club.database` refused at start with what to write, and what a killed write leaves in the
outbox put in place or taken away (issue 42, finding 8)."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from clubkit import club_settings, finished_journals

from voicehost import config
from voicehost.__main__ import main
from voicehost.club import evening, records
from voicehost.club.db import open_database, url_for
from voicehost.errors import ConfigError


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask_000() -> Iterator[None]:
    before = os.umask(0)
    try:
        yield
    finally:
        os.umask(before)


def test_the_club_folder_and_its_database_are_the_owners_alone_under_umask_000(
    tmp_path: Path, umask_000: None
) -> None:
    settings = club_settings(tmp_path)
    folder = records.data_dir(settings)
    open_database(records.database_url(settings)).close()  # what a table's start does first
    assert mode(folder) == 0o700
    assert mode(folder / "club.sqlite") == 0o600
    opened = evening.start(folder, "стол 1", "2026")
    (journal,) = finished_journals(tmp_path, 1, evening=opened["id"])
    records.record_finished(settings, journal, send=False)
    files = [folder / "evening.json", *records.outbox_of(settings).waiting()]
    assert [mode(path) for path in files] == [0o600, 0o600]
    assert mode(records.outbox_of(settings).folder) == 0o700
    records.send_outbox(settings)
    records.forget(settings)
    left = [path for path in folder.rglob("*") if mode(path) & 0o077]
    assert left == []


def test_a_club_folder_others_could_read_is_made_the_owners_alone(tmp_path: Path) -> None:
    """As an older voicehost left it: club/ 0755, club.sqlite 0644."""
    settings = club_settings(tmp_path)
    folder = records.data_dir(settings)
    open_database(url_for("", folder)).close()
    folder.chmod(0o755)
    (folder / "club.sqlite").chmod(0o644)
    records.connect(settings)  # what every command and every game's start do first
    records.forget(settings)
    assert (mode(folder), mode(folder / "club.sqlite")) == (0o700, 0o600)


@pytest.mark.parametrize(
    ("address", "phrase"),
    [
        ("sqlite:///", "config_database_sqlite"),
        ("sqlite:///:memory:", "config_database_sqlite"),
        ("sqlite:///club/", "config_database_sqlite"),
        ("postgresql://", "config_database_server"),
        ("postgresql://club@server:port/mafia", "config_database_server"),
        ("postgresql://club:secret@server", "config_database_server"),
        ("postgres://server/mafia", "config_database_server"),
        ("mysql://club@server/mafia", "config_database"),
    ],
)
def test_a_wrong_club_database_is_refused_with_what_to_write(address: str, phrase: str) -> None:
    with pytest.raises(ConfigError) as refused:
        config.loads(f'club:\n  database: "{address}"\n')
    assert refused.value.phrase == phrase and refused.value.line == 2


@pytest.mark.parametrize(
    "address",
    ["", "sqlite:///season.sqlite", "sqlite:////srv/club.sqlite", "postgresql://c:p@h:5432/m"],
)
def test_a_right_club_database_is_taken(address: str) -> None:
    assert config.loads(f'club:\n  database: "{address}"\n').club.database == address


def test_the_standings_with_a_memory_database_say_what_to_write_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text('club:\n  database: "sqlite:///"\n', encoding="utf-8")
    assert main(["--config", str(path), "club", "standings"]) != 0
    said = capsys.readouterr().err
    assert "строка 2: club.database = sqlite:///" in said and "sqlite:////ПОЛНЫЙ/ПУТЬ" in said
    assert not (tmp_path / "club").exists()


def test_a_relative_sqlite_file_is_beside_the_config(tmp_path: Path) -> None:
    settings = config.loads('club:\n  database: "sqlite:///season.sqlite"\n', base_dir=tmp_path)
    assert records.database_url(settings) == f"sqlite:///{tmp_path / 'season.sqlite'}"


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


def test_a_write_going_on_in_another_process_is_left_alone(tmp_path: Path) -> None:
    """While another table's put holds the outbox, its temporary file is not taken away."""
    from voicehost.club.outbox import folder_lock

    settings = club_settings(tmp_path)
    outbox = records.outbox_of(settings)
    outbox.folder.mkdir(parents=True)
    writing = outbox.folder / ".0123.json.tmp"
    writing.write_bytes(b'{"id": "01')
    with folder_lock(outbox.folder, wait=True):
        records.send_outbox(settings)
        assert writing.exists()
    records.send_outbox(settings)
    assert not writing.exists()
    records.forget(settings)
