"""The records of GET /games/{id}/stream, by their `event:` name."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from app.api.contract import card
from app.api.schema_fields import PLAYER, SEAT, doc
from app.api.view_schemas import MoveOutSchema, RoundSchema


# ---------------------------------------------------------------- stream records
# The `data:` line of each record of GET /games/{id}/stream, by its `event:` name. The record's
# `id:` is the version of the game that the event made. Registered as components (see
# app/api/__init__.py) so that other documents can refer to them.
class JoinedRecordSchema(Schema):
    """Stream record `joined`: a player took an open seat."""

    seat = fields.Integer(required=True, **doc(SEAT))
    name = fields.String(required=True, **doc("The player's name"))
    player = fields.String(allow_none=True, required=True, **doc(PLAYER))


class DealtRecordSchema(Schema):
    """Stream record `dealt`: a round was dealt (no cards: they are hidden)."""

    round = fields.Integer(required=True, **doc("The round dealt, from 1"))
    dealer = fields.Integer(required=True, **doc("The seat that dealt it"))


class MoveRecordSchema(MoveOutSchema):
    """Stream record `move`: a move (as `GET /games/{game_id}/moves` lists it) and the version."""

    version = fields.Integer(required=True, **doc("The game's version after this move"))


class RoundRecordSchema(RoundSchema):
    """Stream record `round`: a round was scored (an entry of the view's `rounds`)."""


class TimeoutRecordSchema(Schema):
    """Stream record `timeout`: a seat's turn clock ran out and the server played for it."""

    seat = fields.Integer(required=True, **doc("The seat whose time ran out"))
    card = card("The card the server played for the seat", required=True)


class ResignedRecordSchema(Schema):
    """Stream record `resigned`: a seat resigned, or its side forfeited, and the side lost the
    match."""

    side = fields.Integer(required=True, **doc("The side that resigned or forfeited"))
    reason = fields.String(
        validate=validate.OneOf(["abandoned", "idle"]),
        **doc(
            "Only for a forfeit: `abandoned` (the bot took the last seat a human played, after "
            "its timeouts) or `idle` (no turn clock, and the seat to move let `idle_seconds` "
            "pass)"
        ),
    )


class OverRecordSchema(Schema):
    """Stream record `over`: the match is over; the stream ends after it."""

    winner = fields.Integer(
        allow_none=True, required=True, **doc("The winning side, or null for a draw")
    )
    scores = fields.List(fields.Integer(), required=True, **doc("Match totals, one per side"))


class RematchRecordSchema(Schema):
    """Stream record `rematch`: a seat of the finished game asked for a rematch (POST
    /games/{game_id}/rematch); it comes after `over`, to a client that reconnects."""

    game_id = fields.String(
        required=True, **doc("The new game: each seat takes its seat there with POST rematch")
    )


STREAM_RECORDS: dict[str, type[Schema]] = {
    "joined": JoinedRecordSchema,
    "dealt": DealtRecordSchema,
    "move": MoveRecordSchema,
    "round": RoundRecordSchema,
    "timeout": TimeoutRecordSchema,
    "resigned": ResignedRecordSchema,
    "over": OverRecordSchema,
    "rematch": RematchRecordSchema,
}
