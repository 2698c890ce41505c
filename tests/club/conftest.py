"""The club's tests run each case against SQLite and against a real PostgreSQL server they
start themselves (a throw-away cluster as the ``postgres`` user in a temporary folder)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from pgserver import PgServer, unavailable  # noqa: E402


@pytest.fixture(scope="session")
def pg() -> Iterator[PgServer]:
    why = unavailable()
    if why:
        pytest.skip(why)
    server = PgServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
        server.remove()


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The ``club.database`` of a case: "" (SQLite in the data folder) or a fresh database on
    the test server."""
    if request.param == "sqlite":
        return ""
    server: PgServer = request.getfixturevalue("pg")
    return server.new_database()
