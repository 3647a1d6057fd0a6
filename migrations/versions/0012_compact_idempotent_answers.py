"""compact idempotent answers: a move's stored answer deflated, in idempotent_responses.answer

A move sent with an Idempotency-Key keeps its first answer for a day: as JSON, about 1.2 KB a
move and over 100 KB a finished match; deflated against a dictionary of an answer's usual text
(app/persistence/stored_answers.py), about 180 B a move. The upgrade packs the answers kept so
far into the new column, a batch at a time, so a retry after it still gets its first answer;
the downgrade writes them back as JSON.

Revision ID: 0012
Revises: 0011_analysis
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from app.persistence.stored_answers import packed, unpacked

revision: str = "0012"
down_revision: str | None = "0011_analysis"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500
KEY = ("game_id", "seat", "key")


ANSWERS = sa.table(
    "idempotent_responses",
    sa.column("game_id", sa.String),
    sa.column("seat", sa.Integer),
    sa.column("key", sa.String),
    sa.column("body", sa.JSON()),
    sa.column("answer", sa.LargeBinary()),
)


def _convert(source: str, target: str, change: Callable[[str, Any], Any]) -> None:
    """Each row's ``source`` value, changed, into its ``target`` column (null until then)."""
    connection = op.get_bind()
    keys = [ANSWERS.c[name] for name in KEY]
    while True:
        rows = connection.execute(
            sa.select(*keys, ANSWERS.c[source]).where(ANSWERS.c[target].is_(None)).limit(BATCH)
        ).all()
        if not rows:
            return
        for game_id, seat, key, value in rows:
            where = (ANSWERS.c.game_id == game_id, ANSWERS.c.seat == seat, ANSWERS.c.key == key)
            changed = {target: change(game_id, value)}
            connection.execute(sa.update(ANSWERS).where(*where).values(changed))


def upgrade() -> None:
    with op.batch_alter_table("idempotent_responses", schema=None) as batch_op:
        batch_op.add_column(sa.Column("answer", sa.LargeBinary(), nullable=True))
    _convert("body", "answer", packed)
    with op.batch_alter_table("idempotent_responses", schema=None) as batch_op:
        batch_op.drop_column("body")
        batch_op.alter_column("answer", existing_type=sa.LargeBinary(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("idempotent_responses", schema=None) as batch_op:
        batch_op.add_column(sa.Column("body", sa.JSON(), nullable=True))
    _convert("answer", "body", lambda game_id, value: unpacked(game_id, bytes(value)))
    with op.batch_alter_table("idempotent_responses", schema=None) as batch_op:
        batch_op.drop_column("answer")
        batch_op.alter_column("body", existing_type=sa.JSON(), nullable=False)
