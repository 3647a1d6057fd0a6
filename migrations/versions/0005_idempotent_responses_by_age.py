"""idempotent responses by age: an index on idempotent_responses.created_at

A stored answer is kept for its retries for IDEMPOTENCY_SECONDS (a day by default); the
background sweep forgets the expired ones, the oldest first, a batch at a time.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_idempotent_responses_created", "idempotent_responses", ["created_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_idempotent_responses_created", table_name="idempotent_responses")
