"""``basra``: migrate the database, write openapi.yaml and its examples, simulate bot matches."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
from pathlib import Path

from app import create_app
from app.api.examples import EXAMPLES_FILE, record
from app.config import PROJECT_ROOT
from app.engine.bots.simulate import main as simulate
from app.persistence.schema import migrate_database


def openapi_document() -> str:
    app = create_app({"DATABASE_URL": "sqlite:///:memory:", "RATE_LIMIT": "off"})
    text: str = app.extensions["basra_api"].spec.to_yaml()
    return text


def write_examples(path: Path = EXAMPLES_FILE) -> Path:
    """Record the examples (app/api/examples.py) on a throwaway SQLite database and write
    them to ``path``."""
    logging.disable(logging.INFO)  # one JSON line per request is noise here
    with tempfile.TemporaryDirectory() as workdir:
        url = f"sqlite:///{Path(workdir) / 'examples.sqlite3'}"
        migrate_database(url)
        app = create_app({"DATABASE_URL": url, "RATE_LIMIT": "off"})
        try:
            examples = record(app.test_client())
        finally:
            app.extensions["basra_db"].dispose()
    path.write_text(json.dumps(examples, indent=1, ensure_ascii=False) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "simulate":
        return simulate(argv[1:])
    parser = argparse.ArgumentParser(prog="basra", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    migrate = commands.add_parser("migrate", help="apply the database migrations (DATABASE_URL)")
    migrate.add_argument("--database-url", default=None)
    openapi = commands.add_parser("openapi", help="write the OpenAPI document")
    openapi.add_argument("--output", default=str(PROJECT_ROOT / "openapi.yaml"))
    commands.add_parser(
        "examples",
        help="play the example game and write app/api/examples.json (then run basra openapi)",
    )
    commands.add_parser("simulate", help="bot against bot matches (see basra simulate --help)")
    args = parser.parse_args(argv)
    if args.command == "migrate":
        migrate_database(args.database_url)
        print("database is up to date", file=sys.stderr)
    elif args.command == "openapi":
        Path(args.output).write_text(openapi_document())
        print(f"wrote {args.output}", file=sys.stderr)
    elif args.command == "examples":
        print(f"wrote {write_examples()}; now run `basra openapi`", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
