"""The whole suite's own checks: no journal's writer thread outlives its journal, and no test
writes into the club's own folder (each test's shared club folder is one of its own).

A journal (voicehost/host/journal.py) fsyncs the host's timer events on a thread of its own,
which ends when the journal is closed or dropped. One left running would be a game's journal
that is still held somewhere, its file open and locked: the run fails and names it.
"""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _club_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The club's shared folder (``club.data_dir: ""``) of this test and of the programs it
    runs: ``tmp_path/club``."""
    monkeypatch.setenv("VOICEHOST_CLUB_HOME", str(tmp_path / "club"))  # club.home
    return tmp_path / "club"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    gc.collect()
    left = [t for t in threading.enumerate() if t.name.startswith("journal-sync")]
    for thread in left:
        thread.join(2)
    left = [t.name for t in left if t.is_alive()]
    if left:
        print(f"\n{len(left)} journal writer thread(s) still running: {', '.join(left)}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
