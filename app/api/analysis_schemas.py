"""What ``GET /games/{id}/analysis`` answers: the progress while it is computed, then each
judged move and each human seat's summary (services/analysis.py builds them)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from app.api.contract import card as card_field
from app.api.schema_fields import SEAT, doc

VALUES = (
    "Each card of the seat's hand then, by code, and the round points it was expected to bring "
    "the seat's side (its points less the other side's by the round's end) by the expert's "
    "search from what the seat knew: its hand, the floor, the cards played, the score "
    '(docs/bots.md, "Analysis"). Two cards of one rank have the same value.'
)


class AnalysisMoveSchema(Schema):
    """A card a human seat played, judged."""

    n = fields.Integer(required=True, **doc("The move's number in the game, from 1"))
    seat = fields.Integer(required=True, **doc(SEAT))
    card = card_field("The card played", required=True)
    best = card_field("The card of highest value (the one played, among equals)", required=True)
    values = fields.Dict(keys=fields.String(), values=fields.Float(), required=True, **doc(VALUES))
    loss = fields.Float(
        required=True, **doc("`values[best] - values[card]`: the points given up; 0 when best")
    )


class AnalysisSeatSchema(Schema):
    """A human seat's summary."""

    seat = fields.Integer(required=True, **doc(SEAT))
    moves = fields.Integer(required=True, **doc("The cards it played (and was judged on)"))
    average_loss = fields.Float(
        required=True, allow_none=True, **doc("Its mean `loss` a card; null when it played none")
    )
    agreement = fields.Float(
        required=True,
        allow_none=True,
        **doc("The share of its cards that were `best`, 0 to 1; null when it played none"),
    )


class AnalysisSchema(Schema):
    """A finished game's analysis."""

    status = fields.String(required=True, validate=validate.OneOf(["done"]), **doc("`done`"))
    seats = fields.List(fields.Nested(AnalysisSeatSchema), required=True, **doc("Per human seat"))
    moves = fields.List(
        fields.Nested(AnalysisMoveSchema), required=True, **doc("Every human seat's card, in order")
    )


class AnalysisProgressSchema(Schema):
    """An analysis being computed."""

    status = fields.String(required=True, validate=validate.OneOf(["running"]), **doc("`running`"))
    done = fields.Integer(required=True, **doc("Moves judged so far"))
    total = fields.Integer(required=True, **doc("Moves to judge in all"))
