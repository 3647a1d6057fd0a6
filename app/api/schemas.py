"""Request and response schemas: the contract of API.md, and the source of openapi.yaml."""

from __future__ import annotations

from typing import Any

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, validate, validates_schema

from app.engine.bots import BOT_LEVELS
from app.engine.rules import CHOICES, LIMITS, NULLABLE_LIMITS

CARD_EXAMPLE = {"example": "7D", "description": "A card code: rank A,2..10,J,Q,K then suit S,H,D,C"}
# Documented, not enforced here: a code that does not match is refused as invalid_card.
CARD_INPUT = {**CARD_EXAMPLE, "pattern": "^(?:[2-9AJQKajqk]|10)[SHDCshdc]$"}
# The three kinds of PlayerSchema.check_kind, for openapi.yaml (combined with the Player object).
PLAYER_KINDS = {
    "oneOf": [
        {"title": "Human", "required": ["name"], "additionalProperties": False,
         "properties": {"name": {}, "seed": {}}},
        {"title": "Bot", "required": ["bot"], "additionalProperties": False,
         "properties": {"bot": {}, "name": {}}},
        {"title": "Open seat", "required": ["open"], "additionalProperties": False,
         "properties": {"open": {"enum": [True]}}},
    ]
}  # fmt: skip


NO_NUL_PATTERN = r"^[^\x00]*$"  # PostgreSQL cannot store NUL in text
TEXT = validate.Regexp(NO_NUL_PATTERN, error="must not contain NUL characters")


class StrictSchema(Schema):
    class Meta:
        unknown = RAISE  # unknown keys in any body are refused


class StrictBoolean(fields.Boolean):
    """JSON true or false only: marshmallow would also take "yes", "on", 1 or "0"."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


# ---------------------------------------------------------------- requests
class PlayerSchema(StrictSchema):
    """A human seated now (name, seed), a bot (bot, name), or an open seat (open)."""

    name = fields.String(validate=[validate.Length(min=1, max=40), TEXT])
    seed = fields.String(validate=[validate.Length(max=64), TEXT])
    bot = fields.String(validate=validate.OneOf(BOT_LEVELS))
    open = StrictBoolean()

    @validates_schema
    def check_kind(self, data: dict[str, Any], **_kwargs: Any) -> None:
        if data.get("open"):
            if set(data) != {"open"}:
                raise ValidationError("an open seat has no name, seed or bot", "open")
        elif "open" in data:
            raise ValidationError("open must be true when given", "open")
        elif "bot" in data:
            if "seed" in data:
                raise ValidationError("a bot seat contributes no seed", "seed")
        elif "name" not in data:
            raise ValidationError("a human seat needs a name", "name")


def _rule_field(name: str) -> fields.Field:
    if name in CHOICES:
        return fields.String(validate=validate.OneOf(CHOICES[name]))
    if name in NULLABLE_LIMITS:
        low, high = NULLABLE_LIMITS[name]
        return fields.Integer(
            strict=True, allow_none=True, validate=validate.Range(min=low, max=high)
        )
    low, high = LIMITS[name]
    return fields.Integer(strict=True, validate=validate.Range(min=low, max=high))


RulesSchema = Schema.from_dict(
    {name: _rule_field(name) for name in [*CHOICES, *LIMITS, *NULLABLE_LIMITS]}
    | {"basra_on_final_play": StrictBoolean()},
    name="RulesSchema",
)
RulesSchema.Meta.unknown = RAISE


class CreateGameSchema(StrictSchema):
    players = fields.List(
        fields.Nested(PlayerSchema, metadata=PLAYER_KINDS),
        required=True,
        validate=validate.Length(min=2, max=4),
        metadata={"oneOf": [{"maxItems": 2}, {"minItems": 4}]},  # 2 or 4, see check_players
    )
    rules = fields.Nested(RulesSchema)
    deck = fields.List(
        fields.String(metadata=CARD_INPUT),
        validate=validate.Length(equal=52),
        metadata={
            "description": "The 52 distinct card codes, top first: round 1 deals it",
            "uniqueItems": True,
        },
    )

    @validates_schema
    def check_players(self, data: dict[str, Any], **_kwargs: Any) -> None:
        if len(data.get("players", [])) not in (2, 4):
            raise ValidationError("a game has 2 or 4 players", "players")


class JoinSchema(StrictSchema):
    name = fields.String(required=True, validate=[validate.Length(min=1, max=40), TEXT])
    seed = fields.String(validate=[validate.Length(max=64), TEXT])


class MoveSchema(StrictSchema):
    card = fields.String(required=True, validate=validate.Length(max=16), metadata=CARD_INPUT)


class QuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE  # a stray query parameter (a cache buster, say) is ignored


class EventsQuerySchema(QuerySchema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**31 - 1))


class ReplayQuerySchema(QuerySchema):
    step = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**31 - 1))


class StreamQuerySchema(QuerySchema):
    after = fields.Integer(
        validate=validate.Range(min=0, max=2**31 - 1),
        metadata={"description": "Start after this version (Last-Event-ID wins if both)"},
    )


class GamesQuerySchema(QuerySchema):
    status = fields.String(validate=validate.OneOf(["waiting", "active", "finished"]))
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.String(validate=validate.Length(max=200))


# ---------------------------------------------------------------- responses
class MoveOutSchema(Schema):
    n = fields.Integer(required=True)
    round = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    card = fields.String(required=True, metadata=CARD_EXAMPLE)
    captured = fields.List(fields.String(), required=True)
    basra = fields.String(
        allow_none=True, required=True, metadata={"enum": ["basra", "jack_basra", None]}
    )


class LegalMoveSchema(Schema):
    card = fields.String(required=True)
    captured = fields.List(fields.String(), required=True)
    basra = fields.String(allow_none=True, required=True)


class SeatViewSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(allow_none=True, required=True)
    bot = fields.String(allow_none=True, required=True)
    open = fields.Boolean(required=True)
    side = fields.Integer(required=True)
    hand_size = fields.Integer(required=True)


class SideSchema(Schema):
    side = fields.Integer(required=True)
    seats = fields.List(fields.Integer(), required=True)
    captured = fields.Integer(
        required=True, metadata={"description": "cards in the pile this round"}
    )
    basras = fields.Integer(required=True)
    jack_basras = fields.Integer(required=True)
    score = fields.Integer(required=True, metadata={"description": "match total"})


class RoundSchema(Schema):
    round = fields.Integer(required=True)
    points = fields.List(fields.Integer(), required=True)
    cards = fields.List(fields.Integer(), required=True)
    majority = fields.Integer(allow_none=True, required=True)
    basras = fields.List(
        fields.Integer(), required=True, metadata={"description": "basras per side that round"}
    )
    jack_basras = fields.List(
        fields.Integer(), required=True, metadata={"description": "jack basras per side"}
    )


class ViewSchema(Schema):
    id = fields.String(required=True)
    status = fields.String(
        required=True, validate=validate.OneOf(["waiting", "active", "finished"])
    )
    version = fields.Integer(required=True)
    round = fields.Integer(required=True)
    dealer = fields.Integer(required=True)
    turn = fields.Integer(allow_none=True, required=True)
    floor = fields.List(fields.String(), required=True)
    stock = fields.Integer(required=True, metadata={"description": "cards left to deal"})
    target_score = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatViewSchema), required=True)
    sides = fields.List(fields.Nested(SideSchema), required=True)
    last_capturer = fields.Integer(allow_none=True, required=True)
    last_move = fields.Nested(MoveOutSchema, allow_none=True, required=True)
    rounds = fields.List(fields.Nested(RoundSchema), required=True)
    winner = fields.Integer(allow_none=True, required=True)
    resigned = fields.Integer(
        allow_none=True, metadata={"description": "the side that resigned, if the match ended so"}
    )
    you = fields.Integer(metadata={"description": "your seat (a seat's own view only)"})
    hand = fields.List(fields.String(), metadata={"description": "your hand (own view only)"})
    legal_moves = fields.List(
        fields.Nested(LegalMoveSchema),
        metadata={"description": "on your turn: what each card would do"},
    )


class CreatedSeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(allow_none=True, required=True)
    bot = fields.String(allow_none=True, required=True)
    open = fields.Boolean(required=True)
    token = fields.String(metadata={"description": "bearer token of a human seat, shown once"})


class FairnessSchema(Schema):
    algorithm = fields.String(required=True)
    commitment = fields.String(required=True)
    client_seed = fields.String(allow_none=True)
    server_seed = fields.String(allow_none=True)


class CreatedGameSchema(Schema):
    id = fields.String(required=True)
    status = fields.String(required=True)
    seats = fields.List(fields.Nested(CreatedSeatSchema), required=True)
    rules = fields.Dict(required=True)
    fairness = fields.Nested(FairnessSchema, required=True)
    moves = fields.List(
        fields.Nested(MoveOutSchema),
        required=True,
        metadata={"description": "moves bots made inside this request"},
    )
    state = fields.Nested(ViewSchema, required=True)


class JoinedSchema(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(required=True)
    moves = fields.List(fields.Nested(MoveOutSchema), required=True)
    state = fields.Nested(ViewSchema, required=True)


class MoveResultSchema(Schema):
    moves = fields.List(fields.Nested(MoveOutSchema), required=True)
    state = fields.Nested(ViewSchema, required=True)


class MovesSchema(Schema):
    moves = fields.List(fields.Nested(MoveOutSchema), required=True)


class EventSchema(Schema):
    seq = fields.Integer(required=True)
    type = fields.String(required=True)
    data = fields.Dict(required=True)
    at = fields.String(required=True)
    hash = fields.String(required=True)


class EventsSchema(Schema):
    events = fields.List(fields.Nested(EventSchema), required=True)


class ReplayStateSchema(ViewSchema):
    hands = fields.List(fields.List(fields.String()), required=True)
    stock = fields.List(fields.String(), required=True)  # type: ignore[assignment]
    stock_size = fields.Integer(required=True)
    piles = fields.List(fields.List(fields.String()), required=True)


class ReplaySchema(Schema):
    step = fields.Integer(required=True)
    moves = fields.Integer(required=True, metadata={"description": "moves in the whole game"})
    state = fields.Nested(ReplayStateSchema, required=True)


class VerifySchema(Schema):
    ok = fields.Boolean(required=True)
    checks = fields.Dict(required=True)


class GameSummarySchema(Schema):
    id = fields.String(required=True)
    status = fields.String(required=True)
    version = fields.Integer(required=True)
    created_at = fields.String(required=True)
    seats = fields.List(fields.Dict(), required=True)
    scores = fields.List(fields.Integer(), required=True)
    winner = fields.Integer(allow_none=True, required=True)


class GamesPageSchema(Schema):
    games = fields.List(fields.Nested(GameSummarySchema), required=True)
    next_cursor = fields.String(allow_none=True, required=True)


# ---------------------------------------------------------------- stream records
# The `data:` line of each record of GET /games/{id}/stream, by its `event:` name. The record's
# `id:` is the version of the game that the event made. Registered as components (see
# app/api/__init__.py) so that other documents can refer to them.
class JoinedRecordSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)


class DealtRecordSchema(Schema):
    round = fields.Integer(required=True)
    dealer = fields.Integer(required=True, metadata={"description": "no cards: they are hidden"})


class MoveRecordSchema(MoveOutSchema):
    version = fields.Integer(required=True, metadata={"description": "the game's version after it"})


class RoundRecordSchema(RoundSchema):
    """A `rounds` entry of the view."""


class TimeoutRecordSchema(Schema):
    seat = fields.Integer(required=True)
    card = fields.String(required=True, metadata={"description": "the card played for the seat"})


class ResignedRecordSchema(Schema):
    side = fields.Integer(required=True, metadata={"description": "the side that resigned"})


class OverRecordSchema(Schema):
    winner = fields.Integer(allow_none=True, required=True, metadata={"description": "side"})
    scores = fields.List(fields.Integer(), required=True, metadata={"description": "per side"})


STREAM_RECORDS: dict[str, type[Schema]] = {
    "joined": JoinedRecordSchema,
    "dealt": DealtRecordSchema,
    "move": MoveRecordSchema,
    "round": RoundRecordSchema,
    "timeout": TimeoutRecordSchema,
    "resigned": ResignedRecordSchema,
    "over": OverRecordSchema,
}


class HealthSchema(Schema):
    status = fields.String(required=True)


class ProblemSchema(Schema):
    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True)
    errors = fields.Dict(metadata={"description": "invalid_request: the offending fields"})
    version = fields.Integer(metadata={"description": "version_mismatch: the game's version now"})
    request_id = fields.String(
        metadata={"description": "The request's id, as in its X-Request-ID header (for the logs)"}
    )


# ---------------------------------------------------------------- GET /rules
class RuleOptionSchema(Schema):
    name = fields.String(required=True, metadata={"description": "the key in `rules`"})
    label = fields.String(required=True, metadata={"description": "a short human name"})
    help = fields.String(required=True, metadata={"description": "a one-line explanation"})
    type = fields.String(
        required=True, validate=validate.OneOf(["choice", "integer", "boolean", "string"])
    )
    default = fields.Raw(required=True, allow_none=True, metadata={"description": "its default"})
    nullable = fields.Boolean(required=True, metadata={"description": "whether null is allowed"})
    values = fields.List(fields.String(), metadata={"description": "the allowed values (choice)"})
    value_help = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        metadata={"description": "a few words on each allowed value (choice)"},
    )
    minimum = fields.Integer(metadata={"description": "the smallest allowed value (integer)"})
    maximum = fields.Integer(metadata={"description": "the largest allowed value (integer)"})


class BotLevelSchema(Schema):
    level = fields.String(required=True, metadata={"example": "greedy"})
    help = fields.String(required=True)


class TargetScoreSchema(Schema):
    default = fields.Integer(required=True)
    minimum = fields.Integer(required=True)
    maximum = fields.Integer(required=True)
    presets = fields.List(
        fields.Integer(), required=True, metadata={"description": "usual targets"}
    )


class GameSetupSchema(Schema):
    players = fields.List(fields.Integer(), required=True, metadata={"example": [2, 4]})
    bots = fields.List(fields.Nested(BotLevelSchema), required=True)
    target_score = fields.Nested(TargetScoreSchema, required=True)
    options = fields.List(
        fields.Nested(RuleOptionSchema),
        required=True,
        metadata={"description": "every key of `rules` in POST /games, target_score included"},
    )
