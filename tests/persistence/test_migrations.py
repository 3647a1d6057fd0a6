"""The Alembic migrations build exactly the schema of the models, and run both ways."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import orjson
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, text

from app import create_app
from app.engine.rounds import RoundResults
from app.persistence import Database, SqlUnitOfWork
from app.persistence.models import Base
from app.persistence.schema import alembic_config, migrate_database
from app.persistence.statements import json_bytes
from app.services import audit, playing, retention
from app.services.views import game_view

from .test_rounds_apart import Match, encoded
from .test_unit_of_work import loaded

TABLES = {"games", "seats", "events", "compacted_logs", "idempotent_responses"}


def schema_differences(url: str) -> list[object]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "compare_server_default": True}
            )
            return list(compare_metadata(context, Base.metadata))
    finally:
        engine.dispose()


def tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_the_migrations_build_exactly_the_schema_of_the_models(database_url):
    assert schema_differences(database_url) == []


def test_the_migrations_have_a_single_head():
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    assert len(script.get_heads()) == 1


def test_downgrading_to_base_and_upgrading_to_head_again_works_on_a_fresh_database(
    fresh_database_url,
):
    migrate_database(fresh_database_url)
    assert tables(fresh_database_url) >= TABLES
    command.downgrade(alembic_config(fresh_database_url), "base")
    assert not TABLES & tables(fresh_database_url)
    command.upgrade(alembic_config(fresh_database_url), "head")
    assert schema_differences(fresh_database_url) == []
    app = create_app({"DATABASE_URL": fresh_database_url, "RATE_LIMIT": "off"})
    try:
        response = app.test_client().post(
            "/games", json={"players": [{"bot": "random"}, {"bot": "greedy"}]}
        )
        assert response.status_code == 201
        assert response.get_json()["status"] == "active"  # played on by app.background.bot_runner
    finally:
        app.extensions["basra_bot_runner"].stop()
        app.extensions["basra_db"].dispose()


def test_0004_moves_each_games_rounds_out_of_its_snapshot_and_back(fresh_database_url):
    migrate_database(fresh_database_url)
    database = Database(fresh_database_url)
    try:
        match = Match(database)
        match.to_round(3)
        _, rounds = match.stored()
        view = encoded(match.view)
    finally:
        database.dispose()
    config = alembic_config(fresh_database_url)

    command.downgrade(config, "0003")
    engine = create_engine(fresh_database_url)
    try:
        with engine.connect() as connection:
            (snapshot,) = connection.execute(text("SELECT snapshot FROM games")).one()
        snapshot = snapshot if isinstance(snapshot, dict) else json.loads(snapshot)
        assert snapshot["rounds"] == [RoundResults.row_of(s) for s in json.loads(rounds)]
    finally:
        engine.dispose()

    command.upgrade(config, "head")
    database = match.database = Database(fresh_database_url)
    try:
        snapshot, again = match.stored()
        assert "rounds" not in snapshot and json.loads(again) == json.loads(rounds)
        game = loaded(database, match.id)
        assert encoded(game_view(game, 0)) == view
        assert audit.verify(SqlUnitOfWork(database), match.id)["ok"]
        match.move()  # and the game plays on
    finally:
        database.dispose()


def stored_rows(url: str) -> list[tuple[object, ...]]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            query = "SELECT game_id, seq, type, CAST(data AS TEXT), at, hash FROM events"
            return sorted(tuple(row) for row in connection.execute(text(query)))
    finally:
        engine.dispose()


def test_0007_writes_compacted_logs_back_as_rows_and_compacts_them_again(fresh_database_url):
    migrate_database(fresh_database_url)
    database = Database(fresh_database_url)
    try:
        over = [Match(database) for _ in range(3)]
        for match in over:
            match.resign()
        playing = Match(database)
        playing.to_round(2)
        rows = stored_rows(fresh_database_url)
        later = datetime.now(UTC) + timedelta(hours=2)
        assert retention.compact_logs(SqlUnitOfWork(database), later) == 3
        left = stored_rows(fresh_database_url)
        assert {row[0] for row in left} == {playing.id}  # the game in play keeps its rows
        verified = [audit.verify(SqlUnitOfWork(database), m.id) for m in over]
    finally:
        database.dispose()
    config = alembic_config(fresh_database_url)

    command.downgrade(config, "0006")
    assert "compacted_logs" not in tables(fresh_database_url)
    assert stored_rows(fresh_database_url) == rows  # byte for byte, every game's

    command.upgrade(config, "head")
    assert schema_differences(fresh_database_url) == []
    database = playing.database = Database(fresh_database_url)
    try:
        later = datetime.now(UTC) + timedelta(hours=2)
        assert retention.compact_logs(SqlUnitOfWork(database), later) == 3
        assert [audit.verify(SqlUnitOfWork(database), m.id) for m in over] == verified
        assert all(check["ok"] for check in verified)
        playing.move()  # and the game in play plays on
    finally:
        database.dispose()


def stored_answers(url: str) -> dict[str, object]:
    """Each kept answer's document by its key, read from the column 0008 keeps it in."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            query = text("SELECT key, CAST(body AS TEXT) FROM idempotent_responses")
            return {key: json.loads(body) for key, body in connection.execute(query)}
    finally:
        engine.dispose()


def test_0012_writes_stored_answers_back_as_json_and_packs_them_again(fresh_database_url):
    migrate_database(fresh_database_url)
    database = Database(fresh_database_url)
    try:
        match = Match(database)
        sent = {}  # key: (card, answer)
        for number in range(30):
            card = match.view["hand"][0]
            sent[f"move-{number}"] = (card, json_bytes(match.move(f"move-{number}").to_dict()))
    finally:
        database.dispose()
    config = alembic_config(fresh_database_url)

    command.downgrade(config, "0011_analysis")
    assert stored_answers(fresh_database_url) == {
        key: orjson.loads(answer) for key, (_, answer) in sent.items()
    }

    command.upgrade(config, "head")
    assert schema_differences(fresh_database_url) == []
    database = match.database = Database(fresh_database_url)
    try:
        for key, (card, answer) in sent.items():
            retry = playing.PlayCard(match.id, match.token, card, idempotency_key=key)
            again = playing.play_card(SqlUnitOfWork(database), retry)
            assert again.replayed and json_bytes(again.to_dict()) == answer
        match.move("move-30")  # and the game plays on
    finally:
        database.dispose()
