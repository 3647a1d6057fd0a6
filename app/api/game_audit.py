"""The audit of a game on the /games resource: its log, its replay step by step, the verdict
of every check, and the shuffle's proof. Anyone may read them, and nothing changes."""

from __future__ import annotations

from flask import Response, jsonify
from flask.views import MethodView

from app.api import request_schemas, schemas
from app.api.bearers import caller
from app.api.games import OPTIONAL_BEARER, blp, checked
from app.api.problem_answers import problems
from app.api.requests import query, unit_of_work
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
        parameters=[{"in": "query", "schema": request_schemas.EventsQuerySchema}],
        responses={
            200: {
                "description": "The events after `after`, oldest first",
                "content": {"application/json": {"schema": schemas.EventsSchema}},
            },
            **problems("unauthorized", "forbidden", "not_found", "invalid_request"),
        },
    )
    def get(self, game_id: str) -> Response:
        token = caller()
        args = checked(game_id, token, lambda: query(request_schemas.EventsQuerySchema))
        return jsonify(audit.events(unit_of_work(), game_id, token, args["after"], args["limit"]))


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
        parameters=[{"in": "query", "schema": request_schemas.ReplayQuerySchema}],
        responses={
            200: {
                "description": "The state after `step` moves",
                "content": {"application/json": {"schema": schemas.ReplaySchema}},
            },
            **problems("not_found", "game_not_finished", "invalid_request"),
        },
    )
    def get(self, game_id: str) -> Response:
        args = checked(game_id, None, lambda: query(request_schemas.ReplayQuerySchema))
        return jsonify(audit.replay_step(unit_of_work(), game_id, args["step"]).to_dict())


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
        responses={
            200: {
                "description": "The verdict, check by check",
                "content": {"application/json": {"schema": schemas.VerifySchema}},
            },
            **problems("not_found"),
        },
    )
    def get(self, game_id: str) -> Response:
        return jsonify(audit.verify(unit_of_work(), game_id))


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
        responses={
            200: {
                "description": "The proof so far",
                "content": {"application/json": {"schema": schemas.FairnessSchema}},
            },
            **problems("not_found"),
        },
    )
    def get(self, game_id: str) -> Response:
        return jsonify(audit.fairness(unit_of_work(), game_id))
