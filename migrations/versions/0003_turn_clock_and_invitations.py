"""turn clock and invitations: games.deadline (indexed), games.invite_hash, games.public

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Waiting games from before this migration get the default waiting time from now on.
WAITING_TTL = timedelta(hours=24)


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("deadline", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("invite_hash", sa.String(length=64), nullable=True))
        batch_op.add_column(
            sa.Column("public", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.create_index("ix_games_deadline", ["deadline"], unique=False)
    # Games created before invitations existed were joinable by anyone: they stay so, and
    # the ones still waiting end like any other unjoined game instead of hanging forever.
    games = sa.table(
        "games",
        sa.column("status", sa.String),
        sa.column("public", sa.Boolean),
        sa.column("deadline", sa.DateTime(timezone=True)),
    )
    op.execute(games.update().values(public=True))
    op.execute(
        games.update()
        .where(games.c.status == "waiting")
        .values(deadline=datetime.now(UTC) + WAITING_TTL)
    )


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_deadline")
        batch_op.drop_column("public")
        batch_op.drop_column("invite_hash")
        batch_op.drop_column("deadline")
