"""Migration 0006 (players and ratings) runs both ways on a database holding games."""

from __future__ import annotations

from typing import Any

from alembic import command
from sqlalchemy import create_engine, inspect, text

from app import create_app
from app.persistence.schema import alembic_config, migrate_database

from .test_migrations import schema_differences


def _app(url: str) -> Any:
    return create_app({"DATABASE_URL": url, "RATE_LIMIT": "off"})


def _stop(app: Any) -> None:
    app.extensions["basra_bot_runner"].stop()
    app.extensions["basra_db"].dispose()


def _columns(url: str, table: str) -> set[str]:
    engine = create_engine(url)
    try:
        found = inspect(engine)
        if table not in found.get_table_names():
            return set()
        return {column["name"] for column in found.get_columns(table)}
    finally:
        engine.dispose()


def test_0006_goes_down_and_up_again_under_games_and_they_play_on(fresh_database_url: str):
    migrate_database(fresh_database_url)
    app = _app(fresh_database_url)
    try:
        client = app.test_client()
        token = client.post("/players", json={"name": "Amira"}).get_json()["token"]
        held = client.post("/games", json={"players": [{"player": "me"}, {"bot": "greedy"}]},
                           headers={"Authorization": f"Bearer {token}"}).get_json()  # fmt: skip
        created = client.post("/games", json={"players": [{"name": "Badr"}, {"bot": "greedy"}]})
        created = created.get_json()
        seat_token = created["seats"][0]["token"]
    finally:
        _stop(app)
    config = alembic_config(fresh_database_url)

    command.downgrade(config, "0005")
    assert _columns(fresh_database_url, "players") == set()
    assert "player_id" not in _columns(fresh_database_url, "seats")
    assert "rated" not in _columns(fresh_database_url, "games")
    engine = create_engine(fresh_database_url)
    try:
        with engine.connect() as connection:
            games = connection.execute(text("SELECT count(*) FROM games")).scalar_one()
        assert games == 2
    finally:
        engine.dispose()

    command.upgrade(config, "head")
    assert schema_differences(fresh_database_url) == []
    app = _app(fresh_database_url)
    try:
        client = app.test_client()
        headers = {"Authorization": f"Bearer {seat_token}"}
        view = client.get(f"/games/{created['id']}", headers=headers).get_json()
        assert [seat["player"] for seat in view["seats"]] == [None, "bot-greedy"]
        assert view["rated"] is False
        assert client.get(f"/games/{created['id']}/verify").get_json()["ok"]
        played = client.post(f"/games/{created['id']}/moves", json={"card": view["hand"][0]},
                             headers=headers)  # fmt: skip
        assert played.status_code == 201
        # The downgrade forgot who held the player's seat; the log still says it, and the
        # audit tells the two apart.
        checks = client.get(f"/games/{held['id']}/verify").get_json()["checks"]
        assert not checks["players"]["ok"] and checks["replay"]["ok"]
    finally:
        _stop(app)
