"""What requests carry: the bodies of POST /games, /join and /moves, and the queries."""

from __future__ import annotations

import json
from typing import Any

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, validate, validates_schema

from app.api.contract import Ref
from app.api.schema_fields import (
    NAME,
    PLAYER_KINDS,
    SEED,
    TEXT,
    Name,
    StrictBoolean,
    StrictSchema,
    WholeNumber,
    check_not_reserved,
    doc,
)
from app.engine import PLAYER_COUNTS
from app.engine.bots import BOT_LEVELS
from app.engine.catalog import OPTION_HELP, VALUE_HELP
from app.engine.rules import CHOICES, LIMITS, NULLABLE_LIMITS, Rules
from app.services.audit import EVENTS_MAX, EVENTS_PAGE
from app.services.model import STATUSES


# ---------------------------------------------------------------- requests
class PlayerSchema(StrictSchema):
    """A seat of a new game: a human seated now (name, seed), a bot (bot, name), or an open
    seat (open) for a second player to take with POST /games/{game_id}/join."""

    name = Name(**doc(NAME))
    seed = fields.String(validate=[validate.Length(max=64), TEXT], **doc(SEED))
    bot = Ref(
        "BotLevel",
        validate=validate.OneOf(BOT_LEVELS),
        metadata={"description": "Makes this seat a bot of that level"},
    )
    open = StrictBoolean(**doc("true: a human seat left open, to be joined later"))
    player = fields.String(
        validate=validate.OneOf(["me"]),
        **doc('"me": the seat of the player whose bearer sends the request (POST /players)'),
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
    return doc(f"{label}: {explanation}{values} Default: `{json.dumps(_DEFAULTS[name])}`.")


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
    rules = fields.Nested(RulesSchema, **doc("Options of RULES.md; left out: the defaults"))
    public = StrictBoolean(
        **doc("Open seats joinable without the invite, and the game listed while waiting "
               "(default false: only who has the invite can join)"),
    )  # fmt: skip
    rated = StrictBoolean(
        **doc("true: the players' ratings change when the match ends (default false). Every "
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

    name = Name(**doc(NAME + "; needed unless a player's bearer sends the request"))
    seed = fields.String(validate=[validate.Length(max=64), TEXT], **doc(SEED))
    invite = fields.String(
        validate=[validate.Length(max=100), TEXT],
        **doc("The game's invite, as its creator was given it: needed unless the game is "
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
        **doc("Only the events after this sequence number (0: from the start)"),
    )
    limit = fields.Integer(
        load_default=EVENTS_PAGE,
        validate=validate.Range(min=1, max=EVENTS_MAX),
        **doc(f"Events per page (default {EVENTS_PAGE}, at most {EVENTS_MAX})"),
    )


class ReplayQuerySchema(QuerySchema):
    step = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=2**31 - 1),
        **doc("How many moves to replay, 0 (right after the first deal) to the game's `moves`"),
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
        **doc("At most this many games in the page"),
    )
    cursor = fields.String(
        validate=validate.Length(max=200),
        **doc("The `next_cursor` of the previous page, to read the next one"),
    )
