"""seeks: players waiting to be paired into a game, one waiting seek per player at most

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WAITING = sa.text("status = 'waiting'")


def upgrade() -> None:
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("bot_after", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("game_id", sa.String(length=32), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seeks")),
    )
    op.create_index("ix_seeks_status_created", "seeks", ["status", "created_at"], unique=False)
    op.create_index(
        "uq_seeks_waiting_player",
        "seeks",
        ["player_id"],
        unique=True,
        postgresql_where=WAITING,
        sqlite_where=WAITING,
    )


def downgrade() -> None:
    op.drop_index("uq_seeks_waiting_player", table_name="seeks")
    op.drop_index("ix_seeks_status_created", table_name="seeks")
    op.drop_table("seeks")
