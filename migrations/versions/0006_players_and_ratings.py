"""players and ratings: the players table, seats.player_id (indexed with the game's creation
time, for a player's games newest first), games.rated and games.ratings

A downgrade forgets the players, their ratings and which seat each held (the games' logs
still name them, so /verify then reports the seats' players as changed).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ZERO = sa.text("0")


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("bot", sa.String(length=16), nullable=True),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("subject", sa.String(length=255), nullable=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rated_games", sa.Integer(), server_default=ZERO, nullable=False),
        sa.Column("played", sa.Integer(), server_default=ZERO, nullable=False),
        sa.Column("won", sa.Integer(), server_default=ZERO, nullable=False),
        sa.Column("lost", sa.Integer(), server_default=ZERO, nullable=False),
        sa.Column("drawn", sa.Integer(), server_default=ZERO, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_players_token_hash")),
        sa.UniqueConstraint("subject", name=op.f("uq_players_subject")),
    )
    op.create_index("ix_players_rated_mu", "players", ["rated_games", "mu"], unique=False)
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("player_id", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("created_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(
            "ix_seats_player", ["player_id", "created_at", "game_id"], unique=False
        )
    # A bot's seat is its level's player (bot-<level>), in the games before this one too; and
    # every seat keeps its game's creation time, the order of a player's games.
    op.execute("UPDATE seats SET player_id = 'bot-' || bot WHERE bot IS NOT NULL")
    op.execute(
        "UPDATE seats SET created_at ="
        " (SELECT created_at FROM games WHERE games.id = seats.game_id)"
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(sa.Column("ratings", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("ratings")
        batch_op.drop_column("rated")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_index("ix_seats_player")
        batch_op.drop_column("created_at")
        batch_op.drop_column("player_id")
    op.drop_index("ix_players_rated_mu", table_name="players")
    op.drop_table("players")
