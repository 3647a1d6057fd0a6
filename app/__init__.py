"""The Basra game server. ``create_app`` builds it; nothing is built at import time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask

from app.config import MAX_BODY_BYTES, load_settings


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    from app.api import register_api
    from app.persistence import Database

    app = Flask(__name__)
    app.config.update(load_settings(config))
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    app.json.sort_keys = False  # type: ignore[attr-defined]
    database = Database(app.config["DATABASE_URL"])
    app.extensions["basra_db"] = database
    register_api(app)
    _register_web(app)
    return app


def _register_web(app: Flask) -> None:
    try:
        from app.web import bp
    except ImportError:  # the web client is optional for the API
        return
    app.register_blueprint(bp)
