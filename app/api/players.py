"""The /players resource and the leaderboard: thin views over app/services/players.py."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from app.api import player_schemas as schemas
from app.api.bearers import calling_player
from app.api.blueprints import Answer, ApiBlueprint
from app.api.request_schemas import GamesQuerySchema
from app.api.requests import unit_of_work
from app.services import players

blp = ApiBlueprint(
    "players", __name__, url_prefix="/players",
    description="Players who last across games: their tokens, ratings and games.",
    paths=("", "/me", "/<player_id>", "/<player_id>/games"),
)  # fmt: skip
leaderboard_blp = ApiBlueprint(
    "leaderboard", __name__, url_prefix="/leaderboard",
    description="The highest rated players.", paths=("",),
)  # fmt: skip
BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]


# The answer carries the player's token or own profile, which no cache may keep.
PRIVATE = {"Cache-Control": "no-store"}


@blp.route("")
class PlayerCollection(MethodView):
    @blp.doc(
        operationId="createPlayer",
        summary="Create a player",
        description=(
            "Anyone may create a player; no token is needed. The answer holds the player's "
            'bearer token, shown once, here: with it the player takes seats (`{"player": '
            '"me"}` in POST /games, or POST /games/{game_id}/join) and acts for them. An '
            "integrator that signs its users in needs none: its signed tokens (PLAYER_JWT_* "
            "settings) act as the player their `sub` names, made on first sight."
        ),
    )
    @blp.arguments(schemas.CreatePlayerSchema)
    @blp.response(201, schemas.CreatedPlayerSchema, description="Created: the player and its token")
    @blp.problems("bad_request", "payload_too_large", "unsupported_media_type", "invalid_request")
    def post(self, body: dict[str, Any]) -> Answer:
        created = players.create_player(unit_of_work(), body["name"])
        return created.to_dict(), {"Location": f"/players/{created.player.id}", **PRIVATE}


@blp.route("/me")
class MeResource(MethodView):
    @blp.doc(
        operationId="getMe",
        summary="The player whose bearer sends the request",
        description="A player's own token, or a signed token of an integrator; nothing changes.",
        security=BEARER,
    )
    @blp.response(200, schemas.PlayerProfileSchema, description="The player")
    @blp.problems("unauthorized")
    def get(self) -> Answer:
        return players.profile(calling_player()), PRIVATE

    @blp.doc(
        operationId="renameMe",
        summary="Rename the player whose bearer sends the request",
        description=(
            "The new name is the one the player's later seats take; the seats it already "
            "holds keep the name they were taken with."
        ),
        security=BEARER,
    )
    # API.md's order: the token, then the body
    @blp.arguments(schemas.RenamePlayerSchema, first=calling_player)
    @blp.response(200, schemas.PlayerProfileSchema, description="The player, renamed")
    @blp.problems("unauthorized", "bad_request", "payload_too_large", "unsupported_media_type",
                  "invalid_request")  # fmt: skip
    def patch(self, body: dict[str, Any]) -> Answer:
        renamed = players.rename_player(unit_of_work(), calling_player(), body["name"])
        return players.profile(renamed), PRIVATE


@blp.route("/<player_id>")
class PlayerResource(MethodView):
    @blp.doc(
        operationId="getPlayer",
        summary="A player: name, rating and results",
        description="Anyone may read it; nothing changes. Each bot level is a player too.",
    )
    @blp.response(200, schemas.PlayerProfileSchema, description="The player")
    @blp.problems("not_found")
    def get(self, player_id: str) -> Answer:
        return players.profile(players.find_player(unit_of_work(), player_id))


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
    )
    @blp.arguments(GamesQuerySchema, location="query")
    @blp.response(200, schemas.PlayerGamesPageSchema, description="A page of the player's games")
    @blp.problems("not_found", "invalid_request")
    def get(self, args: dict[str, Any], player_id: str) -> Answer:
        return players.player_games(
            unit_of_work(), player_id, args.get("status"), args["limit"], args.get("cursor")
        )


@leaderboard_blp.route("")
class LeaderboardResource(MethodView):
    @leaderboard_blp.doc(
        operationId="getLeaderboard",
        summary="The highest rated players",
        description=(
            "Anyone may read it; nothing changes. Players by rating, the highest first; "
            "provisional ratings (docs/ratings.md) are left out."
        ),
    )
    @leaderboard_blp.arguments(schemas.LeaderboardQuerySchema, location="query")
    @leaderboard_blp.response(200, schemas.LeaderboardSchema, description="The leaderboard")
    @leaderboard_blp.problems("invalid_request")
    def get(self, args: dict[str, Any]) -> Answer:
        return players.leaderboard(unit_of_work(), args["limit"])
