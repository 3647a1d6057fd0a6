"""compacted logs: the log of a game that is over in one compressed value

A finished match to 101 took about 60 KB as ~210 rows of events and their primary key; as one
value of compacted_logs, a few KB (app/persistence/compacted_logs.py, docs/scaling.md).
games.log_swept marks the games the background sweep is done with, and a partial index holds
the others, so the sweep finds them however many games have ended. The upgrade compacts
nothing itself: the sweep works through the games already over, a batch at a time. The
downgrade writes every compacted log back as rows.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.persistence.compacted_logs import expanded

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UNSWEPT = "status IN ('finished', 'cancelled') AND NOT log_swept"
BATCH = 200

compacted_logs = sa.table(
    "compacted_logs", sa.column("game_id", sa.String), sa.column("log", sa.LargeBinary)
)


def _insert_rows(dialect: str) -> sa.TextClause:
    """The rows of a log, each entry's data as the JSON text it was (PostgreSQL's json column
    keeps the text it is given, byte for byte)."""
    data = "CAST(:data AS JSON)" if dialect == "postgresql" else ":data"
    return sa.text(
        "INSERT INTO events (game_id, seq, type, data, at, hash)"
        f" VALUES (:game_id, :seq, :type, {data}, :at, :hash)"
    )


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("log_swept", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    where = sa.text(UNSWEPT)
    op.create_index(
        "ix_games_log_unswept", "games", ["updated_at"], postgresql_where=where, sqlite_where=where
    )
    op.create_table(
        "compacted_logs",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("log", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_compacted_logs_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_compacted_logs")),
    )  # fmt: skip
    if op.get_bind().dialect.name == "postgresql":
        # In the row, not in TOAST chunks: one page read, no TOAST index, 80 bytes a game less
        # (docs/scaling.md); out of line only if a row outgrows its page.
        op.execute("ALTER TABLE compacted_logs ALTER COLUMN log SET STORAGE MAIN")


def downgrade() -> None:
    connection = op.get_bind()
    insert_rows = _insert_rows(connection.dialect.name)
    while True:
        found = connection.execute(sa.select(compacted_logs).limit(BATCH)).all()
        if not found:
            break
        for game_id, value in found:
            rows = expanded(game_id, bytes(value))
            if rows:
                connection.execute(insert_rows, [
                    {"game_id": game_id, "seq": r.seq, "type": r.type, "data": r.data,
                     "at": r.at, "hash": r.hash} for r in rows
                ])  # fmt: skip
        ids = [game_id for game_id, _ in found]
        connection.execute(sa.delete(compacted_logs).where(compacted_logs.c.game_id.in_(ids)))
    op.drop_table("compacted_logs")
    op.drop_index("ix_games_log_unswept", table_name="games")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("log_swept")
