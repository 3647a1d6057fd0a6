"""ladder integrity: the moment a seek may sit with bots, the indexes a pairing pass reads
by (the waiting seeks' kinds, the seeks due for bots, the seeks out of time), and the index of
the guests that never played, which a sweep forgets

Revision ID: 0009_ladder_integrity
Revises: 0008
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import sqlalchemy as sa
from alembic import op

revision: str = "0009_ladder_integrity"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WAITING = sa.text("status = 'waiting'")
NEVER_PLAYED = sa.text("played = 0 AND token_hash IS NOT NULL")
INDEXES = {
    "ix_seeks_waiting_kind": ["kind", "created_at"],
    "ix_seeks_waiting_bots": ["bots_at"],
    "ix_seeks_waiting_expiry": ["expires_at"],
}


def upgrade() -> None:
    with op.batch_alter_table("seeks") as batch:
        batch.add_column(sa.Column("bots_at", sa.DateTime(timezone=True), nullable=True))
    seeks = sa.table(
        "seeks",
        sa.column("id", sa.String),
        sa.column("status", sa.String),
        sa.column("bot_after", sa.Integer),
        sa.column("created_at", sa.DateTime(timezone=True)),
        sa.column("bots_at", sa.DateTime(timezone=True)),
    )
    connection = op.get_bind()
    waiting = connection.execute(
        sa.select(seeks.c.id, seeks.c.bot_after, seeks.c.created_at).where(
            seeks.c.status == "waiting", seeks.c.bot_after.is_not(None)
        )
    ).all()
    for seek_id, bot_after, created_at in waiting:  # at most ten minutes' worth of seeks
        connection.execute(
            sa.update(seeks)
            .where(seeks.c.id == seek_id)
            .values(bots_at=created_at + timedelta(seconds=bot_after))
        )
    for name, columns in INDEXES.items():
        op.create_index(
            name, "seeks", columns, unique=False, postgresql_where=WAITING, sqlite_where=WAITING
        )
    op.create_index(
        "ix_players_guests",
        "players",
        ["created_at"],
        unique=False,
        postgresql_where=NEVER_PLAYED,
        sqlite_where=NEVER_PLAYED,
    )


def downgrade() -> None:
    op.drop_index("ix_players_guests", table_name="players")
    for name in INDEXES:
        op.drop_index(name, table_name="seeks")
    with op.batch_alter_table("seeks") as batch:
        batch.drop_column("bots_at")
