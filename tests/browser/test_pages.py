"""The web blueprint serves the pages and their files (no browser needed)."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from app.web import bp


def client() -> FlaskClient:
    app = Flask("pages")
    app.register_blueprint(bp)
    return app.test_client()


def test_the_lobby_and_the_play_page_are_the_same_page() -> None:
    web = client()
    lobby = web.get("/")
    play = web.get("/play/abc123")
    assert lobby.status_code == play.status_code == 200
    assert lobby.mimetype == "text/html"
    assert b"/static/web/play.js" in lobby.data
    assert play.data == lobby.data
    lobby.close()
    play.close()


def test_the_replay_page_and_the_scripts_are_served() -> None:
    web = client()
    page = web.get("/replay/abc123")
    assert page.status_code == 200 and b"/static/web/replay.js" in page.data
    for name in (
        "play.js",
        "lobby.js",
        "table.js",
        "live.js",
        "replay.js",
        "basra.js",
        "shuffle.js",
    ):
        script = web.get(f"/static/web/{name}")
        assert script.status_code == 200
        assert "javascript" in script.mimetype
        script.close()
    style = web.get("/static/web/style.css")
    assert style.status_code == 200 and style.mimetype == "text/css"
    style.close()
    page.close()
