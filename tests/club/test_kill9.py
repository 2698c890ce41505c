"""kill -9 at every step of recording a finished game, on SQLite and on a real PostgreSQL server:
whatever the moment, the next start leaves the game in the database and in its evening exactly
once, and the evening's table and the season's standings agree (issue 42, finding 6). The same
for a start that finds a game ended without its finished marker (finding 7)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from clubkit import club_settings, finished_journals

from voicehost.club import evening, records
from voicehost.club.db import open_database, url_for
from voicehost.club.facts import game_id

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
#: The step that, killed before it, leaves the evening's file as it was: the old order wrote the
#: game's marker before it, and the game never reached its evening.
EVENING_SAVED = "rename .evening.json.tmp -> evening.json"


def run_tables(jobs: list[dict[str, Any]]) -> list[str]:
    """Each job's table, in killkit (one process, a fork a job); how each ended."""
    paths = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    done = subprocess.run(
        [sys.executable, str(HERE / "killkit.py"), json.dumps(jobs)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
    )
    assert done.returncode == 0, done.stderr
    ended: list[str] = json.loads(done.stdout.splitlines()[-1])
    return ended


class Tables:
    """Tables that each end one game of an open evening, with a database of their own."""

    def __init__(self, root: Path, database: str, mode: str, request: pytest.FixtureRequest):
        self.root, self.mode = root, mode
        self.server = request.getfixturevalue("pg") if database else None
        self.template = database or url_for("", root / "template")
        open_database(url_for(self.template, root)).close()  # migrated once, then copied

    def make(self, name: str, kill_at: int) -> dict[str, Any]:
        folder = self.root / name
        opened = evening.start(folder / "club", "стол 1", "2026")
        (journal,) = finished_journals(folder, 1, evening=opened["id"])
        if self.mode == "settle":  # killed right after its last input: no marker
            journal.with_suffix(".finished").unlink()
        if self.server is not None:
            database = self.server.new_database(template=self.template)
        else:
            database = ""
            shutil.copyfile(self.root / "template" / "club.sqlite", folder / "club" / "club.sqlite")
            (folder / "club" / "club.sqlite").chmod(0o600)
        return {"folder": str(folder), "database": database, "mode": self.mode, "kill_at": kill_at}


def next_start(job: dict[str, Any]) -> list[str]:
    """What the next start does (the boot's settling, then the club's catch-up and send), and
    what is wrong after it: the game in the database and in its evening exactly once, the
    evening's table equal to the standings, the journal marked, nothing left in the outbox."""
    folder = Path(job["folder"])
    settings = club_settings(folder, job["database"], data_dir="club")
    journal = folder / "journals" / "game-00000.jsonl"  # (a boot may have begun another)
    if job["mode"] == "settle":
        from voicehost.cli.session import settle_ended

        settle_ended(settings)
    records.catch_up(settings)
    records.send_outbox(settings)
    records.forget(settings)
    problems = []
    identity = game_id(journal)
    database = open_database(records.database_url(settings))
    try:
        games = database.count_games()
        if games != 1 or not database.has_game(identity):
            problems.append(f"{games} game(s) in the database")
        season = {row.name: (row.games, row.points) for row in database.standings()}
    finally:
        database.close()
    current = evening.current(folder / "club") or {"games": []}
    in_evening = [game["id"] for game in current["games"]]
    if in_evening != [identity]:
        problems.append(f"{len(in_evening)} game(s) in the evening")
    table = {line.name: (line.games, line.points) for line in evening.table_of(current)}
    if table != season:
        problems.append("the evening's table and the standings differ")
    for marker in (".finished", ".recorded"):
        if not journal.with_suffix(marker).exists():
            problems.append(f"no {marker} marker")
    if job["mode"] == "settle" and not (folder / "protocols" / f"{journal.stem}.json").exists():
        problems.append("no protocol")
    outbox = records.outbox_of(settings).folder
    left = sorted(path.name for path in outbox.iterdir()) if outbox.exists() else []
    if left:
        problems.append(f"left in the outbox: {left}")
    return problems


def games_said(folder: Path, database: str, *command: str) -> int:
    """How many games a real `voicehost` command says («игр: N» in its first line)."""
    said = voicehost(folder, database, *command)
    found = re.search(r"игр: (\d+)", said)
    assert found is not None, said
    return int(found.group(1))


def voicehost(folder: Path, database: str, *command: str) -> str:
    """What a real `voicehost` command prints, with the table's config (no terminal)."""
    config = folder / "config.yaml"
    config.write_text(
        'voice:\n  engine: text\nlistener:\n  enabled: false\nkeypad:\n  enabled: "off"\n'
        f'club:\n  database: "{database}"\n  table: "стол 1"\n  data_dir: club\n'
        "storage:\n  journal_dir: journals\n  protocol_dir: protocols\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "voicehost", "--config", str(config), *command],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout


@pytest.mark.parametrize("mode", ["record", "settle"])
def test_kill_9_at_every_step_of_recording_leaves_the_game_once_in_its_evening(
    tmp_path: Path, backend: str, mode: str, request: pytest.FixtureRequest
) -> None:
    tables = Tables(tmp_path, backend, mode, request)
    counted = tables.make("counted", 0)
    assert run_tables([counted]) == ["exit 0"]
    steps = json.loads((Path(counted["folder"]) / "steps.json").read_text(encoding="utf-8"))
    assert EVENING_SAVED in steps
    assert any("COMMIT" in step for step in steps) == (mode == "record")  # settled: sent later
    jobs = [tables.make(f"killed-{number}", number) for number in range(1, len(steps) + 1)]
    assert run_tables(jobs) == ["killed"] * len(steps)
    # The host at the table: the evening's table and the season, as the commands show them.
    at_evening = jobs[steps.index(EVENING_SAVED)]
    folder, database = Path(at_evening["folder"]), at_evening["database"]
    if mode == "settle":  # the boot: the game that ended is not resumed, a new one starts
        said = voicehost(folder, database, "play", "--resume-or-start", "--text", "--plain")
        assert "Продолжаем игру" not in said and "Начинаем игру" in said
    shown = {
        "evening status": games_said(folder, database, "evening", "status"),
        "club standings": games_said(folder, database, "club", "standings"),
    }
    problems = {
        f"killed at step {job['kill_at']} ({steps[job['kill_at'] - 1]})": next_start(job)
        for job in [counted, *jobs]
    }
    assert {step: found for step, found in problems.items() if found} == {}
    assert shown == {"evening status": 1, "club standings": 1}


@pytest.mark.parametrize("marked", [False, True])
def test_a_game_that_ended_unmarked_is_settled_once_and_the_boot_starts_a_new_one(
    tmp_path: Path, marked: bool
) -> None:
    """Killed right after the game's last input: no finished marker. The boot service does not
    resume the game that is over (each boot used to say «Продолжаем игру», «игра окончена»,
    rewrite the protocol and start nothing); it finishes its protocol and club record once.
    Killed right after the marker: the protocol is written all the same."""
    opened = evening.start(tmp_path / "club", "стол 1", "2026")
    (journal,) = finished_journals(tmp_path, 1, evening=opened["id"])
    if not marked:
        journal.with_suffix(".finished").unlink()
    boot = ("play", "--resume-or-start", "--text", "--plain")
    said = voicehost(tmp_path, "", *boot)
    assert "Продолжаем игру" not in said and "Начинаем игру" in said
    assert journal.with_suffix(".finished").exists()
    protocol = tmp_path / "protocols" / f"{journal.stem}.json"
    written = protocol.stat().st_mtime_ns
    assert json.loads(protocol.read_text(encoding="utf-8"))["winner"] == "red"
    said = voicehost(tmp_path, "", *boot)  # the next boot carries on the new game, not the old
    assert journal.name not in said and protocol.stat().st_mtime_ns == written
    assert games_said(tmp_path, "", "evening", "status") == 1
    assert games_said(tmp_path, "", "club", "standings") == 1
