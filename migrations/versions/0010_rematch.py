"""rematch: a game made as the rematch of another names it, one rematch per game at most

Revision ID: 0010_rematch
Revises: 0008
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_rematch"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("rematch_of", sa.String(length=32), nullable=True))
    op.create_index("uq_games_rematch_of", "games", ["rematch_of"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_games_rematch_of", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("rematch_of")
