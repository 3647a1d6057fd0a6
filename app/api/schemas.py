"""What answers carry: views, created and joined games, moves, logs, replays, verifications,
the list of games, and problems. The source of openapi.yaml, with the other *_schemas modules."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from app.api.contract import Ref, card, cards
from app.api.request_schemas import EffectiveRulesSchema
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


class CreatedSeatSchema(Schema):
    """A seat of the new game; a human seat created now carries its token."""

    seat = fields.Integer(required=True, **doc(SEAT))
    name = fields.String(allow_none=True, required=True, **doc("The player's name; null: open"))
    bot = Ref("BotLevel", allow_none=True, required=True, metadata={"description": BOT})
    open = fields.Boolean(required=True, **doc("true: a seat left for someone to join"))
    player = fields.String(allow_none=True, required=True, **doc(PLAYER))
    token = fields.String(
        **doc(
            "The bearer token that acts as this seat (`Authorization: Bearer <token>`); shown "
            "once, here, for each human seat created now. Keep it secret."
        )
    )


class FairnessSchema(Schema):
    """The commit-reveal proof of the shuffle (FAIRNESS.md)."""

    algorithm = fields.String(required=True, **doc("The shuffle's name and version"))
    commitment = fields.String(
        required=True, **doc("SHA-256 of the server seed, published before the first deal")
    )
    custom_deck = fields.Boolean(
        required=True, **doc("true when the creator fixed round 1's deck: not a fair deal")
    )
    client_seed = fields.String(
        allow_none=True, **doc("The players' seeds combined; null until the game is dealt")
    )
    server_seed = fields.String(
        allow_none=True,
        **doc("The server's secret seed, revealed (hex) once the game is over; null before"),
    )


class CreatedGameSchema(Schema):
    """The new game, with the tokens of its human seats (shown only here)."""

    id = fields.String(required=True, **doc("The game's id, as in `Location: /games/{id}`"))
    status = Ref(
        "GameStatus", required=True, metadata={"description": "active unless a seat is open"}
    )
    seats = fields.List(fields.Nested(CreatedSeatSchema), required=True, **doc("Every seat"))
    rules = fields.Nested(EffectiveRulesSchema, required=True, **doc("The rules it plays by"))
    fairness = fields.Nested(FairnessSchema, required=True, **doc("The shuffle's commitment"))
    invite = fields.String(
        **doc("A game with open seats only: what a joiner needs (unless the game is public), "
               "shown only here. Pass it on in a link's #fragment, never in a query string")
    )  # fmt: skip
    moves = fields.List(
        fields.Nested(MoveOutSchema),
        required=True,
        **doc("Moves the bots made inside this request (a bot may lead)"),
    )
    state = fields.Nested(
        ViewSchema,
        required=True,
        **doc("The creator's view: the first human seat's, else a spectator's"),
    )


class JoinedSchema(Schema):
    """The seat taken, its token (shown only here) and its view."""

    seat = fields.Integer(required=True, **doc("The seat you took"))
    token = fields.String(required=True, **doc("Your seat's bearer token, shown once: keep it"))
    moves = fields.List(
        fields.Nested(MoveOutSchema),
        required=True,
        **doc("Moves bots made inside this request, once the game was dealt"),
    )
    state = fields.Nested(ViewSchema, required=True, **doc("Your view of the game"))


class MoveResultSchema(Schema):
    """What a move request applied, and the caller's view after it."""

    moves = fields.List(
        fields.Nested(MoveOutSchema),
        required=True,
        **doc("Every move this request applied: yours first, then the bots' replies"),
    )
    state = fields.Nested(ViewSchema, required=True, **doc("Your view after those moves"))


class ResignedSchema(Schema):
    """The caller's view of the match it just resigned."""

    state = fields.Nested(ViewSchema, required=True, **doc("Your view: the match is over"))


class MovesSchema(Schema):
    """Every move of the game so far (public information)."""

    moves = fields.List(fields.Nested(MoveOutSchema), required=True, **doc("In order"))


class EventSchema(Schema):
    """One entry of the game's append-only, hash-chained log."""

    seq = fields.Integer(required=True, **doc("The entry's number, from 1 (= the version)"))
    type = Ref("EventType", required=True, metadata={"description": "What happened"})
    data = fields.Dict(
        required=True,
        **doc(
            "The event's fields (cards as `Card` codes). While the game is on, a `RoundDealt` "
            "has no `deck`: the whole log opens once the game is over"
        ),
    )
    at = fields.String(required=True, **doc("When it was appended (ISO 8601, UTC)"))
    hash = fields.String(
        required=True,
        **doc("SHA-256 over this entry and the previous entry's hash (hex): the chain"),
    )


class EventsSchema(Schema):
    """A part of the game's log, oldest first."""

    events = fields.List(fields.Nested(EventSchema), required=True, **doc("Oldest first"))
    next_after = fields.Integer(
        allow_none=True,
        required=True,
        **doc("More events follow: ask again with `?after=<this>`; null on the last page"),
    )


class ReplayStateSchema(ViewSchema):
    """The complete state of a finished game at one step: every card's place."""

    hands = fields.List(
        fields.List(Ref("Card")), required=True, **doc("Every seat's hand, seat 0 first")
    )
    stock = fields.List(  # type: ignore[assignment]
        Ref("Card"), required=True, **doc("The cards left to deal, top first")
    )
    stock_size = fields.Integer(required=True, **doc("How many cards are left to deal"))
    piles = fields.List(
        fields.List(Ref("Card")),
        required=True,
        **doc("Each side's capture pile this round, side 0 first"),
    )


class ReplaySchema(Schema):
    """A finished game replayed to one step."""

    step = fields.Integer(required=True, **doc("The moves replayed (0: the first deal)"))
    moves = fields.Integer(required=True, **doc("How many moves the whole game has"))
    state = fields.Nested(ReplayStateSchema, required=True, **doc("The state after `step`"))


class VerifySchema(Schema):
    """The audit of one game."""

    ok = fields.Boolean(required=True, **doc("true when every check passed"))
    checks = fields.Dict(
        required=True,
        **doc(
            "One entry per check, each with its own `ok`: `hash_chain` (the log is intact), "
            "`replay` (replaying it gives the stored state), `client_seed` (the seeds logged "
            "by GameCreated and SeatJoined make the client seed in use), `players` (each seat's "
            "player, and whether the game is rated, are the ones GameCreated and SeatJoined "
            "logged), `commitment` (the "
            "one GameCreated published; once over, the seed SeedRevealed logged matches it) "
            "and once over `decks` (it re-derives every shuffled deck; only round 1 of a game "
            "created with `deck` may be fixed)"
        ),
    )


class GameSummarySchema(Schema):
    """A game in a listing."""

    id = fields.String(required=True, **doc("The game's id"))
    status = Ref("GameStatus", required=True, metadata={"description": "The game's status"})
    version = fields.Integer(required=True, **doc("The game's version"))
    created_at = fields.String(required=True, **doc("When it was created (ISO 8601)"))
    seats = fields.List(
        fields.Dict(), required=True, **doc("Every seat: `seat`, `name`, `bot` and `player`")
    )
    scores = fields.List(fields.Integer(), required=True, **doc("Match totals, one per side"))
    winner = fields.Integer(allow_none=True, required=True, **doc("The winning side, or null"))
    custom_deck = fields.Boolean(required=True, **doc("true when the creator fixed a deck"))
    rated = fields.Boolean(required=True, **doc("true: its players' ratings change at its end"))


class GamesPageSchema(Schema):
    """A page of games, newest first."""

    games = fields.List(fields.Nested(GameSummarySchema), required=True, **doc("Newest first"))
    next_cursor = fields.String(
        allow_none=True,
        required=True,
        **doc("Pass it as `cursor` to read the next page; null on the last page"),
    )


class ProblemSchema(Schema):
    """A refusal (RFC 9457). A refused request changed nothing."""

    type = fields.String(required=True, **doc("`/problems/<code>`"))
    title = fields.String(required=True, **doc("A short summary of the code"))
    status = fields.Integer(required=True, **doc("The HTTP status"))
    detail = fields.String(required=True, **doc("What was wrong with this request"))
    code = Ref("ProblemCode", required=True, metadata={"description": "The stable code"})
    errors = fields.Dict(**doc("`invalid_request`: the offending fields, each with what was wrong"))
    version = fields.Integer(**doc("`version_mismatch`: the game's version now"))
    seek_id = fields.String(**doc("`already_seeking`: the player's waiting seek"))
    request_id = fields.String(
        **doc("The request's id, as in its X-Request-ID header (for the logs)")
    )
