"""Benchmark: the club's records, on the paths a table runs.

    .venv/bin/python bench/bench_club.py [--games 20] [--season-games 10000]

1. Recording a finished game on SQLite: games are played through the real Host (text table,
   journal) with the club's header, the database warmed up as `voicehost play` does at a game's
   start, and ``session.after_game`` (what `play` runs at the end: outbox, database, evening
   table) is timed. Goal: <= 50 ms each (the worst game).
2. A game's end with a server that does not answer (a socket that accepts and never replies):
   ``after_game`` must not wait for it. Goal: <= 50 ms, the game left in the outbox.
3. `voicehost club standings` over ``--season-games`` generated games on SQLite, run as a
   person runs it (a new process), and its query alone. Goal: <= 1 s.

Exits non-zero when a goal is missed. Figures depend on the machine's load: repeat when it is
shared.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from voicehost import config  # noqa: E402
from voicehost.cli.session import after_game  # noqa: E402
from voicehost.club import evening, records  # noqa: E402
from voicehost.club.facts import GameFacts, SeatFacts  # noqa: E402
from voicehost.console.script import ScriptFeed  # noqa: E402
from voicehost.testing.table import text_table  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = (ROOT / "examples" / "town-wins.txt").read_text(encoding="utf-8").splitlines()
PEOPLE = [f"Игрок {n}" for n in range(1, 41)] + ['O\'Neil "Дед" 🎲']
RECORD_GOAL = 0.050
STANDINGS_GOAL = 1.0


def settings_in(folder: Path, database: str = "") -> config.Settings:
    settings = config.load(None)
    return dataclasses.replace(
        settings,
        base_dir=str(folder),
        club=dataclasses.replace(
            settings.club,
            database=database,
            table="bench",
            sync_timeout_seconds=2,
            data_dir="club",
        ),
        storage=config.StorageSettings("journals", "protocols"),
    )


def play(settings: config.Settings, number: int) -> object:
    host = text_table(settings=settings)
    host.journal_path = settings.path("journals") / f"game-{number:04d}.jsonl"
    host.header = records.header_data(settings)
    for seat in range(1, 11):
        host.names.set(seat, PEOPLE[(seat * 7 + number) % len(PEOPLE)])
    host.start()
    host.run(feed=ScriptFeed(host, host.clock, SCRIPT, None))
    host.close()
    assert host.over
    return host


def warm(settings: config.Settings) -> None:
    records.warm_up(settings)
    for thread in threading.enumerate():
        if thread.name == "club-warm-up":
            thread.join()


def bench_record(games: int) -> list[float]:
    folder = Path(tempfile.mkdtemp(prefix="bench-club-"))
    settings = settings_in(folder)
    evening.start(records.data_dir(settings), "bench", "2026")
    warm(settings)
    times = []
    for number in range(games):
        host = play(settings, number)
        started = time.perf_counter()
        after_game(host)  # type: ignore[arg-type]
        times.append(time.perf_counter() - started)
    database = records.connect(settings)
    assert database.count_games() == games, "every game in the database"
    return times


def silent_server() -> tuple[socket.socket, int]:
    """A server that accepts connections and never answers (a hung PostgreSQL)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    return server, server.getsockname()[1]


def bench_absent_server() -> float:
    server, port = silent_server()
    folder = Path(tempfile.mkdtemp(prefix="bench-club-"))
    settings = settings_in(folder, f"postgresql://club:secret@127.0.0.1:{port}/club")
    host = play(settings, 0)
    started = time.perf_counter()
    after_game(host)  # type: ignore[arg-type]
    took = time.perf_counter() - started
    assert len(records.outbox_of(settings).waiting()) == 1, "the game waits in the outbox"
    server.close()
    return took


def generated(number: int, chance: random.Random) -> GameFacts:
    red = chance.random() < 0.55
    roles = ["mafia"] * 3 + ["commissar", "doctor"] + ["civilian"] * 5
    chance.shuffle(roles)
    people = chance.sample(PEOPLE, 10)
    seats = []
    for seat, (role, name) in enumerate(zip(roles, people, strict=True), start=1):
        team = "black" if role == "mafia" else "red"
        won = (team == "red") == red
        seats.append(
            SeatFacts(
                seat=seat, name=name, role=role, team=team, won=won, left=None, fouls=0,
                best_player=seat == 1, best_move=False, extra=0.0, penalty=0.0,
                points=1.0 if won else 0.0,
            )
        )  # fmt: skip
    day = f"2026-{1 + number % 12:02d}-{1 + number % 28:02d}T20:00:{number % 60:02d}"
    return GameFacts(
        id=f"bench{number:08d}", table=f"стол {number % 3 + 1}", evening=f"e{number // 10}",
        season="2026", started=day, finished=day, preset="club", players=10,
        winner="red" if red else "black", seats=seats, votes=[], protocol={},
    )  # fmt: skip


def bench_standings(games: int) -> tuple[float, float]:
    folder = Path(tempfile.mkdtemp(prefix="bench-club-"))
    settings = settings_in(folder)
    database = records.connect(settings)
    chance = random.Random(25)
    with database.engine.begin() as connection:
        for number in range(games):
            database._record(connection, generated(number, chance))
    started = time.perf_counter()
    rows = database.standings("2026")
    query = time.perf_counter() - started
    assert sum(row.games for row in rows) == games * 10
    config_file = folder / "config.yaml"
    config_file.write_text("club:\n  table: bench\n  data_dir: club\n", encoding="utf-8")
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "voicehost", "--config", str(config_file), "club", "standings",
         "--season", "2026"],
        capture_output=True, text=True, cwd=ROOT, check=True,
    )  # fmt: skip
    command = time.perf_counter() - started
    assert "Игрок 1" in done.stdout, done.stdout[:500]
    return query, command


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--season-games", type=int, default=10000)
    args = parser.parse_args()
    failed = False
    times = bench_record(args.games)
    worst = max(times)
    print(
        f"record a finished game (SQLite, {args.games} games): median "
        f"{statistics.median(times) * 1000:.1f} ms, worst {worst * 1000:.1f} ms "
        f"(goal <= {RECORD_GOAL * 1000:.0f} ms)"
    )
    failed |= worst > RECORD_GOAL
    absent = bench_absent_server()
    print(
        f"game end with a server that never answers: {absent * 1000:.1f} ms, the game in the "
        f"outbox (goal <= {RECORD_GOAL * 1000:.0f} ms)"
    )
    failed |= absent > RECORD_GOAL
    query, command = bench_standings(args.season_games)
    print(
        f"club standings over {args.season_games} games (SQLite): query {query * 1000:.0f} ms, "
        f"`voicehost club standings` {command * 1000:.0f} ms (goal <= {STANDINGS_GOAL:.0f} s)"
    )
    failed |= command > STANDINGS_GOAL
    print("FAILED: a goal was missed" if failed else "all goals met")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
