"""rounds apart from the snapshot: games.rounds, the JSON of each finished round's summary

A move loaded, parsed, wrote and had PostgreSQL check and compress every finished round of
its match with the snapshot: a move at round 90 cost about 1.2 times one early on. The rounds
now have a column of their own, written only when a round ends (docs/performance.md).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# A round's row in a snapshot, and the names its summary gives the same values.
FIELDS = ("round", "points", "cards", "majority", "basras", "jack_basras")
BATCH = 500

games = sa.table(
    "games",
    sa.column("id", sa.String),
    sa.column("snapshot", sa.JSON),
    sa.column("rounds", sa.Text),
)


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("rounds", sa.Text(), nullable=False, server_default=sa.text("'[]'"))
        )
    _move_rounds(_rounds_out)


def downgrade() -> None:
    _move_rounds(_rounds_in)
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("rounds")


def _rounds_out(snapshot: dict, rounds: str) -> tuple[dict, str]:
    rows = snapshot.pop("rounds", [])
    summaries = [dict(zip(FIELDS, row, strict=True)) for row in rows]
    return snapshot, json.dumps(summaries, separators=(",", ":"))


def _rounds_in(snapshot: dict, rounds: str) -> tuple[dict, str]:
    snapshot["rounds"] = [[summary[name] for name in FIELDS] for summary in json.loads(rounds)]
    return snapshot, "[]"


def _move_rounds(move) -> None:
    """Every game's snapshot and rounds through ``move``, a batch of games at a time."""
    connection = op.get_bind()
    after = ""
    while True:
        query = (
            sa.select(games.c.id, games.c.snapshot, games.c.rounds)
            .where(games.c.id > after)
            .order_by(games.c.id)
            .limit(BATCH)
        )
        batch = connection.execute(query).all()
        if not batch:
            return
        for game_id, snapshot, rounds in batch:
            snapshot, rounds = move(dict(snapshot), rounds)
            connection.execute(
                games.update().where(games.c.id == game_id).values(snapshot=snapshot, rounds=rounds)
            )
        after = batch[-1][0]
