"""Health, the OpenAPI document as YAML, and the human-readable docs' own assets."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, send_from_directory
from sqlalchemy import text
from swagger_ui_bundle import swagger_ui_path

from app.api.errors import problem
from app.persistence import Database

bp = Blueprint("meta", __name__)


@bp.get("/healthz")
def healthz() -> Response:
    database: Database = current_app.extensions["basra_db"]
    try:
        with database.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception:
        return problem("unavailable", "the database is not answering")
    return Response('{"status":"ok"}\n', mimetype="application/json")


@bp.get("/openapi.yaml")
def openapi_yaml() -> Response:
    api = current_app.extensions["basra_api"]
    return Response(api.spec.to_yaml(), mimetype="application/yaml")


@bp.get("/docs/assets/<path:filename>")
def docs_assets(filename: str) -> Response:
    # Swagger UI ships inside the swagger-ui-bundle package: no CDN is needed.
    return send_from_directory(swagger_ui_path, filename, max_age=3600)
