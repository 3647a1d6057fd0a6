"""Which Alembic revision the database is at, against the newest one this code ships."""

from __future__ import annotations

from functools import cache

from sqlalchemy import Connection


@cache
def newest_revisions() -> frozenset[str]:
    """The head revision(s) of ``migrations/``: read once per process, they cannot change."""
    from alembic.script import ScriptDirectory

    from app.cli import alembic_config

    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    return frozenset(script.get_heads())


def current_revisions(connection: Connection) -> frozenset[str]:
    """The revision(s) stamped in the database (empty when it was never migrated)."""
    from alembic.runtime.migration import MigrationContext

    return frozenset(MigrationContext.configure(connection).get_current_heads())
