"""What the /games operations answer around the game's view (view_schemas.py): created and
joined games, moves, logs, replays, verifications, the list of games, and problems. The source
of openapi.yaml, with the other *_schemas modules."""

from __future__ import annotations

from marshmallow import Schema, fields

from app.api.contract import Ref
from app.api.request_schemas import EffectiveRulesSchema
from app.api.schema_fields import BOT, PLAYER, SEAT, doc
from app.api.view_schemas import MoveOutSchema, ViewSchema


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
