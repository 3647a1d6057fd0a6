"""The database's schema: migrating it with Alembic, and which revision it is at against the
newest one this code ships."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from sqlalchemy import Connection

from app.config import PROJECT_ROOT, load_settings

if TYPE_CHECKING:
    from alembic.config import Config


def alembic_config(database_url: str) -> Config:
    from alembic.config import Config

    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.attributes["database_url"] = database_url  # not via the ini: '%' in URLs
    return config


def migrate_database(database_url: str | None = None) -> None:
    """Bring the database up to the newest migration (creating a SQLite file if needed)."""
    from alembic import command

    url = database_url or load_settings()["DATABASE_URL"]
    command.upgrade(alembic_config(url), "head")


@cache
def newest_revisions() -> frozenset[str]:
    """The head revision(s) of ``migrations/``: read once per process, they cannot change."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    return frozenset(script.get_heads())


def current_revisions(connection: Connection) -> frozenset[str]:
    """The revision(s) stamped in the database (empty when it was never migrated)."""
    from alembic.runtime.migration import MigrationContext

    return frozenset(MigrationContext.configure(connection).get_current_heads())
