"""Health, readiness, metrics, the OpenAPI document as YAML, and the docs' own assets."""

from __future__ import annotations

import hmac
from typing import Any

from flask import Blueprint, Response, current_app, json, send_from_directory
from swagger_ui_bundle import swagger_ui_path

from app.api.errors import problem
from app.api.limits import counted_where
from app.api.problem_answers import problems
from app.api.requests import bearer_token, unit_of_work
from app.observability import metrics
from app.services.errors import Unavailable

bp = Blueprint("meta", __name__)


@bp.get("/healthz")
def healthz() -> Response:
    try:
        unit_of_work().ping()
    except Unavailable:
        return problem("unavailable", "the database is not answering")
    return Response('{"status":"ok"}\n', mimetype="application/json")


@bp.get("/readyz")
def readyz() -> Response:
    """Ready for traffic: the database answers and its schema is the one this code expects."""
    try:
        current, newest = unit_of_work().schema_revisions()
    except Unavailable:
        return problem("unavailable", "the database is not answering", {"Retry-After": "1"})
    if current != newest:
        at = ", ".join(sorted(current)) or "no migration"
        return problem(
            "unavailable",
            f"the database schema is at {at}, this server needs {', '.join(sorted(newest))}: "
            "run `basra migrate`",
            {"Retry-After": "5"},
        )
    limiter = current_app.extensions.get("basra_limiter")
    body = {"status": "ready", "schema": sorted(newest), "rate_limits": counted_where(limiter)}
    return Response(json.dumps(body) + "\n", mimetype="application/json")


@bp.get("/metrics")
def metrics_text() -> Response:
    """Prometheus text format, every worker process of this instance in one scrape."""
    expected = current_app.config.get("METRICS_TOKEN")
    if expected:
        given = bearer_token() or ""
        if not hmac.compare_digest(given.encode(), str(expected).encode()):
            return problem(
                "unauthorized",
                "/metrics needs the METRICS_TOKEN as a bearer token",
                {"WWW-Authenticate": 'Bearer realm="metrics"'},
            )
    return Response(metrics.render(), mimetype=None, content_type=metrics.CONTENT_TYPE)


@bp.get("/openapi.yaml")
def openapi_yaml() -> Response:
    # Rendered once a process: YAML of the whole spec takes about 0.3 s of CPU, which anyone
    # could otherwise spend for us as often as the address limit lets them.
    text = current_app.extensions.get("basra_openapi_yaml")
    if text is None:
        text = current_app.extensions["basra_api"].spec.to_yaml()
        current_app.extensions["basra_openapi_yaml"] = text
    return Response(text, mimetype="application/yaml")


# Swagger UI ships inside the swagger-ui-bundle-v2 package (no CDN). Only the files the page
# uses are served, not the package's whole folder (its own index.html, oauth2 page, maps).
DOCS_ASSETS = frozenset(
    {"swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js",
     "favicon-32x32.png", "favicon-16x16.png"}
)  # fmt: skip
DOCS_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Egyptian Basra API</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link href="/docs/assets/swagger-ui.css" rel="stylesheet" type="text/css">
</head>
<body>
  <div id="swagger-ui-container"></div>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/basra-docs.js"></script>
</body>
</html>
"""
# The page's start-up as a file of its own: the Content-Security-Policy runs no inline script.
DOCS_SCRIPT = """window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui-container" });
});
"""


def docs_page() -> Response:
    return Response(DOCS_PAGE, mimetype="text/html")


@bp.get("/docs/assets/<path:filename>")
def docs_assets(filename: str) -> Response:
    if filename == "basra-docs.js":
        return Response(DOCS_SCRIPT, mimetype="text/javascript")
    if filename not in DOCS_ASSETS:
        return problem("not_found", "no such file among the docs' assets")
    return send_from_directory(swagger_ui_path, filename, max_age=3600)


def _json(description: str, properties: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "required": list(properties), "properties": properties}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def document(api: Any, app: Any) -> None:
    """The operating endpoints in openapi.yaml (plain Flask routes: smorest does not see them).
    None of them is rate limited (app/api/limits.py exempts them for balancers and scrapers)."""
    api.spec.tag({"name": "operations", "description": "For balancers, orchestrators and scrapers"})
    rules = {rule.rule: rule for rule in app.url_map.iter_rules()}
    for path, operation in _operations().items():
        api.spec.path(rule=rules[path], operations={"get": {**operation, "tags": ["operations"]}})


COUNTED_WHERE = {
    "type": "string",
    "enum": ["storage", "fallback", "off"],
    "description": "Where the rate limits are counted: `storage` (Redis, or the file the "
    "workers of an instance share), `fallback` (this process alone, in memory, while that "
    "storage does not answer) or `off`",
}


def _operations() -> dict[str, Any]:
    ok = {"type": "string", "enum": ["ok"], "description": "`ok`"}
    ready = {"type": "string", "enum": ["ready"], "description": "`ready`"}
    schema = {"type": "array", "items": {"type": "string"},
              "description": "The migration(s) the database is at: the newest"}  # fmt: skip
    operations = {
        "/healthz": {
            "operationId": "getHealth",
            "summary": "Liveness: the process answers and reaches the database",
            "description": "For load balancers and orchestrators; anyone may call it, it changes "
            "nothing and is never rate limited. 503 while the database does not answer.",
            "responses": {
                200: _json("Alive", {"status": ok}),
                **problems(always=("unavailable",)),
            },
        },
        "/readyz": {
            "operationId": "getReadiness",
            "summary": "Readiness: the database answers and its schema is the newest",
            "description": "Send traffic here only while it answers 200. Anyone may call it, it "
            "changes nothing and is never rate limited. 503 (`unavailable`) while the database "
            "does not answer or is not migrated to the schema this code needs.",
            "responses": {
                200: _json(
                    "Ready", {"status": ready, "schema": schema, "rate_limits": COUNTED_WHERE}
                ),
                **problems(always=("unavailable",)),
            },
        },
        "/metrics": {
            "operationId": "getMetrics",
            "summary": "Prometheus metrics of every worker process of this instance",
            "description": "Prometheus text format: `http_requests_total`, "
            "`http_request_duration_seconds`, `basra_moves_total`, `basra_games_created_total`, "
            "`basra_bot_decision_seconds`, `basra_stream_clients`, `basra_turn_timeouts_total`. "
            "When the server has a `METRICS_TOKEN`, only a scrape with it as bearer token is "
            "answered. Changes nothing; never rate limited.",
            "security": [{}, {"bearerAuth": []}],
            "responses": {
                200: {
                    "description": "The metrics",
                    "content": {"text/plain": {"schema": {"type": "string"}}},
                },
                **problems("unauthorized", always=()),
            },
        },
    }
    return operations
