"""The HTTP layer: blueprints, schemas, and the one place errors become problem+json."""

from __future__ import annotations

from typing import Any

from flask import Flask

# game_play, game_audit, game_analysis and stream add their routes to games.blp (whose ``paths``
# orders them).
from app.api import (
    contract,
    examples,
    game_analysis,  # noqa: F401 (imported for its routes)
    game_audit,  # noqa: F401 (imported for its routes)
    game_play,  # noqa: F401 (imported for its routes)
    games,
    meta,
    players,
    record_schemas,
    rules,
    schemas,
    seeks,
    stream,
)
from app.api.bearers import SignedTokens
from app.api.blueprints import OperationOrderPlugin
from app.api.errors import ProblemApi, register_error_handlers
from app.api.headers import install_security_headers
from app.api.limits import install_limits

API_SETTINGS: dict[str, Any] = {
    "API_TITLE": "Egyptian Basra",
    "API_VERSION": "3.0.1",
    "OPENAPI_VERSION": "3.1.0",
    "OPENAPI_URL_PREFIX": "/",
    "OPENAPI_JSON_PATH": "openapi.json",
    "OPENAPI_SWAGGER_UI_PATH": "/docs",
    "OPENAPI_SWAGGER_UI_URL": "/docs/assets/",
    "API_SPEC_OPTIONS": {
        "info": {
            "description": (
                "The reference server for Egyptian Basra: rules, fair shuffle, event log, "
                "replay and audit. Errors are application/problem+json with a stable `code`."
            )
        },
        "components": {"securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}}},
    },
}


def register_api(app: Flask) -> ProblemApi:
    for key, value in API_SETTINGS.items():
        app.config.setdefault(key, value)
    api = ProblemApi(app)
    contract.install(api)
    api.spec.components.schema("StreamRecordType", stream.RECORD_TYPE)
    api.spec.components.schema("Problem", schema=schemas.ProblemSchema)
    recorded = examples.load()
    plugin = examples.ExamplesPlugin(recorded)
    plugin.init_spec(api.spec)
    api.spec.plugins.append(plugin)
    for (
        name,
        schema,
    ) in record_schemas.STREAM_RECORDS.items():  # the stream's records, for others to $ref
        example = recorded.get(examples.RECORDS_KEY, {}).get(name)
        api.spec.components.schema(
            stream.RECORD_COMPONENTS[name],
            {"examples": [example]} if example is not None else None,
            schema=schema,
        )
    api.spec.components.schema("StreamEvent", stream.EVENT)
    order = OperationOrderPlugin()  # last: after every plugin that adds to an operation
    order.init_spec(api.spec)
    api.spec.plugins.append(order)
    api.register_blueprint(games.blp)
    api.register_blueprint(rules.blp)
    api.register_blueprint(players.blp)
    api.register_blueprint(players.leaderboard_blp)
    app.extensions["basra_signed_tokens"] = SignedTokens(app.config)
    api.register_blueprint(seeks.blp)
    app.register_blueprint(meta.bp)
    meta.document(api, app)
    # flask-smorest's own /docs page starts Swagger UI with an inline script.
    app.view_functions["api-docs.openapi_swagger_ui"] = meta.docs_page
    install_security_headers(app)
    register_error_handlers(app)
    app.extensions["basra_api"] = api
    app.extensions["basra_limiter"] = install_limits(app, games.blp, seeks.blp)
    return api
