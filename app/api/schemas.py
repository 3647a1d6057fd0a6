"""Request and response schemas: the contract of API.md, and the source of openapi.yaml."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, validate, validates_schema

from app.api.contract import Ref, card, cards
from app.engine import PLAYER_COUNTS
from app.engine.bots import BOT_LEVELS, BOT_NAMES
from app.engine.catalog import OPTION_HELP, VALUE_HELP
from app.engine.rules import CHOICES, LIMITS, NULLABLE_LIMITS, Rules
from app.services.audit import EVENTS_MAX, EVENTS_PAGE
from app.services.model import STATUSES

# The three kinds of PlayerSchema.check_kind, for openapi.yaml (combined with the Player object).
PLAYER_KINDS = {
    "oneOf": [
        {"title": "Human", "description": "A human seated now: gets a token in the answer",
         "type": "object", "required": ["name"], "additionalProperties": False,
         "properties": {"name": {"type": "string"}, "seed": {"type": "string"}}},
        {"title": "Bot", "description": "A bot: plays at once whenever it is its turn",
         "type": "object", "required": ["bot"], "additionalProperties": False,
         "properties": {"bot": {"$ref": "#/components/schemas/BotLevel"},
                        "name": {"type": "string"}}},
        {"title": "Open seat", "description": "A human seat that POST /games/{game_id}/join fills",
         "type": "object", "required": ["open"], "additionalProperties": False,
         "properties": {"open": {"type": "boolean", "enum": [True]}}},
        {"title": "Player", "description": "The player whose bearer sends the request, seated "
         "now under its own name", "type": "object", "required": ["player"],
         "additionalProperties": False,
         "properties": {"player": {"type": "string", "enum": ["me"]},
                        "seed": {"type": "string"}}},
    ]
}  # fmt: skip


HIDDEN = ("Cc", "Cf")  # Unicode categories refused in names


def hidden_characters_pattern() -> str:
    """A regex class of every Cc and Cf code point of the BMP (slow: 1.1M code points; a test
    keeps NAME_PATTERN equal to it, so a newer Unicode in Python shows up there)."""
    ranges: list[list[int]] = []
    for point in range(0x110000):
        if unicodedata.category(chr(point)) in HIDDEN:
            if ranges and ranges[-1][1] == point - 1:
                ranges[-1][1] = point
            else:
                ranges.append([point, point])

    def escape(point: int) -> str:
        return f"\\u{point:04x}"

    bmp = [(a, min(b, 0xFFFF)) for a, b in ranges if a <= 0xFFFF]
    parts = [escape(a) if a == b else f"{escape(a)}-{escape(b)}" for a, b in bmp]
    return "^[^" + "".join(parts) + "]*$"


# For openapi.yaml (``\\p{Cc}`` is not portable): every Cc and Cf code point of the Basic
# Multilingual Plane. The few astral Cf ones (U+110BD, U+E0001, the tags U+E0020-E007F, ...)
# are refused too, but left out of the pattern: regex engines of OpenAPI tools (schemathesis)
# refuse astral characters in a class.
NAME_PATTERN = (
    "^[^\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890-"
    "\\u0891\\u08e2\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f"
    "\\ufeff\\ufff9-\\ufffb]*$"
)
RESERVED_NAMES = {name.casefold() for name in BOT_NAMES.values()}


def check_not_reserved(name: str | None, field: str = "name") -> None:
    if name is not None and name.casefold() in RESERVED_NAMES:
        raise ValidationError("this name is kept for the server's bots", field)


NO_NUL_PATTERN = r"^[^\x00]*$"  # PostgreSQL cannot store NUL in text
TEXT = validate.Regexp(NO_NUL_PATTERN, error="must not contain NUL characters")
NAME_MAX = 40


class Name(fields.String):
    """A seat's name: NFC-normalised, with no control (Cc) or format (Cf) character, so a
    right-to-left override or a zero-width character cannot make one name pass for another."""

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"pattern": NAME_PATTERN, **kwargs.pop("metadata", {})}
        super().__init__(validate=validate.Length(min=1, max=NAME_MAX), metadata=metadata,
                         **kwargs)  # fmt: skip

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> str:
        text: str = super()._deserialize(value, attr, data, **kwargs)
        bad = sorted({f"U+{ord(c):04X}" for c in text if unicodedata.category(c) in HIDDEN})
        if bad:
            raise ValidationError(
                f"must not contain control or format characters ({', '.join(bad)})"
            )
        text = unicodedata.normalize("NFC", text)
        if len(text) > NAME_MAX:  # a few characters compose to more than one
            raise ValidationError(f"longer than {NAME_MAX} characters once normalised (NFC)")
        return text


class StrictSchema(Schema):
    class Meta:
        unknown = RAISE  # unknown keys in any body are refused


class StrictBoolean(fields.Boolean):
    """JSON true or false only: marshmallow would also take "yes", "on", 1 or "0"."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class WholeNumber(fields.Integer):
    """A JSON number that is an integer, as openapi.yaml's JSON Schema 2020-12 counts them: 5
    and 5.0 alike, never "5" or true."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        number: int = super()._deserialize(value, attr, data, **kwargs)
        return number


def _doc(text: str, **more: Any) -> dict[str, Any]:
    return {"metadata": {"description": text, **more}}


SEAT = "A seat number, 0 to players-1; seats 0 and 2 form side 0, seats 1 and 3 side 1"
SIDE = "A side: one player, or one team of two in a four-player game (0 or 1)"
NAME = "A player's name, 1 to 40 characters"
SEED = (
    "Up to 64 characters of the player's own, mixed into the shuffle of every round "
    "(FAIRNESS.md), so that no side alone decides the deal"
)
BOT = "The bot playing this seat, or null for a human seat"
PLAYER = (
    "The id of the player holding this seat (GET /players/{player_id}); a bot's seat is its "
    "level's player (`bot-<level>`); null: a seat held by its seat token alone, or open"
)


# ---------------------------------------------------------------- requests
class PlayerSchema(StrictSchema):
    """A seat of a new game: a human seated now (name, seed), a bot (bot, name), or an open
    seat (open) for a second player to take with POST /games/{game_id}/join."""

    name = Name(**_doc(NAME))
    seed = fields.String(validate=[validate.Length(max=64), TEXT], **_doc(SEED))
    bot = Ref(
        "BotLevel",
        validate=validate.OneOf(BOT_LEVELS),
        metadata={"description": "Makes this seat a bot of that level"},
    )
    open = StrictBoolean(**_doc("true: a human seat left open, to be joined later"))
    player = fields.String(
        validate=validate.OneOf(["me"]),
        **_doc('"me": the seat of the player whose bearer sends the request (POST /players)'),
    )

    @validates_schema
    def check_kind(self, data: dict[str, Any], **_kwargs: Any) -> None:
        if "player" in data:
            if set(data) - {"player", "seed"}:
                raise ValidationError("a player's seat has its player's name, and no bot", "player")
        elif data.get("open"):
            if set(data) != {"open"}:
                raise ValidationError("an open seat has no name, seed or bot", "open")
        elif "open" in data:
            raise ValidationError("open must be true when given", "open")
        elif "bot" in data:
            if "seed" in data:
                raise ValidationError("a bot seat contributes no seed", "seed")
        elif "name" not in data:
            raise ValidationError("a human seat needs a name", "name")
        else:
            check_not_reserved(data["name"])


_DEFAULTS = Rules().to_dict()


def _rule_doc(name: str) -> dict[str, Any]:
    """An option's description, from the words GET /rules shows (app/engine/catalog.py)."""
    label, explanation = OPTION_HELP.get(name, (name, ""))
    values = "".join(f" `{value}`: {help}." for value, help in VALUE_HELP.get(name, {}).items())
    return _doc(f"{label}: {explanation}{values} Default: `{json.dumps(_DEFAULTS[name])}`.")


def _rule_field(name: str) -> fields.Field:
    doc = _rule_doc(name)
    if name in CHOICES:
        return fields.String(validate=validate.OneOf(CHOICES[name]), **doc)
    if name in NULLABLE_LIMITS:
        low, high = NULLABLE_LIMITS[name]
        return WholeNumber(allow_none=True, validate=validate.Range(min=low, max=high), **doc)
    low, high = LIMITS[name]
    return WholeNumber(validate=validate.Range(min=low, max=high), **doc)


RulesSchema = Schema.from_dict(
    {name: _rule_field(name) for name in [*CHOICES, *LIMITS, *NULLABLE_LIMITS]}
    | {"basra_on_final_play": StrictBoolean(**_rule_doc("basra_on_final_play"))},
    name="RulesSchema",
)
RulesSchema.Meta.unknown = RAISE
RulesSchema.__doc__ = (
    "The options of RULES.md; any left out take their default. Unknown keys are refused."
)

# The same options as a game answers them: every one present, with its effective value.
EffectiveRulesSchema = Schema.from_dict(
    {name: _rule_field(name) for name in [*CHOICES, *LIMITS, *NULLABLE_LIMITS]}
    | {"basra_on_final_play": StrictBoolean(**_rule_doc("basra_on_final_play"))},
    name="EffectiveRulesSchema",
)
for _field in EffectiveRulesSchema._declared_fields.values():
    _field.required = True
EffectiveRulesSchema.__doc__ = "Every option of RULES.md with the value this game plays by."


class CreateGameSchema(StrictSchema):
    """A new game: its seats, its rules, and (for puzzles and tests) round 1's deck."""

    players = fields.List(
        fields.Nested(PlayerSchema, metadata=PLAYER_KINDS),
        required=True,
        validate=validate.Length(min=min(PLAYER_COUNTS), max=max(PLAYER_COUNTS)),
        metadata={
            "not": {"minItems": 3, "maxItems": 3},  # 2 or 4 (PLAYER_COUNTS); create_game refuses 3
            "description": "The seats in order, seat 0 first: 2 or 4 entries",
        },
    )
    rules = fields.Nested(RulesSchema, **_doc("Options of RULES.md; left out: the defaults"))
    public = StrictBoolean(
        **_doc("Open seats joinable without the invite, and the game listed while waiting "
               "(default false: only who has the invite can join)"),
    )  # fmt: skip
    rated = StrictBoolean(
        **_doc("true: the players' ratings change when the match ends (default false). Every "
               'human seat is then a player\'s (`{"player": "me"}`, or open for a player to '
               "join with its bearer), and no `deck` is given"),
    )  # fmt: skip
    deck = fields.List(
        Ref("CardInput"),
        validate=validate.Length(equal=52),
        metadata={
            "description": "The 52 distinct cards, top first: round 1 deals this deck instead "
            "of a shuffle (later rounds are shuffled as usual)",
            "uniqueItems": True,
        },
    )


class JoinSchema(StrictSchema):
    """The player taking the lowest open seat: a name, or a player's bearer (whose name the
    seat then takes)."""

    name = Name(**_doc(NAME + "; needed unless a player's bearer sends the request"))
    seed = fields.String(validate=[validate.Length(max=64), TEXT], **_doc(SEED))
    invite = fields.String(
        validate=[validate.Length(max=100), TEXT],
        **_doc("The game's invite, as its creator was given it: needed unless the game is "
               "public (403 `forbidden` without the right one)"),
    )  # fmt: skip

    @validates_schema
    def check_name(self, data: dict[str, Any], **_kwargs: Any) -> None:
        check_not_reserved(data.get("name"))


class MoveSchema(StrictSchema):
    """The card to play from the caller's hand."""

    card = Ref(
        "CardInput",
        required=True,
        validate=validate.Length(max=16),
        metadata={"description": "A card of your hand (any letter case)"},
    )


class QuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE  # a stray query parameter (a cache buster, say) is ignored


class EventsQuerySchema(QuerySchema):
    after = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=2**31 - 1),
        **_doc("Only the events after this sequence number (0: from the start)"),
    )
    limit = fields.Integer(
        load_default=EVENTS_PAGE,
        validate=validate.Range(min=1, max=EVENTS_MAX),
        **_doc(f"Events per page (default {EVENTS_PAGE}, at most {EVENTS_MAX})"),
    )


class ReplayQuerySchema(QuerySchema):
    step = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=2**31 - 1),
        **_doc("How many moves to replay, 0 (right after the first deal) to the game's `moves`"),
    )


class StreamQuerySchema(QuerySchema):
    after = fields.Integer(
        validate=validate.Range(min=0, max=2**31 - 1),
        metadata={"description": "Start after this version (Last-Event-ID wins if both)"},
    )


class GamesQuerySchema(QuerySchema):
    status = Ref(
        "GameStatus",
        validate=validate.OneOf(STATUSES),
        metadata={"description": "Only games with this status"},
    )
    limit = fields.Integer(
        load_default=20,
        validate=validate.Range(min=1, max=100),
        **_doc("At most this many games in the page"),
    )
    cursor = fields.String(
        validate=validate.Length(max=200),
        **_doc("The `next_cursor` of the previous page, to read the next one"),
    )


# ---------------------------------------------------------------- responses
BASRA = "`basra`, `jack_basra`, or null when the move was no basra"


class MoveOutSchema(Schema):
    """A move: the card a seat played and the floor cards it took."""

    n = fields.Integer(required=True, **_doc("The move's number in the game, from 1"))
    round = fields.Integer(required=True, **_doc("The round it was played in, from 1"))
    seat = fields.Integer(required=True, **_doc("The seat that played it"))
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

    seat = fields.Integer(required=True, **_doc(SEAT))
    name = fields.String(allow_none=True, required=True, **_doc("The player's name; null: open"))
    bot = Ref("BotLevel", allow_none=True, required=True, metadata={"description": BOT})
    open = fields.Boolean(required=True, **_doc("true: nobody has taken this seat yet"))
    player = fields.String(allow_none=True, required=True, **_doc(PLAYER))
    side = fields.Integer(required=True, **_doc(SIDE))
    hand_size = fields.Integer(required=True, **_doc("How many cards the seat holds"))


class SideSchema(Schema):
    """A side's pile and score, as everyone may see them."""

    side = fields.Integer(required=True, **_doc(SIDE))
    seats = fields.List(fields.Integer(), required=True, **_doc("The seats of this side"))
    captured = fields.Integer(
        required=True, **_doc("Cards in the side's pile this round (played and taken)")
    )
    basras = fields.Integer(required=True, **_doc("Regular basras this round"))
    jack_basras = fields.Integer(required=True, **_doc("Jack basras this round"))
    score = fields.Integer(required=True, **_doc("The match total so far"))


class RoundSchema(Schema):
    """The result of a finished round."""

    round = fields.Integer(required=True, **_doc("The round's number, from 1"))
    points = fields.List(
        fields.Integer(), required=True, **_doc("Points scored in the round, one per side")
    )
    cards = fields.List(
        fields.Integer(), required=True, **_doc("Cards captured in the round, one per side")
    )
    majority = fields.Integer(
        allow_none=True,
        required=True,
        **_doc("The side given the majority points, or null (a tie, RULES.md 5.2)"),
    )
    basras = fields.List(
        fields.Integer(), required=True, **_doc("Basras made in the round, one per side")
    )
    jack_basras = fields.List(
        fields.Integer(), required=True, **_doc("Jack basras made in the round, one per side")
    )


class RatingPointSchema(Schema):
    """A rating at one moment (docs/ratings.md)."""

    value = fields.Float(required=True, **_doc("The rating (openskill's mu); 25 to start"))
    deviation = fields.Float(
        required=True, **_doc("How unsure it still is (openskill's sigma); 8.333 to start")
    )


class RatingChangeSchema(Schema):
    """What a rated match did to one seat's player's rating."""

    seat = fields.Integer(required=True, **_doc(SEAT))
    player = fields.String(required=True, **_doc("The player's id"))
    before = fields.Nested(RatingPointSchema, required=True, **_doc("Before the match"))
    after = fields.Nested(RatingPointSchema, required=True, **_doc("After it"))


class ViewSchema(Schema):
    """A game as one seat (or a spectator, without a token) may see it: RULES.md section 7.
    Nobody sees the stock's order or another seat's hand while the game is on."""

    id = fields.String(required=True, **_doc("The game's id"))
    status = Ref(
        "GameStatus",
        required=True,
        validate=validate.OneOf(STATUSES),
        metadata={"description": "Where the game is in its life"},
    )
    version = fields.Integer(
        required=True,
        **_doc("+1 per change of the game (a move, a deal, a join...); also the ETag"),
    )
    round = fields.Integer(required=True, **_doc("The round being played, from 1 (0: waiting)"))
    dealer = fields.Integer(required=True, **_doc("The seat that dealt this round"))
    turn = fields.Integer(
        allow_none=True, required=True, **_doc("The seat to play, or null when nobody is")
    )
    floor = cards("The cards face up on the table, in the order they were laid", required=True)
    stock = fields.Integer(required=True, **_doc("How many cards are left to deal"))
    target_score = fields.Integer(required=True, **_doc("The score that ends the match"))
    seats = fields.List(fields.Nested(SeatViewSchema), required=True, **_doc("Every seat"))
    sides = fields.List(fields.Nested(SideSchema), required=True, **_doc("Both sides"))
    last_capturer = fields.Integer(
        allow_none=True,
        required=True,
        **_doc("The seat that captured last this round: it takes the floor at the round's end"),
    )
    last_move = fields.Nested(
        MoveOutSchema, allow_none=True, required=True, **_doc("The latest move of this round")
    )
    rounds = fields.List(
        fields.Nested(RoundSchema), required=True, **_doc("Every finished round, in order")
    )
    winner = fields.Integer(
        allow_none=True, required=True, **_doc("The winning side once the match is over")
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
        **_doc("The side that resigned, or forfeited (nobody played it), if the match ended so"),
    )
    custom_deck = fields.Boolean(
        required=True, **_doc("true when the creator fixed round 1's deck (`deck`)")
    )
    rated = fields.Boolean(required=True, **_doc("true: the players' ratings change at its end"))
    ratings = fields.List(
        fields.Nested(RatingChangeSchema),
        allow_none=True,
        required=True,
        **_doc("Once a rated match is over: each seat's player's rating before and after it, "
               "changed once, as the match ended; null otherwise"),
    )  # fmt: skip
    you = fields.Integer(**_doc("Your seat (a seat's own view only)"))
    hand = cards("Your hand (a seat's own view only)")
    legal_moves = fields.List(
        fields.Nested(LegalMoveSchema),
        **_doc("On your turn only: what each card of your hand would take"),
    )


class CreatedSeatSchema(Schema):
    """A seat of the new game; a human seat created now carries its token."""

    seat = fields.Integer(required=True, **_doc(SEAT))
    name = fields.String(allow_none=True, required=True, **_doc("The player's name; null: open"))
    bot = Ref("BotLevel", allow_none=True, required=True, metadata={"description": BOT})
    open = fields.Boolean(required=True, **_doc("true: a seat left for someone to join"))
    player = fields.String(allow_none=True, required=True, **_doc(PLAYER))
    token = fields.String(
        **_doc(
            "The bearer token that acts as this seat (`Authorization: Bearer <token>`); shown "
            "once, here, for each human seat created now. Keep it secret."
        )
    )


class FairnessSchema(Schema):
    """The commit-reveal proof of the shuffle (FAIRNESS.md)."""

    algorithm = fields.String(required=True, **_doc("The shuffle's name and version"))
    commitment = fields.String(
        required=True, **_doc("SHA-256 of the server seed, published before the first deal")
    )
    custom_deck = fields.Boolean(
        required=True, **_doc("true when the creator fixed round 1's deck: not a fair deal")
    )
    client_seed = fields.String(
        allow_none=True, **_doc("The players' seeds combined; null until the game is dealt")
    )
    server_seed = fields.String(
        allow_none=True,
        **_doc("The server's secret seed, revealed (hex) once the game is over; null before"),
    )


class CreatedGameSchema(Schema):
    """The new game, with the tokens of its human seats (shown only here)."""

    id = fields.String(required=True, **_doc("The game's id, as in `Location: /games/{id}`"))
    status = Ref(
        "GameStatus", required=True, metadata={"description": "active unless a seat is open"}
    )
    seats = fields.List(fields.Nested(CreatedSeatSchema), required=True, **_doc("Every seat"))
    rules = fields.Nested(EffectiveRulesSchema, required=True, **_doc("The rules it plays by"))
    fairness = fields.Nested(FairnessSchema, required=True, **_doc("The shuffle's commitment"))
    invite = fields.String(
        **_doc("A game with open seats only: what a joiner needs (unless the game is public), "
               "shown only here. Pass it on in a link's #fragment, never in a query string")
    )  # fmt: skip
    moves = fields.List(
        fields.Nested(MoveOutSchema),
        required=True,
        **_doc("Moves the bots made inside this request (a bot may lead)"),
    )
    state = fields.Nested(
        ViewSchema,
        required=True,
        **_doc("The creator's view: the first human seat's, else a spectator's"),
    )


class JoinedSchema(Schema):
    """The seat taken, its token (shown only here) and its view."""

    seat = fields.Integer(required=True, **_doc("The seat you took"))
    token = fields.String(required=True, **_doc("Your seat's bearer token, shown once: keep it"))
    moves = fields.List(
        fields.Nested(MoveOutSchema),
        required=True,
        **_doc("Moves bots made inside this request, once the game was dealt"),
    )
    state = fields.Nested(ViewSchema, required=True, **_doc("Your view of the game"))


class MoveResultSchema(Schema):
    """What a move request applied, and the caller's view after it."""

    moves = fields.List(
        fields.Nested(MoveOutSchema),
        required=True,
        **_doc("Every move this request applied: yours first, then the bots' replies"),
    )
    state = fields.Nested(ViewSchema, required=True, **_doc("Your view after those moves"))


class ResignedSchema(Schema):
    """The caller's view of the match it just resigned."""

    state = fields.Nested(ViewSchema, required=True, **_doc("Your view: the match is over"))


class MovesSchema(Schema):
    """Every move of the game so far (public information)."""

    moves = fields.List(fields.Nested(MoveOutSchema), required=True, **_doc("In order"))


class EventSchema(Schema):
    """One entry of the game's append-only, hash-chained log."""

    seq = fields.Integer(required=True, **_doc("The entry's number, from 1 (= the version)"))
    type = Ref("EventType", required=True, metadata={"description": "What happened"})
    data = fields.Dict(
        required=True,
        **_doc(
            "The event's fields (cards as `Card` codes). While the game is on, a `RoundDealt` "
            "has no `deck`: the whole log opens once the game is over"
        ),
    )
    at = fields.String(required=True, **_doc("When it was appended (ISO 8601, UTC)"))
    hash = fields.String(
        required=True,
        **_doc("SHA-256 over this entry and the previous entry's hash (hex): the chain"),
    )


class EventsSchema(Schema):
    """A part of the game's log, oldest first."""

    events = fields.List(fields.Nested(EventSchema), required=True, **_doc("Oldest first"))
    next_after = fields.Integer(
        allow_none=True,
        required=True,
        **_doc("More events follow: ask again with `?after=<this>`; null on the last page"),
    )


class ReplayStateSchema(ViewSchema):
    """The complete state of a finished game at one step: every card's place."""

    hands = fields.List(
        fields.List(Ref("Card")), required=True, **_doc("Every seat's hand, seat 0 first")
    )
    stock = fields.List(  # type: ignore[assignment]
        Ref("Card"), required=True, **_doc("The cards left to deal, top first")
    )
    stock_size = fields.Integer(required=True, **_doc("How many cards are left to deal"))
    piles = fields.List(
        fields.List(Ref("Card")),
        required=True,
        **_doc("Each side's capture pile this round, side 0 first"),
    )


class ReplaySchema(Schema):
    """A finished game replayed to one step."""

    step = fields.Integer(required=True, **_doc("The moves replayed (0: the first deal)"))
    moves = fields.Integer(required=True, **_doc("How many moves the whole game has"))
    state = fields.Nested(ReplayStateSchema, required=True, **_doc("The state after `step`"))


class VerifySchema(Schema):
    """The audit of one game."""

    ok = fields.Boolean(required=True, **_doc("true when every check passed"))
    checks = fields.Dict(
        required=True,
        **_doc(
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

    id = fields.String(required=True, **_doc("The game's id"))
    status = Ref("GameStatus", required=True, metadata={"description": "The game's status"})
    version = fields.Integer(required=True, **_doc("The game's version"))
    created_at = fields.String(required=True, **_doc("When it was created (ISO 8601)"))
    seats = fields.List(
        fields.Dict(), required=True, **_doc("Every seat: `seat`, `name`, `bot` and `player`")
    )
    scores = fields.List(fields.Integer(), required=True, **_doc("Match totals, one per side"))
    winner = fields.Integer(allow_none=True, required=True, **_doc("The winning side, or null"))
    custom_deck = fields.Boolean(required=True, **_doc("true when the creator fixed a deck"))
    rated = fields.Boolean(required=True, **_doc("true: its players' ratings change at its end"))


class GamesPageSchema(Schema):
    """A page of games, newest first."""

    games = fields.List(fields.Nested(GameSummarySchema), required=True, **_doc("Newest first"))
    next_cursor = fields.String(
        allow_none=True,
        required=True,
        **_doc("Pass it as `cursor` to read the next page; null on the last page"),
    )


# ---------------------------------------------------------------- stream records
# The `data:` line of each record of GET /games/{id}/stream, by its `event:` name. The record's
# `id:` is the version of the game that the event made. Registered as components (see
# app/api/__init__.py) so that other documents can refer to them.
class JoinedRecordSchema(Schema):
    """Stream record `joined`: a player took an open seat."""

    seat = fields.Integer(required=True, **_doc(SEAT))
    name = fields.String(required=True, **_doc("The player's name"))
    player = fields.String(allow_none=True, required=True, **_doc(PLAYER))


class DealtRecordSchema(Schema):
    """Stream record `dealt`: a round was dealt (no cards: they are hidden)."""

    round = fields.Integer(required=True, **_doc("The round dealt, from 1"))
    dealer = fields.Integer(required=True, **_doc("The seat that dealt it"))


class MoveRecordSchema(MoveOutSchema):
    """Stream record `move`: a move (as `GET /games/{game_id}/moves` lists it) and the version."""

    version = fields.Integer(required=True, **_doc("The game's version after this move"))


class RoundRecordSchema(RoundSchema):
    """Stream record `round`: a round was scored (an entry of the view's `rounds`)."""


class TimeoutRecordSchema(Schema):
    """Stream record `timeout`: a seat's turn clock ran out and the server played for it."""

    seat = fields.Integer(required=True, **_doc("The seat whose time ran out"))
    card = card("The card the server played for the seat", required=True)


class ResignedRecordSchema(Schema):
    """Stream record `resigned`: a seat resigned, or its side forfeited, and the side lost the
    match."""

    side = fields.Integer(required=True, **_doc("The side that resigned or forfeited"))
    reason = fields.String(
        validate=validate.OneOf(["abandoned", "idle"]),
        **_doc(
            "Only for a forfeit: `abandoned` (the bot took the last seat a human played, after "
            "its timeouts) or `idle` (no turn clock, and the seat to move let `idle_seconds` "
            "pass)"
        ),
    )


class OverRecordSchema(Schema):
    """Stream record `over`: the match is over; the stream ends after it."""

    winner = fields.Integer(
        allow_none=True, required=True, **_doc("The winning side, or null for a draw")
    )
    scores = fields.List(fields.Integer(), required=True, **_doc("Match totals, one per side"))


STREAM_RECORDS: dict[str, type[Schema]] = {
    "joined": JoinedRecordSchema,
    "dealt": DealtRecordSchema,
    "move": MoveRecordSchema,
    "round": RoundRecordSchema,
    "timeout": TimeoutRecordSchema,
    "resigned": ResignedRecordSchema,
    "over": OverRecordSchema,
}


class ProblemSchema(Schema):
    """A refusal (RFC 9457). A refused request changed nothing."""

    type = fields.String(required=True, **_doc("`/problems/<code>`"))
    title = fields.String(required=True, **_doc("A short summary of the code"))
    status = fields.Integer(required=True, **_doc("The HTTP status"))
    detail = fields.String(required=True, **_doc("What was wrong with this request"))
    code = Ref("ProblemCode", required=True, metadata={"description": "The stable code"})
    errors = fields.Dict(
        **_doc("`invalid_request`: the offending fields, each with what was wrong")
    )
    version = fields.Integer(**_doc("`version_mismatch`: the game's version now"))
    seek_id = fields.String(**_doc("`already_seeking`: the player's waiting seek"))
    request_id = fields.String(
        **_doc("The request's id, as in its X-Request-ID header (for the logs)")
    )


# ---------------------------------------------------------------- GET /rules
class RuleOptionSchema(Schema):
    """One key of `rules` in POST /games: what it means and what it accepts."""

    name = fields.String(required=True, metadata={"description": "the key in `rules`"})
    label = fields.String(required=True, metadata={"description": "a short human name"})
    help = fields.String(required=True, metadata={"description": "a one-line explanation"})
    type = fields.String(
        required=True,
        validate=validate.OneOf(["choice", "integer", "boolean", "string"]),
        metadata={"description": "the kind of value: which of the fields below apply"},
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


class BotInfoSchema(Schema):
    """A bot a seat can be given, as `{"bot": level}` in POST /games; listed weakest first."""

    level = Ref("BotLevel", required=True, metadata={"description": "the bot's level"})
    player = fields.String(
        required=True,
        metadata={"description": "the level's player id (`bot-<level>`): GET /players/{id}"},
    )
    help = fields.String(required=True, metadata={"description": "how it plays, in a line"})
    rating = fields.Integer(
        required=True,
        metadata={
            "description": "its strength on the Elo scale (random is 1000; 200 more wins about "
            "three matches in four), fitted to matches between the levels (docs/bots.md)"
        },
    )


class TargetScoreSchema(Schema):
    """The range of `target_score` and the usual choices."""

    default = fields.Integer(required=True, metadata={"description": "the default target"})
    minimum = fields.Integer(required=True, metadata={"description": "the smallest allowed"})
    maximum = fields.Integer(required=True, metadata={"description": "the largest allowed"})
    presets = fields.List(
        fields.Integer(), required=True, metadata={"description": "usual targets"}
    )


class GameSetupSchema(Schema):
    """Everything a game can be set up with, for a client's setup form."""

    players = fields.List(
        fields.Integer(),
        required=True,
        metadata={"examples": [[2, 4]], "description": "the allowed numbers of players"},
    )
    bots = fields.List(
        fields.Nested(BotInfoSchema), required=True, metadata={"description": "every bot level"}
    )
    target_score = fields.Nested(
        TargetScoreSchema, required=True, metadata={"description": "the target's range"}
    )
    options = fields.List(
        fields.Nested(RuleOptionSchema),
        required=True,
        metadata={"description": "every key of `rules` in POST /games, target_score included"},
    )
    public_games = fields.Boolean(
        required=True,
        metadata={"description": 'whether POST /games takes `"public": true` for open seats'},
    )
