"""kill -9 of a table recording a finished game, at a chosen step.

A step is whatever changes what a kill leaves behind: a file made, written, renamed or removed,
a transaction begun or committed in the club's database (an fsync changes nothing a kill -9 can
see). Run as a program, this imports voicehost once and, for each job, forks a table that does
what voicehost does at that moment and is killed by SIGKILL at its ``kill_at``-th step (a write
is cut in half first); ``kill_at`` 0 kills nothing and writes the steps it took to
``FOLDER/steps.json``. The jobs come as JSON on the command line:
``[{"folder": ..., "database": ..., "mode": "record" | "settle", "kill_at": N}, ...]``.

- ``record``: a game's end, as `play` records it (``records.record_finished``, sent at once);
- ``settle``: a start that finds a game ended without its marker (``session.settle_ended``).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


class Tripwire:
    """Counts the steps and kills this process at the chosen one."""

    def __init__(self, kill_at: int) -> None:
        self.kill_at = kill_at
        self.steps: list[str] = []

    def step(self, what: str) -> bool:
        """Note a step; True when this is the one to be killed at."""
        self.steps.append(what)
        return len(self.steps) == self.kill_at

    def arm(self) -> None:
        from sqlalchemy import event
        from sqlalchemy.engine import Engine

        real_open, real_write = os.open, os.write
        real_replace, real_rename, real_unlink = os.replace, os.rename, os.unlink

        def die() -> None:
            os.kill(os.getpid(), signal.SIGKILL)

        def opened(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if flags & os.O_CREAT and self.step(f"create {Path(path).name}"):
                die()
            return real_open(path, flags, *args, **kwargs)

        def written(descriptor: int, data: Any) -> int:
            if self.step(f"write {len(data)} bytes"):
                real_write(descriptor, bytes(data)[: len(data) // 2])
                die()
            return real_write(descriptor, data)

        def replaced(source: Any, target: Any, **kwargs: Any) -> None:
            if self.step(f"rename {Path(source).name} -> {Path(target).name}"):
                die()
            real_replace(source, target, **kwargs)

        def renamed(source: Any, target: Any, **kwargs: Any) -> None:
            if self.step(f"rename {Path(source).name} -> {Path(target).name}"):
                die()
            real_rename(source, target, **kwargs)

        def unlinked(path: Any, **kwargs: Any) -> None:
            if self.step(f"remove {Path(path).name}"):
                die()
            real_unlink(path, **kwargs)

        os.open, os.write = opened, written  # type: ignore[assignment]
        os.replace, os.rename, os.unlink = replaced, renamed, unlinked  # type: ignore[assignment]

        # A transaction's statements leave the same as none: what it does before its commit
        # is one step (killed there, the database rolls it back), the commit another.
        @event.listens_for(Engine, "begin")
        def _begin(*args: Any) -> None:
            if self.step("database: BEGIN"):
                die()

        @event.listens_for(Engine, "commit")
        def _commit(*args: Any) -> None:
            if self.step("database: COMMIT"):
                die()


def run(job: dict[str, Any]) -> None:
    """In the forked table: arm the tripwire and do what the job's moment does."""
    from clubkit import club_settings

    from voicehost.club import records

    folder = Path(job["folder"])
    settings = club_settings(folder, job["database"], data_dir="club")
    wire = Tripwire(job["kill_at"])
    wire.arm()
    if job["mode"] == "record":
        (journal,) = sorted((folder / "journals").glob("*.jsonl"))
        records.record_finished(settings, journal, background=False)
    else:
        from voicehost.cli.session import settle_ended

        settle_ended(settings)
    if not job["kill_at"]:
        (folder / "steps.json").write_text(json.dumps(wire.steps), encoding="utf-8")


def main(jobs: list[dict[str, Any]]) -> list[str]:
    """Each job's table, forked and killed; how each ended ("killed" or its exit status)."""
    sys.path.insert(0, str(HERE))
    from clubkit import club_settings

    import voicehost.cli.session  # noqa: F401 - loaded once, before the forks
    from voicehost.club import records

    ended = []
    for job in jobs:
        table = club_settings(Path(job["folder"]), job["database"], data_dir="club")
        records.connect(table)  # made and migrated
        pid = os.fork()
        if pid == 0:
            status = 0
            try:
                run(job)
            except BaseException:  # noqa: BLE001 - said on stderr, the status tells the test
                traceback.print_exc()
                status = 1
            finally:
                os._exit(status)
        _, status = os.waitpid(pid, 0)
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        ended.append("killed" if killed else f"exit {os.waitstatus_to_exitcode(status)}")
    return ended


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
