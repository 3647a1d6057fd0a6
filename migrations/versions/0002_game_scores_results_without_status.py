"""games.score_0/score_1 beside the snapshot; idempotent results without an HTTP status

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30

``GET /games`` shows each game's match totals: columns of their own save loading whole
snapshots to read them. A stored idempotent result is the use case's answer; which HTTP
status it is sent with is the API's business, so that column goes.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GAMES = sa.table(
    "games", sa.column("id", sa.String()), sa.column("snapshot", sa.JSON()),
    sa.column("score_0", sa.Integer()), sa.column("score_1", sa.Integer()),
)  # fmt: skip


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        for name in ("score_0", "score_1"):
            batch_op.add_column(
                sa.Column(name, sa.Integer(), server_default=sa.text("0"), nullable=False)
            )
    connection = op.get_bind()
    for game_id, snapshot in connection.execute(sa.select(GAMES.c.id, GAMES.c.snapshot)):
        score_0, score_1 = (snapshot or {}).get("scores", [0, 0])
        update = GAMES.update().where(GAMES.c.id == game_id)
        connection.execute(update.values(score_0=score_0, score_1=score_1))
    with op.batch_alter_table("idempotent_responses", schema=None) as batch_op:
        batch_op.drop_column("status")


def downgrade() -> None:
    with op.batch_alter_table("idempotent_responses", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("status", sa.Integer(), server_default=sa.text("201"), nullable=False)
        )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("score_1")
        batch_op.drop_column("score_0")
