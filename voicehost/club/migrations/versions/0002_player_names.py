"""A player is a person: every name a person has been written under, each kept as theirs.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player_names",
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
    )
    op.create_index("ix_player_names_player_id", "player_names", ["player_id"])
    # Every player so far is known by the one name they were written under.
    op.execute("INSERT INTO player_names (key, player_id, name) SELECT key, id, name FROM players")


def downgrade() -> None:
    op.drop_index("ix_player_names_player_id", "player_names")
    op.drop_table("player_names")
