"""The /games resource: thin views that read the request, call one use case, answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Response, current_app, jsonify
from flask.views import MethodView
from flask_smorest import Blueprint

from app.api import request_schemas, schema_fields, schemas
from app.api.bearers import caller, calling_player
from app.api.contract import problems
from app.api.errors import ApiError
from app.api.requests import (
    MAX_IDEMPOTENCY_KEY,
    VERSION_PATTERN,
    after_access,
    bearer_token,
    clock_now,
    idempotency_key,
    json_body,
    query,
    unit_of_work,
    version_header,
)
from app.services import audit, games, playing
from app.services.access import Bearer
from app.services.creation import Player

T = TypeVar("T")
blp = Blueprint(
    "games",
    __name__,
    url_prefix="/games",
    description="Create games, take seats, play cards, and audit what happened.",
)

BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]
OPTIONAL_BEARER: list[dict[str, list[str]]] = [{}, {"bearerAuth": []}]
ETAG = {
    "ETag": {
        "description": 'The game\'s version, quoted (`"12"`): send it back as `If-None-Match`',
        "schema": {"type": "string"},
    }
}


def _waiting_seconds() -> int:
    return int(current_app.config["WAITING_TTL_SECONDS"])


def _body_doc(schema: type) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


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


def _with_etag(response: Response, version: int, private: bool = False) -> Response:
    """``private``: the answer carries a token or a hand, which no cache may keep (no-store);
    a spectator's view may be kept but must be revalidated (no-cache)."""
    response.headers["ETag"] = f'"{version}"'
    response.headers["Vary"] = "Authorization"
    response.headers["Cache-Control"] = "no-store" if private else "no-cache"
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
        requestBody=_body_doc(request_schemas.CreateGameSchema),
        responses={
            201: {
                "description": "Created: the game, its seats' tokens, and the creator's view",
                "headers": {
                    "Location": {
                        "description": "The new game's URL, `/games/{id}`",
                        "schema": {"type": "string"},
                    },
                    **ETAG,
                },
                "content": {"application/json": {"schema": schemas.CreatedGameSchema}},
            },
            **problems(
                "bad_request",
                "unauthorized",
                "already_seated",
                "payload_too_large",
                "unsupported_media_type",
                "invalid_request",
                "invalid_card",
            ),
        },
    )
    def post(self) -> Response:
        spec = json_body(request_schemas.CreateGameSchema)
        players = _players(spec["players"])
        created = games.create_game(
            unit_of_work(), players, spec.get("rules"), spec.get("deck"),
            public=spec.get("public", False),
            waiting_seconds=_waiting_seconds(), now=clock_now(),
            bot_backlog=current_app.config["BOT_BACKLOG"], rated=spec.get("rated", False),
        )  # fmt: skip
        if created.bots_only:  # 201 now; the match is played in the background
            current_app.extensions["basra_bot_runner"].wake(created.game_id)
        response = jsonify(_created_body(created))
        response.status_code = 201
        response.headers["Location"] = f"/games/{created.game_id}"
        return _with_etag(response, created.state["version"], private=True)

    @blp.doc(
        operationId="listGames",
        summary="A page of games, newest first",
        description=(
            "Anyone may list games; no token is needed, and nothing changes. Each entry is "
            "public information only (seats, scores, winner). Follow `next_cursor` for older "
            "games; `status` keeps one kind."
        ),
        parameters=[{"in": "query", "schema": request_schemas.GamesQuerySchema}],
        responses={
            200: {
                "description": "A page of games",
                "content": {"application/json": {"schema": schemas.GamesPageSchema}},
            },
            **problems("invalid_request"),
        },
    )
    def get(self) -> Response:
        args = query(request_schemas.GamesQuerySchema)
        return jsonify(
            audit.list_games(unit_of_work(), args.get("status"), args["limit"], args.get("cursor"))
        )


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
        responses={
            200: {
                "description": "The view",
                "headers": ETAG,
                "content": {"application/json": {"schema": schemas.ViewSchema}},
            },
            304: {"description": "Not modified since that ETag", "headers": ETAG},
            **problems("unauthorized", "forbidden", "not_found"),
        },
    )
    def get(self, game_id: str) -> Response:
        token = caller()
        known = _version_or_none("If-None-Match")  # a validator not of ours matches nothing
        if known is not None:
            current = games.check_access(unit_of_work(), game_id, token, now=clock_now()).version
            if known == current:
                return _with_etag(Response(status=304), current, private=token is not None)
        view = audit.view(unit_of_work(), game_id, token, now=clock_now())
        return _with_etag(jsonify(view), view["version"], private=token is not None)


@blp.route("/<game_id>/join")
class JoinResource(MethodView):
    @blp.doc(
        operationId="joinGame",
        summary="Take the lowest open seat",
        description=(
            "Joining needs the game's `invite` (given to its creator once) unless the game was "
            "created `public`; no token is needed. Seats the caller in the lowest open seat and "
            "answers its token (shown once). Sent with a player's bearer, the seat is that "
            "player's, under its name (a `name` is then not needed); a rated game's seats are "
            "taken so only (403 `player_required`), and a player holds one seat of a game at "
            "most (409 `already_seated`). When the last open seat is filled the game deals "
            "round 1, and bots whose turn it is play inside this request; until then the game "
            "waits `WAITING_TTL_SECONDS` (24 h) more, then ends `cancelled`."
        ),
        requestBody=_body_doc(request_schemas.JoinSchema),
        responses={
            201: {
                "description": "Joined: your seat, its token, and your view",
                "headers": ETAG,
                "content": {"application/json": {"schema": schemas.JoinedSchema}},
            },
            **problems(
                "bad_request",
                "unauthorized",
                "forbidden",
                "player_required",
                "not_found",
                "game_full",
                "already_seated",
                "payload_too_large",
                "unsupported_media_type",
                "invalid_request",
            ),
        },
    )
    def post(self, game_id: str) -> Response:
        body = checked(game_id, None, lambda: json_body(request_schemas.JoinSchema))
        player = calling_player() if bearer_token() is not None else None
        name = player.name if player is not None else body.get("name")
        if name is None:
            raise ApiError("invalid_request", "joining needs a name, or a player's bearer",
                           errors={"name": ["Missing data for required field."]})  # fmt: skip
        joined = games.join_game(
            unit_of_work(), game_id, name, body.get("seed"), invite=body.get("invite"),
            waiting_seconds=_waiting_seconds(), now=clock_now(),
            player_id=player.id if player is not None else None,
        )  # fmt: skip
        response = jsonify(
            {"seat": joined.seat, "token": joined.token, "moves": joined.moves,
             "state": joined.state}
        )  # fmt: skip
        response.status_code = 201
        return _with_etag(response, joined.state["version"], private=True)


@blp.route("/<game_id>/moves")
class MovesResource(MethodView):
    @blp.doc(
        operationId="playCard",
        summary="Play a card (then any bot replies)",
        description=(
            "Only the seat whose turn it is may play, with its token. Plays the card: it takes "
            "the largest capture the rules allow (RULES.md section 3), or is trailed. Then "
            "every bot whose turn it is plays, and a new deal or round follows when hands or "
            "the round run out, all inside this request. A refused move changes nothing. "
            "`If-Match` refuses the move if the game has moved on; a retry with the same "
            "`Idempotency-Key` and body answers the first response again and applies nothing, "
            "for a day (`IDEMPOTENCY_SECONDS`); after that the key is forgotten and a request "
            "with it is decided as a new one (most often 409 `not_your_turn`)."
        ),
        security=BEARER,
        requestBody=_body_doc(request_schemas.MoveSchema),
        parameters=[
            {
                "in": "header",
                "name": "If-Match",
                "description": "Apply the move only if the game is at this version (412 if not)",
                "schema": {"type": "string", "pattern": VERSION_PATTERN},
                "required": False,
            },
            {
                "in": "header",
                "name": "Idempotency-Key",
                "description": "A key of yours: a retry with it within a day answers the first "
                "response",
                "schema": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_IDEMPOTENCY_KEY,
                    "pattern": schema_fields.NO_NUL_PATTERN,
                },
                "required": False,
            },
        ],
        responses={
            201: {
                "description": "Applied: the moves made (yours, then the bots'), and your view",
                "headers": ETAG,
                "content": {"application/json": {"schema": schemas.MoveResultSchema}},
            },
            **problems(
                "bad_request",
                "unsupported_media_type",
                "unauthorized",
                "forbidden",
                "not_found",
                "not_your_turn",
                "game_not_active",
                "conflict",
                "version_mismatch",
                "payload_too_large",
                "invalid_request",
                "invalid_card",
                "card_not_in_hand",
                "idempotency_conflict",
            ),
        },
    )
    def post(self, game_id: str) -> Response:
        token = caller()
        command = checked(game_id, token, lambda: _play_card(game_id, token), seated_only=True)
        played = playing.play_card(unit_of_work(from_images=True), command, now=clock_now())
        response = jsonify(played.to_dict())
        response.status_code = 201
        return _with_etag(response, played.state["version"], private=True)

    @blp.doc(
        operationId="listMoves",
        summary="Every move so far, in order",
        description=(
            "Anyone may read the moves (public information); nothing changes. Each move says "
            "which card was played and which floor cards it took."
        ),
        responses={
            200: {
                "description": "Every move so far",
                "content": {"application/json": {"schema": schemas.MovesSchema}},
            },
            **problems("not_found"),
        },
    )
    def get(self, game_id: str) -> Response:
        return jsonify({"moves": audit.moves(unit_of_work(), game_id)})


@blp.route("/<game_id>/resign")
class ResignResource(MethodView):
    @blp.doc(
        operationId="resign",
        summary="Resign: your side loses now",
        description=(
            "A seat of a game being played resigns with its token (no body): its side loses "
            "at once, the match is over and the server seed is revealed. The log records "
            "`Resigned`, `MatchEnded` and `SeedRevealed`."
        ),
        security=BEARER,
        responses={
            201: {
                "description": "Resigned: your view of the finished match",
                "headers": ETAG,
                "content": {"application/json": {"schema": schemas.ResignedSchema}},
            },
            **problems("unauthorized", "forbidden", "not_found", "game_not_active", "conflict"),
        },
    )
    def post(self, game_id: str) -> Response:
        resigned = playing.resign_game(unit_of_work(), game_id, caller(), clock_now())
        response = jsonify({"state": resigned.state})
        response.status_code = 201
        return _with_etag(response, resigned.state["version"], private=True)


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


def _play_card(game_id: str, token: Bearer) -> playing.PlayCard:
    """The move as the body and headers ask for it (400, 413 or 422 if they cannot)."""
    if_match, key = version_header("If-Match"), idempotency_key()
    body = json_body(request_schemas.MoveSchema)
    return playing.PlayCard(game_id, token, body["card"], if_match, key)


def _created_body(created: games.Created) -> dict[str, Any]:
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
