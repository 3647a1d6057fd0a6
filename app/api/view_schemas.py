"""A game as a seat or a spectator sees it (``ViewSchema``), and the parts it is made of: seats,
sides, moves, finished rounds, rating changes. Every answer that carries a game's state nests
this view, and the stream's records reuse its moves and rounds."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from app.api.contract import Ref, card, cards
from app.api.schema_fields import BOT, PLAYER, SEAT, SIDE, doc
from app.services.model import STATUSES

# ---------------------------------------------------------------- responses
BASRA = "`basra`, `jack_basra`, or null when the move was no basra"


class MoveOutSchema(Schema):
    """A move: the card a seat played and the floor cards it took."""

    n = fields.Integer(required=True, **doc("The move's number in the game, from 1"))
    round = fields.Integer(required=True, **doc("The round it was played in, from 1"))
    seat = fields.Integer(required=True, **doc("The seat that played it"))
    card = card("The card played", required=True)
    captured = cards(
        "The floor cards it took (the played card joins them in the pile); [] means the "
        "card was trailed: it stays on the floor",
        required=True,
    )
    basra = Ref("BasraKind", allow_none=True, required=True, metadata={"description": BASRA})


class LegalMoveSchema(Schema):
    """What one card of your hand would do if you played it now."""

    card = card("A card of your hand", required=True)
    captured = cards("The floor cards it would take ([]: it would be trailed)", required=True)
    basra = Ref("BasraKind", allow_none=True, required=True, metadata={"description": BASRA})


class SeatViewSchema(Schema):
    """A seat as everyone may see it."""

    seat = fields.Integer(required=True, **doc(SEAT))
    name = fields.String(allow_none=True, required=True, **doc("The player's name; null: open"))
    bot = Ref("BotLevel", allow_none=True, required=True, metadata={"description": BOT})
    open = fields.Boolean(required=True, **doc("true: nobody has taken this seat yet"))
    player = fields.String(allow_none=True, required=True, **doc(PLAYER))
    side = fields.Integer(required=True, **doc(SIDE))
    hand_size = fields.Integer(required=True, **doc("How many cards the seat holds"))


class SideSchema(Schema):
    """A side's pile and score, as everyone may see them."""

    side = fields.Integer(required=True, **doc(SIDE))
    seats = fields.List(fields.Integer(), required=True, **doc("The seats of this side"))
    captured = fields.Integer(
        required=True, **doc("Cards in the side's pile this round (played and taken)")
    )
    basras = fields.Integer(required=True, **doc("Regular basras this round"))
    jack_basras = fields.Integer(required=True, **doc("Jack basras this round"))
    score = fields.Integer(required=True, **doc("The match total so far"))


class RoundSchema(Schema):
    """The result of a finished round."""

    round = fields.Integer(required=True, **doc("The round's number, from 1"))
    points = fields.List(
        fields.Integer(), required=True, **doc("Points scored in the round, one per side")
    )
    cards = fields.List(
        fields.Integer(), required=True, **doc("Cards captured in the round, one per side")
    )
    majority = fields.Integer(
        allow_none=True,
        required=True,
        **doc("The side given the majority points, or null (a tie, RULES.md 5.2)"),
    )
    basras = fields.List(
        fields.Integer(), required=True, **doc("Basras made in the round, one per side")
    )
    jack_basras = fields.List(
        fields.Integer(), required=True, **doc("Jack basras made in the round, one per side")
    )


class RatingPointSchema(Schema):
    """A rating at one moment (docs/ratings.md)."""

    value = fields.Float(required=True, **doc("The rating (openskill's mu); 25 to start"))
    deviation = fields.Float(
        required=True, **doc("How unsure it still is (openskill's sigma); 8.333 to start")
    )


class RatingChangeSchema(Schema):
    """What a rated match did to one seat's player's rating."""

    seat = fields.Integer(required=True, **doc(SEAT))
    player = fields.String(required=True, **doc("The player's id"))
    before = fields.Nested(RatingPointSchema, required=True, **doc("Before the match"))
    after = fields.Nested(RatingPointSchema, required=True, **doc("After it"))


class ViewSchema(Schema):
    """A game as one seat (or a spectator, without a token) may see it: RULES.md section 7.
    Nobody sees the stock's order or another seat's hand while the game is on."""

    id = fields.String(required=True, **doc("The game's id"))
    status = Ref(
        "GameStatus",
        required=True,
        validate=validate.OneOf(STATUSES),
        metadata={"description": "Where the game is in its life"},
    )
    version = fields.Integer(
        required=True,
        **doc("+1 per change of the game (a move, a deal, a join...); also the ETag"),
    )
    round = fields.Integer(required=True, **doc("The round being played, from 1 (0: waiting)"))
    dealer = fields.Integer(required=True, **doc("The seat that dealt this round"))
    turn = fields.Integer(
        allow_none=True, required=True, **doc("The seat to play, or null when nobody is")
    )
    floor = cards("The cards face up on the table, in the order they were laid", required=True)
    stock = fields.Integer(required=True, **doc("How many cards are left to deal"))
    target_score = fields.Integer(required=True, **doc("The score that ends the match"))
    seats = fields.List(fields.Nested(SeatViewSchema), required=True, **doc("Every seat"))
    sides = fields.List(fields.Nested(SideSchema), required=True, **doc("Both sides"))
    last_capturer = fields.Integer(
        allow_none=True,
        required=True,
        **doc("The seat that captured last this round: it takes the floor at the round's end"),
    )
    last_move = fields.Nested(
        MoveOutSchema, allow_none=True, required=True, **doc("The latest move of this round")
    )
    rounds = fields.List(
        fields.Nested(RoundSchema), required=True, **doc("Every finished round, in order")
    )
    winner = fields.Integer(
        allow_none=True, required=True, **doc("The winning side once the match is over")
    )
    deadline = fields.String(
        allow_none=True,
        required=True,
        metadata={
            "format": "date-time",
            "description": "When the turn's clock runs out (ISO 8601 UTC): the server then "
            "plays for the seat to move. With no clock (`turn_seconds` null), when the idle "
            "limit (`idle_seconds`) runs out: the side to move then forfeits. Null: a bot's "
            "turn, or not being played",
        },
    )
    resigned = fields.Integer(
        allow_none=True,
        **doc("The side that resigned, or forfeited (nobody played it), if the match ended so"),
    )
    custom_deck = fields.Boolean(
        required=True, **doc("true when the creator fixed round 1's deck (`deck`)")
    )
    rated = fields.Boolean(required=True, **doc("true: the players' ratings change at its end"))
    ratings = fields.List(
        fields.Nested(RatingChangeSchema),
        allow_none=True,
        required=True,
        **doc("Once a rated match is over: each seat's player's rating before and after it, "
               "changed once, as the match ended; null otherwise"),
    )  # fmt: skip
    you = fields.Integer(**doc("Your seat (a seat's own view only)"))
    hand = cards("Your hand (a seat's own view only)")
    legal_moves = fields.List(
        fields.Nested(LegalMoveSchema),
        **doc("On your turn only: what each card of your hand would take"),
    )
