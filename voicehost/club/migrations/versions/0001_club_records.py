"""The club's records: players, evenings, games, seats and votes.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(200), nullable=False, unique=True),
        sa.Column("name", sa.String(200), nullable=False),
    )
    op.create_table(
        "evenings",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("table_name", sa.String(200), nullable=False),
        sa.Column("season", sa.String(100), nullable=False),
        sa.Column("started", sa.String(32), nullable=False),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("table_name", sa.String(200), nullable=False),
        sa.Column("evening_id", sa.String(64), nullable=True),
        sa.Column("season", sa.String(100), nullable=False),
        sa.Column("started", sa.String(32), nullable=False),
        sa.Column("finished", sa.String(32), nullable=False),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("winner", sa.String(16), nullable=True),
        sa.Column("protocol", sa.Text, nullable=False),
    )
    op.create_index("ix_games_evening_id", "games", ["evening_id"])
    op.create_index("ix_games_season", "games", ["season"])
    op.create_table(
        "game_seats",
        sa.Column("game_id", sa.String(64), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=True),
        sa.Column("role", sa.String(32), nullable=True),
        sa.Column("team", sa.String(16), nullable=True),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("left_how", sa.String(32), nullable=True),
        sa.Column("fouls", sa.Integer, nullable=False),
        sa.Column("best_player", sa.Boolean, nullable=False),
        sa.Column("best_move", sa.Boolean, nullable=False),
        sa.Column("extra", sa.Float, nullable=False),
        sa.Column("penalty", sa.Float, nullable=False),
        sa.Column("points", sa.Float, nullable=False),
    )
    op.create_index("ix_game_seats_player_id", "game_seats", ["player_id"])
    op.create_table(
        "votes",
        sa.Column("game_id", sa.String(64), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("day", sa.Integer, primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("voter", sa.Integer, primary_key=True),
        sa.Column("candidate", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    for table in ("votes", "game_seats", "games", "evenings", "players"):
        op.drop_table(table)
