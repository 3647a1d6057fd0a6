"""The /games resource: thin views that read the request, call one use case, answer.

This module holds the resource's blueprint, what all of its views share (their security, the
ETag, the read refused only after the access check), and the game itself: created, listed,
viewed. The routes of taking part (game_play.py), of the audit (game_audit.py) and of the live
stream (stream.py) are added to the same ``blp``, after these."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Response, current_app
from flask.views import MethodView

from app.api import request_schemas, schemas, view_schemas
from app.api.bearers import caller, calling_player
from app.api.blueprints import Answer, ApiBlueprint
from app.api.errors import ApiError
from app.api.requests import after_access, clock_now, unit_of_work, version_header
from app.services import audit, games
from app.services.access import Bearer
from app.services.creation import Player

T = TypeVar("T")
blp = ApiBlueprint(
    "games",
    __name__,
    url_prefix="/games",
    description="Create games, take seats, play cards, and audit what happened.",
    # openapi.yaml's order of the resource's paths, whichever module adds each route.
    paths=(
        "",
        "/<game_id>",
        "/<game_id>/join",
        "/<game_id>/moves",
        "/<game_id>/resign",
        "/<game_id>/rematch",
        "/<game_id>/events",
        "/<game_id>/replay",
        "/<game_id>/verify",
        "/<game_id>/fairness",
        "/<game_id>/analysis",
        "/<game_id>/stream",
    ),
)

BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]
OPTIONAL_BEARER: list[dict[str, list[str]]] = [{}, {"bearerAuth": []}]
ETAG = {
    "ETag": {
        "description": 'The game\'s version, quoted (`"12"`): send it back as `If-None-Match`',
        "schema": {"type": "string"},
    }
}
LOCATION = {
    "Location": {
        "description": "The new game's URL, `/games/{id}`",
        "schema": {"type": "string"},
    }
}


def waiting_seconds() -> int:
    return int(current_app.config["WAITING_TTL_SECONDS"])


def checked(game_id: str, token: Bearer, read: Callable[[], T], seated_only: bool = False) -> T:
    """``read()`` a part of the request, refused only once the game (404) and the token
    (401/403) have passed."""
    return after_access(
        lambda: games.check_access(unit_of_work(), game_id, token, seated_only, now=clock_now()),
        read,
    )


def _version_or_none(name: str) -> int | None:
    """A version header's value, None when absent or malformed (no 400 here)."""
    try:
        return version_header(name)
    except ApiError:
        return None


def access(seated_only: bool = False, token: bool = True) -> Callable[..., object]:
    """The check a refused read of the request waits for (``@blp.arguments``'s ``first``):
    the game (404), then the caller's token (401/403) unless the view takes none."""

    def check(game_id: str, **_path: str) -> object:
        bearer = caller() if token else None
        return games.check_access(unit_of_work(), game_id, bearer, seated_only, now=clock_now())

    return check


def etag(version: int, private: bool = False) -> dict[str, str]:
    """``private``: the answer carries a token or a hand, which no cache may keep (no-store);
    a spectator's view may be kept but must be revalidated (no-cache)."""
    return {
        "ETag": f'"{version}"',
        "Vary": "Authorization",
        "Cache-Control": "no-store" if private else "no-cache",
    }


def with_etag(response: Response, version: int, private: bool = False) -> Response:
    response.headers.update(etag(version, private))
    return response


@blp.route("")
class GameCollection(MethodView):
    @blp.doc(
        operationId="createGame",
        summary="Create a game",
        description=(
            "Anyone may create a game; no token is needed. Creates its seats (humans seated "
            "now, bots, or open seats to be joined), commits to the server seed of the fair "
            "shuffle (FAIRNESS.md), and, when no seat is open, deals round 1 at once: any bot "
            "whose turn it is plays inside this request. The answer holds the token of every "
            "human seat created now: it is shown once, here. A game of bots alone is played "
            "to its end inside this request (its `target_score` is at most 101). A seat "
            '`{"player": "me"}` is held by the player whose bearer sends the request (POST '
            "/players; 401 without one), which then acts for it as its token does; a player "
            "holds at most one seat of a game (409 `already_seated`). A `rated` game changes "
            "its players' ratings once, when it ends (docs/ratings.md)."
        ),
    )
    @blp.arguments(request_schemas.CreateGameSchema)
    @blp.response(
        201,
        schemas.CreatedGameSchema,
        headers=LOCATION | ETAG,
        description="Created: the game, its seats' tokens, and the creator's view",
    )
    @blp.problems("bad_request", "unauthorized", "already_seated", "payload_too_large",
                  "unsupported_media_type", "invalid_request", "invalid_card")  # fmt: skip
    def post(self, spec: dict[str, Any]) -> Answer:
        players = _players(spec["players"])
        created = games.create_game(
            unit_of_work(), players, spec.get("rules"), spec.get("deck"),
            public=spec.get("public", False),
            waiting_seconds=waiting_seconds(), now=clock_now(),
            bot_backlog=current_app.config["BOT_BACKLOG"], rated=spec.get("rated", False),
        )  # fmt: skip
        if created.bots_only:  # 201 now; the match is played in the background
            current_app.extensions["basra_bot_runner"].wake(created.game_id)
        return created_answer(created)

    @blp.doc(
        operationId="listGames",
        summary="A page of games, newest first",
        description=(
            "Anyone may list games; no token is needed, and nothing changes. Each entry is "
            "public information only (seats, scores, winner). Follow `next_cursor` for older "
            "games; `status` keeps one kind."
        ),
    )
    @blp.arguments(request_schemas.GamesQuerySchema, location="query")
    @blp.response(200, schemas.GamesPageSchema, description="A page of games")
    @blp.problems("invalid_request")
    def get(self, args: dict[str, Any]) -> Answer:
        uow = unit_of_work()
        return audit.list_games(uow, args.get("status"), args["limit"], args.get("cursor"))


@blp.route("/<game_id>")
class GameResource(MethodView):
    @blp.doc(
        operationId="getGame",
        summary="The caller's view of a game (a spectator's without a token)",
        description=(
            "With a seat's token: that seat's view, its hand included, and on its turn "
            "`legal_moves`. Without one: a spectator's view (public information only). "
            "Nothing changes. Poll cheaply with `If-None-Match: <ETag>`: 304 while the "
            "version is the same."
        ),
        security=OPTIONAL_BEARER,
        parameters=[
            {
                "in": "header",
                "name": "If-None-Match",
                "description": "The ETag of the view you hold: 304 if the game has not changed",
                "schema": {"type": "string"},
                "required": False,
            }
        ],
    )
    @blp.response(200, view_schemas.ViewSchema, description="The view", headers=ETAG)
    @blp.alt_response(304, description="Not modified since that ETag", headers=ETAG,
                      success=True)  # fmt: skip
    @blp.problems("unauthorized", "forbidden", "not_found")
    def get(self, game_id: str) -> Answer:
        token = caller()
        known = _version_or_none("If-None-Match")  # a validator not of ours matches nothing
        if known is not None:
            current = games.check_access(unit_of_work(), game_id, token, now=clock_now()).version
            if known == current:
                return with_etag(Response(status=304), current, private=token is not None)
        view = audit.view(unit_of_work(), game_id, token, now=clock_now())
        return view, etag(view["version"], private=token is not None)


def _players(entries: list[dict[str, Any]]) -> list[Player]:
    """The seats asked for; ``{"player": "me"}`` is the player whose bearer sent the request,
    seated under its own name (401 without a player's bearer)."""
    me = calling_player() if any("player" in entry for entry in entries) else None
    seats = []
    for entry in entries:
        if "player" in entry and me is not None:
            seats.append(Player(name=me.name, seed=entry.get("seed"), player_id=me.id))
        else:
            seats.append(Player(**entry))
    return seats


def created_answer(created: games.Created) -> Answer:
    """A new game's answer (POST /games, and a rematch): its URL, and the creator's ETag."""
    location = {"Location": f"/games/{created.game_id}"}
    return created_body(created), location | etag(created.state["version"], private=True)


def created_body(created: games.Created) -> dict[str, Any]:
    invite = {"invite": created.invite} if created.invite is not None else {}
    return {
        **invite,
        "id": created.game_id,
        "status": created.status,
        "seats": created.seats,
        "rules": created.rules,
        "fairness": created.fairness,
        "moves": created.moves,
        "state": created.state,
    }
