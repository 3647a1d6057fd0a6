"""The /games resource: thin views that read the request, call one use case, answer."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify, request
from flask.views import MethodView
from flask_smorest import Blueprint

from app.api import schemas
from app.api.errors import PROBLEM_JSON, ApiError
from app.api.requests import (
    MAX_IDEMPOTENCY_KEY,
    VERSION_PATTERN,
    bearer_token,
    body_reader,
    idempotency_key,
    query,
    version_header,
)
from app.persistence import Database
from app.services import audit, games

blp = Blueprint("games", __name__, url_prefix="/games", description="Basra games")

BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]
OPTIONAL_BEARER: list[dict[str, list[str]]] = [{}, {"bearerAuth": []}]
PROBLEM = {
    "description": "A problem (RFC 9457)",
    "content": {PROBLEM_JSON: {"schema": schemas.ProblemSchema}},
}


def _db() -> Database:
    database: Database = current_app.extensions["basra_db"]
    return database


def _problems(*statuses: int) -> dict[int, Any]:
    return {status: PROBLEM for status in statuses}


def _body_doc(schema: type) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _query_after_game(schema: type, game_id: str, token: str | None) -> dict[str, Any]:
    """The query, refused only once the game (404) and the token (401/403) have passed."""
    try:
        return query(schema)
    except ApiError:
        audit.version(_db(), game_id, token)
        raise


def _version_or_none(name: str) -> int | None:
    """A version header's value, None when absent or malformed (no 400 here)."""
    try:
        return version_header(name)
    except ApiError:
        return None


def _with_etag(response: Response, version: int) -> Response:
    response.headers["ETag"] = f'"{version}"'
    response.headers["Vary"] = "Authorization"
    response.headers["Cache-Control"] = "no-cache"
    return response


@blp.route("")
class GameCollection(MethodView):
    @blp.doc(
        summary="Create a game",
        requestBody=_body_doc(schemas.CreateGameSchema),
        responses={
            201: {
                "description": "Created",
                "headers": {"Location": {"schema": {"type": "string"}}},
                "content": {"application/json": {"schema": schemas.CreatedGameSchema}},
            },
            **_problems(400, 413, 422, 429),
        },
    )
    def post(self) -> Response:
        spec = body_reader(schemas.CreateGameSchema)()
        created = games.create_game(_db(), spec)
        response = jsonify(created.body)
        response.status_code = 201
        response.headers["Location"] = f"/games/{created.game_id}"
        return _with_etag(response, created.body["state"]["version"])

    @blp.doc(
        summary="A page of games, newest first",
        parameters=[{"in": "query", "schema": schemas.GamesQuerySchema}],
        responses={
            200: {
                "description": "OK",
                "content": {"application/json": {"schema": schemas.GamesPageSchema}},
            },
            **_problems(422, 429),
        },
    )
    def get(self) -> Response:
        args = query(schemas.GamesQuerySchema)
        return jsonify(
            audit.list_games(_db(), args.get("status"), args["limit"], args.get("cursor"))
        )


@blp.route("/<game_id>")
class GameResource(MethodView):
    @blp.doc(
        summary="The caller's view of a game (a spectator's without a token)",
        security=OPTIONAL_BEARER,
        parameters=[
            {
                "in": "header",
                "name": "If-None-Match",
                "schema": {"type": "string"},
                "required": False,
            }
        ],
        responses={
            200: {
                "description": "OK",
                "headers": {"ETag": {"schema": {"type": "string"}}},
                "content": {"application/json": {"schema": schemas.ViewSchema}},
            },
            304: {"description": "Not modified since that ETag"},
            **_problems(400, 401, 403, 404, 429),
        },
    )
    def get(self, game_id: str) -> Response:
        token = bearer_token()
        known = _version_or_none("If-None-Match")  # a validator not of ours matches nothing
        if known is not None:
            current = audit.version(_db(), game_id, token)
            if known == current:
                return _with_etag(Response(status=304), current)
        view = audit.view(_db(), game_id, token)
        return _with_etag(jsonify(view), view["version"])


@blp.route("/<game_id>/join")
class JoinResource(MethodView):
    @blp.doc(
        summary="Take the lowest open seat",
        requestBody=_body_doc(schemas.JoinSchema),
        responses={
            201: {
                "description": "Joined",
                "content": {"application/json": {"schema": schemas.JoinedSchema}},
            },
            **_problems(400, 404, 409, 413, 422, 429),
        },
    )
    def post(self, game_id: str) -> Response:
        joined = games.join_game(_db(), game_id, body_reader(schemas.JoinSchema))
        response = jsonify(joined)
        response.status_code = 201
        return _with_etag(response, joined["state"]["version"])


@blp.route("/<game_id>/moves")
class MovesResource(MethodView):
    @blp.doc(
        summary="Play a card (then any bot replies)",
        security=BEARER,
        requestBody=_body_doc(schemas.MoveSchema),
        parameters=[
            {
                "in": "header",
                "name": "If-Match",
                "schema": {"type": "string", "pattern": VERSION_PATTERN},
                "required": False,
            },
            {
                "in": "header",
                "name": "Idempotency-Key",
                "schema": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_IDEMPOTENCY_KEY,
                    "pattern": schemas.NO_NUL_PATTERN,
                },
                "required": False,
            },
        ],
        responses={
            201: {
                "description": "Applied",
                "content": {"application/json": {"schema": schemas.MoveResultSchema}},
            },
            **_problems(400, 401, 403, 404, 409, 412, 413, 422, 429),
        },
    )
    def post(self, game_id: str) -> Response:
        read_body = body_reader(schemas.MoveSchema)

        def read_headers_and_body() -> dict[str, Any]:
            # Bad headers are refused with the body: after the game and token checks.
            version_header("If-Match")
            idempotency_key()
            return read_body()

        request_ = games.MoveRequest(
            game_id=game_id,
            token=bearer_token(),
            read_body=read_headers_and_body,  # called before the two values below are used
            if_match=_version_or_none("If-Match"),
            idempotency_key=request.headers.get("Idempotency-Key"),
        )
        status, body = games.play_move(_db(), request_)
        response = jsonify(body)
        response.status_code = status
        return _with_etag(response, body["state"]["version"])

    @blp.doc(
        summary="Every move so far, in order",
        responses={
            200: {
                "description": "OK",
                "content": {"application/json": {"schema": schemas.MovesSchema}},
            },
            **_problems(404, 429),
        },
    )
    def get(self, game_id: str) -> Response:
        return jsonify({"moves": audit.moves(_db(), game_id)})


@blp.route("/<game_id>/events")
class EventsResource(MethodView):
    @blp.doc(
        summary="The append-only log (redacted while the game is on)",
        security=OPTIONAL_BEARER,
        parameters=[{"in": "query", "schema": schemas.EventsQuerySchema}],
        responses={
            200: {
                "description": "OK",
                "content": {"application/json": {"schema": schemas.EventsSchema}},
            },
            **_problems(401, 403, 404, 422, 429),
        },
    )
    def get(self, game_id: str) -> Response:
        token = bearer_token()
        args = _query_after_game(schemas.EventsQuerySchema, game_id, token)
        return jsonify({"events": audit.events(_db(), game_id, token, args["after"])})


@blp.route("/<game_id>/replay")
class ReplayResource(MethodView):
    @blp.doc(
        summary="The complete state after the first N moves (finished games only)",
        parameters=[{"in": "query", "schema": schemas.ReplayQuerySchema}],
        responses={
            200: {
                "description": "OK",
                "content": {"application/json": {"schema": schemas.ReplaySchema}},
            },
            **_problems(404, 409, 422, 429),
        },
    )
    def get(self, game_id: str) -> Response:
        args = _query_after_game(schemas.ReplayQuerySchema, game_id, None)
        return jsonify(audit.replay_step(_db(), game_id, args["step"]))


@blp.route("/<game_id>/verify")
class VerifyResource(MethodView):
    @blp.doc(
        summary="Check the hash chain, the replay and (once over) the shuffle",
        responses={
            200: {
                "description": "OK",
                "content": {"application/json": {"schema": schemas.VerifySchema}},
            },
            **_problems(404, 429),
        },
    )
    def get(self, game_id: str) -> Response:
        return jsonify(audit.verify(_db(), game_id))


@blp.route("/<game_id>/fairness")
class FairnessResource(MethodView):
    @blp.doc(
        summary="The shuffle's commitment, client seed, and server seed once over",
        responses={
            200: {
                "description": "OK",
                "content": {"application/json": {"schema": schemas.FairnessSchema}},
            },
            **_problems(404, 429),
        },
    )
    def get(self, game_id: str) -> Response:
        return jsonify(audit.fairness(_db(), game_id))
