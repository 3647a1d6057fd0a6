"""Taking part in a game: an open seat taken (POST /games/{id}/join), a card played and the
moves so far read (/games/{id}/moves), a match resigned (POST /games/{id}/resign), a rematch
asked for (POST /games/{id}/rematch). Thin views
like the game's own, on the same ``games.blp`` and with what games.py's views share."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from app.api import request_schemas, schema_fields, schemas
from app.api.bearers import caller, calling_player
from app.api.blueprints import Answer
from app.api.errors import ApiError
from app.api.games import (
    BEARER,
    ETAG,
    LOCATION,
    access,
    blp,
    checked,
    created_answer,
    etag,
    waiting_seconds,
)
from app.api.requests import (
    MAX_IDEMPOTENCY_KEY,
    VERSION_PATTERN,
    bearer_token,
    clock_now,
    idempotency_key,
    unit_of_work,
    version_header,
)
from app.services import audit, games, playing, rematch
from app.services.access import Bearer


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
            "most (409 `already_seated`). A seat held for a player (a rematch's) is taken by "
            "that player's bearer without the invite, and by nobody else (403 `forbidden`). "
            "When the last open seat is filled the game deals round 1, and bots whose turn it "
            "is play inside this request; until then the game waits `WAITING_TTL_SECONDS` "
            "(24 h) more (a rematch: no longer than its 5 minutes), then ends `cancelled`."
        ),
    )
    @blp.arguments(request_schemas.JoinSchema, first=access(token=False))
    @blp.response(
        201,
        schemas.JoinedSchema,
        headers=ETAG,
        description="Joined: your seat, its token, and your view",
    )
    @blp.problems("bad_request", "unauthorized", "forbidden", "player_required", "not_found",
                  "game_full", "already_seated", "payload_too_large", "unsupported_media_type",
                  "invalid_request")  # fmt: skip
    def post(self, body: dict[str, Any], game_id: str) -> Answer:
        player = calling_player() if bearer_token() is not None else None
        name = player.name if player is not None else body.get("name")
        if name is None:
            raise ApiError("invalid_request", "joining needs a name, or a player's bearer",
                           errors={"name": ["Missing data for required field."]})  # fmt: skip
        joined = games.join_game(
            unit_of_work(), game_id, name, body.get("seed"), invite=body.get("invite"),
            waiting_seconds=waiting_seconds(), now=clock_now(),
            player_id=player.id if player is not None else None,
        )  # fmt: skip
        answer = {"seat": joined.seat, "token": joined.token, "moves": joined.moves,
                  "state": joined.state}  # fmt: skip
        return answer, etag(joined.state["version"], private=True)


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
    )
    @blp.arguments(request_schemas.MoveSchema, first=access(seated_only=True))
    @blp.response(
        201,
        schemas.MoveResultSchema,
        headers=ETAG,
        description="Applied: the moves made (yours, then the bots'), and your view",
    )
    @blp.problems("bad_request", "unsupported_media_type", "unauthorized", "forbidden",
                  "not_found", "not_your_turn", "game_not_active", "conflict",
                  "version_mismatch", "payload_too_large", "invalid_request", "invalid_card",
                  "card_not_in_hand", "idempotency_conflict")  # fmt: skip
    def post(self, body: dict[str, Any], game_id: str) -> Answer:
        token = caller()
        command = checked(game_id, token, lambda: _play_card(game_id, token, body["card"]),
                          seated_only=True)  # fmt: skip
        played = playing.play_card(unit_of_work(from_images=True), command, now=clock_now())
        return played.to_dict(), etag(played.state["version"], private=True)

    @blp.doc(
        operationId="listMoves",
        summary="Every move so far, in order",
        description=(
            "Anyone may read the moves (public information); nothing changes. Each move says "
            "which card was played and which floor cards it took."
        ),
    )
    @blp.response(200, schemas.MovesSchema, description="Every move so far")
    @blp.problems("not_found")
    def get(self, game_id: str) -> Answer:
        return {"moves": audit.moves(unit_of_work(), game_id)}


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
    )
    @blp.response(
        201,
        schemas.ResignedSchema,
        headers=ETAG,
        description="Resigned: your view of the finished match",
    )
    @blp.problems("unauthorized", "forbidden", "not_found", "game_not_active", "conflict")
    def post(self, game_id: str) -> Answer:
        resigned = playing.resign_game(unit_of_work(), game_id, caller(), clock_now())
        return {"state": resigned.state}, etag(resigned.state["version"], private=True)


@blp.route("/<game_id>/rematch")
class RematchResource(MethodView):
    @blp.doc(
        operationId="rematch",
        summary="Play again: the same seats, a fresh deal",
        description=(
            "A seat of a finished game asks for a rematch with its token or its player's "
            "bearer (no body). The first to ask makes it: a new game with the same rules and "
            "`rated`, its own fair shuffle, the caller in the seat it had, bots where bots "
            "sat, and each other human's seat held for that human (`open`, with its `name` "
            "and `player`). Each of them takes its seat by asking here too (or, a player, by "
            "joining with its bearer; nobody else may take it, and no invite is needed); every "
            "seat's call answers the same game, one rematch per game. The seats still held "
            "after 5 minutes end the offer: the new game is `cancelled`. The answer is the new "
            "game as its creation answers it, with the caller's token (shown once) and view "
            "when this call seated it. The finished game's log records `RematchOffered` and "
            "its stream a `rematch` record."
        ),
        security=BEARER,
    )
    @blp.response(
        201,
        schemas.CreatedGameSchema,
        headers=LOCATION | ETAG,
        description="The rematch: the new game, and your seat's token if taken now",
    )
    @blp.problems("unauthorized", "forbidden", "not_found", "game_not_finished", "conflict")
    def post(self, game_id: str) -> Answer:
        created = rematch.rematch_game(unit_of_work(), game_id, caller(), clock_now())
        return created_answer(created)


def _play_card(game_id: str, token: Bearer, card: str) -> playing.PlayCard:
    """The move as the body and headers ask for it (400 or 422 if the headers cannot)."""
    if_match, key = version_header("If-Match"), idempotency_key()
    return playing.PlayCard(game_id, token, card, if_match, key)
