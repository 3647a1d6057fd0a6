"""The /players resource and the leaderboard: thin views over app/services/players.py."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify
from flask.views import MethodView
from flask_smorest import Blueprint

from app.api import player_schemas as schemas
from app.api.bearers import calling_player
from app.api.problem_answers import problems
from app.api.request_schemas import GamesQuerySchema
from app.api.requests import json_body, query, unit_of_work
from app.services import players

blp = Blueprint(
    "players", __name__, url_prefix="/players",
    description="Players who last across games: their tokens, ratings and games.",
)  # fmt: skip
leaderboard_blp = Blueprint(
    "leaderboard", __name__, url_prefix="/leaderboard", description="The highest rated players."
)
BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]


def _answer(schema: type, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _private(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response


@blp.route("")
class PlayerCollection(MethodView):
    @blp.doc(
        operationId="createPlayer",
        summary="Create a player",
        description=(
            "Anyone may create a player; no token is needed. The answer holds the player's "
            "bearer token, shown once, here: with it the player takes seats (`{\"player\": "
            "\"me\"}` in POST /games, or POST /games/{game_id}/join) and acts for them. An "
            "integrator that signs its users in needs none: its signed tokens (PLAYER_JWT_* "
            "settings) act as the player their `sub` names, made on first sight."
        ),
        requestBody={"required": True,
                     "content": {"application/json": {"schema": schemas.CreatePlayerSchema}}},
        responses={
            201: _answer(schemas.CreatedPlayerSchema, "Created: the player and its token"),
            **problems("bad_request", "payload_too_large", "unsupported_media_type",
                       "invalid_request"),
        },
    )  # fmt: skip
    def post(self) -> Response:
        body = json_body(schemas.CreatePlayerSchema)
        created = players.create_player(unit_of_work(), body["name"])
        response = jsonify(created.to_dict())
        response.status_code = 201
        response.headers["Location"] = f"/players/{created.player.id}"
        return _private(response)


@blp.route("/me")
class MeResource(MethodView):
    @blp.doc(
        operationId="getMe",
        summary="The player whose bearer sends the request",
        description="A player's own token, or a signed token of an integrator; nothing changes.",
        security=BEARER,
        responses={
            200: _answer(schemas.PlayerProfileSchema, "The player"),
            **problems("unauthorized"),
        },
    )
    def get(self) -> Response:
        return _private(jsonify(players.profile(calling_player())))

    @blp.doc(
        operationId="renameMe",
        summary="Rename the player whose bearer sends the request",
        description=(
            "The new name is the one the player's later seats take; the seats it already "
            "holds keep the name they were taken with."
        ),
        security=BEARER,
        requestBody={"required": True,
                     "content": {"application/json": {"schema": schemas.RenamePlayerSchema}}},
        responses={
            200: _answer(schemas.PlayerProfileSchema, "The player, renamed"),
            **problems("unauthorized", "bad_request", "payload_too_large",
                       "unsupported_media_type", "invalid_request"),
        },
    )  # fmt: skip
    def patch(self) -> Response:
        player = calling_player()  # API.md's order: the token, then the body
        body = json_body(schemas.RenamePlayerSchema)
        renamed = players.rename_player(unit_of_work(), player, body["name"])
        return _private(jsonify(players.profile(renamed)))


@blp.route("/<player_id>")
class PlayerResource(MethodView):
    @blp.doc(
        operationId="getPlayer",
        summary="A player: name, rating and results",
        description="Anyone may read it; nothing changes. Each bot level is a player too.",
        responses={
            200: _answer(schemas.PlayerProfileSchema, "The player"),
            **problems("not_found"),
        },
    )
    def get(self, player_id: str) -> Response:
        return jsonify(players.profile(players.find_player(unit_of_work(), player_id)))


@blp.route("/<player_id>/games")
class PlayerGamesResource(MethodView):
    @blp.doc(
        operationId="listPlayerGames",
        summary="A page of a player's games, newest first",
        description=(
            "Anyone may read it; nothing changes. Each game the player holds a seat of (or "
            "one held for it: a rematch it has not taken yet), with every seat's occupant, the "
            "scores, when it last changed, whether the player is to move (`your_turn`), its "
            "result and, for a rated one that ended, the rating before and after it. Follow "
            "`next_cursor` for older games; `status` keeps one kind."
        ),
        parameters=[{"in": "query", "schema": GamesQuerySchema}],
        responses={
            200: _answer(schemas.PlayerGamesPageSchema, "A page of the player's games"),
            **problems("not_found", "invalid_request"),
        },
    )
    def get(self, player_id: str) -> Response:
        args = query(GamesQuerySchema)
        page = players.player_games(
            unit_of_work(), player_id, args.get("status"), args["limit"], args.get("cursor")
        )
        return jsonify(page)


@leaderboard_blp.route("")
class LeaderboardResource(MethodView):
    @leaderboard_blp.doc(
        operationId="getLeaderboard",
        summary="The highest rated players",
        description=(
            "Anyone may read it; nothing changes. Players by rating, the highest first; "
            "provisional ratings (docs/ratings.md) are left out."
        ),
        parameters=[{"in": "query", "schema": schemas.LeaderboardQuerySchema}],
        responses={
            200: _answer(schemas.LeaderboardSchema, "The leaderboard"),
            **problems("invalid_request"),
        },
    )
    def get(self) -> Response:
        args = query(schemas.LeaderboardQuerySchema)
        return jsonify(players.leaderboard(unit_of_work(), args["limit"]))
