"""The audit of a game on the /games resource: its log, its replay step by step, the verdict
of every check, and the shuffle's proof. Anyone may read them, and nothing changes."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from app.api import request_schemas, schemas
from app.api.bearers import caller
from app.api.blueprints import Answer
from app.api.games import OPTIONAL_BEARER, access, blp
from app.api.requests import unit_of_work
from app.services import audit


@blp.route("/<game_id>/events")
class EventsResource(MethodView):
    @blp.doc(
        operationId="listEvents",
        summary="The append-only log (redacted while the game is on)",
        description=(
            "Anyone may read the log; a token, if sent, must be one of this game's. While the "
            "game is on, dealt decks are left out; once it is over the whole log is open, so "
            "anyone can check the shuffle and every move. Nothing changes."
        ),
        security=OPTIONAL_BEARER,
    )
    @blp.arguments(request_schemas.EventsQuerySchema, location="query", first=access())
    @blp.response(200, schemas.EventsSchema, description="The events after `after`, oldest first")
    @blp.problems("unauthorized", "forbidden", "not_found", "invalid_request")
    def get(self, args: dict[str, Any], game_id: str) -> Answer:
        return audit.events(unit_of_work(), game_id, caller(), args["after"], args["limit"])


@blp.route("/<game_id>/replay")
class ReplayResource(MethodView):
    @blp.doc(
        operationId="replayGame",
        summary="The complete state after the first N moves (finished games only)",
        description=(
            "Anyone may replay a finished game; nothing changes. The state after `step` moves "
            "shows every card's place: the hands, the stock in order and the piles. After a "
            "round's last move it is the next round's fresh deal (or the end of the match)."
        ),
    )
    @blp.arguments(request_schemas.ReplayQuerySchema, location="query", first=access(token=False))
    @blp.response(200, schemas.ReplaySchema, description="The state after `step` moves")
    @blp.problems("not_found", "game_not_finished", "invalid_request")
    def get(self, args: dict[str, Any], game_id: str) -> Answer:
        return audit.replay_step(unit_of_work(), game_id, args["step"]).to_dict()


@blp.route("/<game_id>/verify")
class VerifyResource(MethodView):
    @blp.doc(
        operationId="verifyGame",
        summary="Check the hash chain, the replay and (once over) the shuffle",
        description=(
            "Anyone may audit a game; nothing changes. Checks that the log's hash chain is "
            "intact and that replaying it gives the stored state; once the game is over, also "
            "that the revealed server seed matches the commitment and re-derives every deck."
        ),
    )
    @blp.response(200, schemas.VerifySchema, description="The verdict, check by check")
    @blp.problems("not_found")
    def get(self, game_id: str) -> Answer:
        return audit.verify(unit_of_work(), game_id)


@blp.route("/<game_id>/fairness")
class FairnessResource(MethodView):
    @blp.doc(
        operationId="getFairness",
        summary="The shuffle's commitment, client seed, and server seed once over",
        description=(
            "Anyone may read it; nothing changes. The commitment is published before the first "
            "deal; the server seed is revealed once the game is over, so anyone can re-derive "
            "every deck (FAIRNESS.md)."
        ),
    )
    @blp.response(200, schemas.FairnessSchema, description="The proof so far")
    @blp.problems("not_found")
    def get(self, game_id: str) -> Answer:
        return audit.fairness(unit_of_work(), game_id)
