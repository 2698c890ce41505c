"""The club's schema is Alembic's: the newest migration is the one the code knows, and the
tables it makes are the ones the code queries."""

from __future__ import annotations

from pathlib import Path

from voicehost.club import db, schema


def test_the_code_knows_the_newest_migration() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(db.MIGRATIONS))
    assert ScriptDirectory.from_config(config).get_current_head() == db.HEAD


def test_the_migrations_make_the_tables_the_code_queries(tmp_path: Path) -> None:
    from sqlalchemy import inspect

    database = db.open_database(db.url_for("", tmp_path))
    try:
        assert database.version() == db.HEAD
        found = inspect(database.engine)
        for table in schema.metadata.sorted_tables:
            columns = {column["name"] for column in found.get_columns(table.name)}
            assert columns == {column.name for column in table.columns}, table.name
        database.migrate()  # a second start changes nothing
        assert database.version() == db.HEAD
    finally:
        database.close()


def test_a_migration_killed_half_way_leaves_nothing_half_made(tmp_path: Path) -> None:
    import subprocess
    import sys

    killed = f"""
import os
from alembic.operations import Operations
from voicehost.club import db
def die(*args, **kwargs):
    os._exit(9)  # the power goes after the first tables were made, before the rest
Operations.create_index = die
db.open_database(db.url_for("", __import__("pathlib").Path({str(tmp_path)!r})))
"""
    assert subprocess.run([sys.executable, "-c", killed], check=False).returncode == 9
    database = db.open_database(db.url_for("", tmp_path))
    try:
        assert database.version() == db.HEAD
        assert database.count_games() == 0
    finally:
        database.close()
