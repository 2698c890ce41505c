"""The club's records, the same cases on SQLite and on a real PostgreSQL server: two tables
writing at once, a table offline then syncing, an import twice, a name with quotes and emoji, a
server restarted mid-sync, and kill -9 at any moment of recording or sending."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from clubkit import PEOPLE, club_settings, finished_journals

from voicehost.club import evening, records
from voicehost.club.db import open_database, url_for


def database_of(settings):  # noqa: ANN001, ANN201
    return open_database(records.database_url(settings))


def record_all(settings, journals) -> None:  # noqa: ANN001
    for journal in journals:
        records.record_finished(settings, journal, background=False)


def test_a_game_is_recorded_once_with_its_names_quotes_and_emoji(
    tmp_path: Path, backend: str
) -> None:
    settings = club_settings(tmp_path, backend)
    journals = finished_journals(tmp_path, 3)
    record_all(settings, journals)
    record_all(settings, journals)  # a second record of the same games changes nothing
    database = database_of(settings)
    try:
        assert database.count_games() == 3
        rows = database.standings()
        names = {row.name for row in rows}
        assert 'O\'Neil "Дед" 🎲' in names
        assert sum(row.games for row in rows) == 30
        assert rows[0].points >= rows[-1].points
        assert database.series('o\'neil "дед" 🎲') != []
    finally:
        database.close()
    assert not records.outbox_of(settings).waiting()
    records.forget(settings)


def test_a_table_offline_keeps_its_games_and_sends_them_once_when_back(
    tmp_path: Path, backend: str
) -> None:
    if backend:
        offline = backend.replace("@127.0.0.1:", "@127.0.0.1:1")  # nobody listens there
        offline = offline.rsplit(":", 1)[0] + ":9/" + backend.rsplit("/", 1)[1]
    else:
        offline = f"sqlite:///{tmp_path}/no-such-folder-file/\x00"
    settings = club_settings(tmp_path, "", sync_timeout_seconds=1)
    settings = _with_database(settings, offline)
    journals = finished_journals(tmp_path, 4)
    started = time.perf_counter()
    for journal in journals:
        recorded = records.record_finished(settings, journal, background=False)
        assert recorded.sent is not None and recorded.sent.problem
    assert time.perf_counter() - started < 4 * 3
    assert len(records.outbox_of(settings).waiting()) == 4
    back = _with_database(settings, backend)
    sent = records.send_outbox(back)
    assert len(sent.recorded) == 4 and not sent.waiting
    assert records.send_outbox(back).recorded == []
    database = database_of(back)
    assert database.count_games() == 4
    database.close()
    records.forget(back)


def _with_database(settings, database: str):  # noqa: ANN001, ANN202
    import dataclasses

    return dataclasses.replace(settings, club=dataclasses.replace(settings.club, database=database))


def test_an_import_twice_is_one_import(tmp_path: Path, backend: str) -> None:
    stick = tmp_path / "stick"
    finished_journals(stick, 5, table="стол 2")
    (stick / "journals" / "game-00001.jsonl").with_suffix(".json").write_text(
        json.dumps({"seats": "not a protocol"}), encoding="utf-8"
    )
    settings = club_settings(tmp_path / "home", backend)
    from voicehost.club.importer import import_folder

    first = import_folder(settings, stick)
    second = import_folder(settings, stick)
    assert len(first.sent.recorded) == 5 and first.sent.already == []
    assert second.sent.recorded == [] and len(second.sent.already) == 5
    database = database_of(settings)
    assert database.count_games() == 5
    database.close()
    records.forget(settings)


def test_two_tables_writing_at_once_lose_nothing_and_share_players(
    tmp_path: Path, backend: str
) -> None:
    script = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        sys.path.insert(0, {here!r})
        from clubkit import club_settings, finished_journals
        from voicehost.club import records
        folder = Path(sys.argv[1])
        settings = club_settings(folder, sys.argv[4])
        import dataclasses
        settings = dataclasses.replace(settings, club=dataclasses.replace(
            settings.club, table=sys.argv[2], data_dir=str(folder / "club")))
        for journal in finished_journals(folder, 8, table=sys.argv[2], offset=int(sys.argv[3])):
            records.record_finished(settings, journal, background=False)
        assert not records.outbox_of(settings).waiting(), records.send_outbox(settings).problem
        """
    ).format(here=str(Path(__file__).parent))
    # two tables, each with its own data folder, writing to one database (one SQLite file)
    database = backend or f"sqlite:///{tmp_path / 'shared.sqlite'}"
    tables = []
    for number in (1, 2):
        folder = tmp_path / f"table{number}"
        command = [sys.executable, "-c", script, str(folder), f"стол {number}"]
        tables.append(subprocess.Popen([*command, str(number * 100), database]))
    assert [table.wait(timeout=180) for table in tables] == [0, 0]
    settings = club_settings(tmp_path / "table1", database)
    database = database_of(settings)
    try:
        assert database.count_games() == 16
        rows = database.standings()
        assert len({row.name for row in rows}) == len(rows) == len(PEOPLE)
        assert sum(row.games for row in rows) == 160
    finally:
        database.close()
    records.forget(settings)


def test_the_server_restarted_mid_sync_leaves_every_game_once(tmp_path: Path, pg) -> None:  # noqa: ANN001
    backend = pg.new_database()
    settings = club_settings(tmp_path, backend, sync_timeout_seconds=2)
    journals = finished_journals(tmp_path, 40)
    for journal in journals:
        records.record_finished(settings, journal, send=False)
    import threading

    done: list[object] = []
    sender = threading.Thread(target=lambda: done.append(records.send_outbox(settings)))
    sender.start()
    time.sleep(0.3)
    pg.restart()
    sender.join(timeout=60)
    records.forget(settings)
    for _ in range(5):
        if not records.send_outbox(settings).waiting:
            break
        time.sleep(0.5)
    database = database_of(settings)
    assert database.count_games() == 40
    database.close()
    assert not records.outbox_of(settings).waiting()
    records.forget(settings)


KILLED = """
import sys
from pathlib import Path
sys.path.insert(0, {here!r})
from clubkit import club_settings
from voicehost.club import records
folder = Path(sys.argv[1])
settings = club_settings(folder, {backend!r})
for journal in sorted((folder / "journals").glob("*.jsonl")):
    if not records.recorded_marker(journal).exists():
        records.record_finished(settings, journal, background=False)
records.send_outbox(settings)
"""


def test_kill_9_at_any_moment_leaves_each_game_in_the_database_or_the_outbox(
    tmp_path: Path, backend: str
) -> None:
    settings = club_settings(tmp_path, backend)
    journals = finished_journals(tmp_path, 12)
    ids = {journal: None for journal in journals}
    script = KILLED.format(here=str(Path(__file__).parent), backend=backend)
    chance = random.Random(25)
    for _ in range(6):
        process = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)])
        time.sleep(chance.uniform(0.3, 1.5))
        process.send_signal(signal.SIGKILL)
        process.wait()
        _check_never_neither(settings, list(ids))
    records.catch_up(settings)
    records.send_outbox(settings)
    database = database_of(settings)
    try:
        assert database.count_games() == len(journals)
    finally:
        database.close()
    assert not records.outbox_of(settings).waiting()
    records.forget(settings)


def _check_never_neither(settings, journals) -> None:  # noqa: ANN001
    from voicehost.club.facts import game_id

    database = database_of(settings)
    outbox = records.outbox_of(settings)
    try:
        for journal in journals:
            identity = game_id(journal)
            in_database = database.has_game(identity)
            in_outbox = outbox.path_of(identity).exists()
            marked = records.recorded_marker(journal).exists()
            # recorded (marker written after the outbox): in the database or the outbox
            assert not marked or in_database or in_outbox, journal
    finally:
        database.close()


def test_the_evening_table_adds_up_the_games_of_the_evening(tmp_path: Path) -> None:
    settings = club_settings(tmp_path)
    folder = records.data_dir(settings)
    opened = evening.start(folder, "стол 1", "2026")
    journals = finished_journals(tmp_path, 3, evening=opened["id"])
    record_all(settings, journals)
    record_all(settings, journals)
    current = evening.current(folder)
    assert current is not None and len(current["games"]) == 3
    table = evening.table_of(current)
    assert sum(line.games for line in table) == 30
    winners = sum(line.wins for line in table)
    assert winners == 3 * 7  # the town (7 players) wins each of the three games
    assert evening.carried_names(folder)["1"] == PEOPLE[(1 + 2) % len(PEOPLE)]
    evening.end(folder)
    assert evening.current(folder) is None
    records.forget(settings)


def test_the_sqlite_address_is_the_data_folder(tmp_path: Path) -> None:
    assert url_for("", tmp_path) == f"sqlite:///{tmp_path / 'club.sqlite'}"
    assert url_for("postgresql://u:p@h/db", tmp_path) == "postgresql+pg8000://u:p@h/db"


def test_the_citys_maniac_who_wins_alone_gets_the_winners_points() -> None:
    """A city game the Maniac won: the evening's table gives him the win, and nobody else."""
    from voicehost import config
    from voicehost.club.facts import no_marks, points_for, team_of
    from voicehost.rulesets import load_preset

    city = load_preset("city")
    scoring = config.load(None).scoring.table()
    seat = {"seat": 8, "role": "maniac", "fouls": 0, "at_table": True, "left": None}
    won, _, _, points = points_for(seat, "maniac", scoring, no_marks(), {}, city)  # type: ignore[arg-type]
    assert team_of("maniac", city) == "maniac" and won and points == scoring["win_maniac"] > 0
    mafia = {"seat": 2, "role": "mafia", "fouls": 0, "at_table": False, "left": "kill"}
    won, _, _, points = points_for(mafia, "maniac", scoring, no_marks(), {}, city)  # type: ignore[arg-type]
    assert not won and points == scoring["loss"]


def test_a_club_file_that_moves_a_card_to_another_team_is_scored_by_its_own_rules(
    tmp_path: Path,
) -> None:
    """A club plays its own rule file in which the Doctor plays for the mafia: the protocol keeps
    those rules, so the club's table and the printed protocol count the Doctor as black."""
    from voicehost import config
    from voicehost.club.facts import build
    from voicehost.console.script import run_script
    from voicehost.host import protocol
    from voicehost.phrases import PhraseBook
    from voicehost.rulesets import preset_path

    club = preset_path("club").read_text(encoding="utf-8")
    ours = club.replace("  doctor:\n    team: red\n", "  doctor:\n    team: black\n", 1)
    assert ours != club
    (tmp_path / "ours.yaml").write_text(ours, encoding="utf-8")
    settings = config.loads("rules:\n  file: ours.yaml\n", base_dir=tmp_path)
    played = run_script(["2 5 9", "wait", "4", "wait", "7", "wait"], settings)
    assert played.errors == []
    data = dict(played.protocol)
    assert data.get("ruleset") == ours  # the protocol keeps the rules it was played by
    data["winner"] = "black"  # the mafia (and so the Doctor) win
    scoring = settings.scoring.table()
    facts = build(
        settings, data, identity="x", table="t", evening=None,  # type: ignore[arg-type]
        started="2026-01-01T20:00:00", finished="2026-01-01T21:00:00",
    )  # fmt: skip
    by_seat = {seat["seat"]: seat for seat in facts["seats"]}
    assert by_seat[7]["role"] == "doctor" and by_seat[7]["team"] == "black"
    assert by_seat[7]["won"] and by_seat[7]["points"] == scoring["win_black"]
    assert not by_seat[4]["won"] and by_seat[4]["team"] == "red"  # the Commissar lost
    assert [seat for seat, line in by_seat.items() if line["won"]] == [2, 5, 7, 9]
    book = PhraseBook.load("ru")
    table = protocol.to_table(data, book)  # type: ignore[arg-type]
    doctor = book.word("doctor")
    assert doctor.upper() in table  # the black cards stand out on paper, the Doctor's too
    # the same game by the club's own preset: the Doctor is red and loses with the town
    data.pop("ruleset")
    facts = build(
        settings, data, identity="x", table="t", evening=None,  # type: ignore[arg-type]
        started="2026-01-01T20:00:00", finished="2026-01-01T21:00:00",
    )  # fmt: skip
    assert [line["seat"] for line in facts["seats"] if line["won"]] == [2, 5, 9]
    assert doctor.upper() not in protocol.to_table(data, book)  # type: ignore[arg-type]
