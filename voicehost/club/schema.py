"""The club database's tables (SQLAlchemy 2). The schema itself is made and changed by the
Alembic migrations in ``migrations/``; these declarations are what the code queries."""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

players = Table(
    "players",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("key", String(200), nullable=False, unique=True),  # the name below, case-folded
    Column("name", String(200), nullable=False),  # shown: as first written, or as a rename gave it
)

player_names = Table(
    "player_names",
    metadata,
    Column("key", String(200), primary_key=True),  # a name the person was written under, folded
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False, index=True),
    Column("name", String(200), nullable=False),  # as first written
)

evenings = Table(
    "evenings",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("table_name", String(200), nullable=False),
    Column("season", String(100), nullable=False),
    Column("started", String(32), nullable=False),
)

games = Table(
    "games",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("table_name", String(200), nullable=False),
    Column("evening_id", String(64), nullable=True, index=True),
    Column("season", String(100), nullable=False, index=True),
    Column("started", String(32), nullable=False),
    Column("finished", String(32), nullable=False),
    Column("preset", String(32), nullable=False),
    Column("players", Integer, nullable=False),
    Column("winner", String(16), nullable=True),
    Column("protocol", Text, nullable=False),  # the protocol's JSON, as the club keeps it
)

game_seats = Table(
    "game_seats",
    metadata,
    Column("game_id", String(64), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=True, index=True),
    Column("role", String(32), nullable=True),
    Column("team", String(16), nullable=True),
    Column("won", Boolean, nullable=False),
    Column("left_how", String(32), nullable=True),
    Column("fouls", Integer, nullable=False),
    Column("best_player", Boolean, nullable=False),
    Column("best_move", Boolean, nullable=False),
    Column("extra", Float, nullable=False),
    Column("penalty", Float, nullable=False),
    Column("points", Float, nullable=False),
)

votes = Table(
    "votes",
    metadata,
    Column("game_id", String(64), ForeignKey("games.id"), primary_key=True),
    Column("day", Integer, primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("voter", Integer, primary_key=True),
    Column("candidate", Integer, nullable=False),
)
