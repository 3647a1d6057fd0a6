"""What GET /rules answers: every rule option, the bot levels and the game setups."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from app.api.contract import Ref


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
    rating = fields.Float(
        required=True,
        metadata={
            "description": "its rating on the players' scale, fixed (no game moves it): the "
            "`rating.value` of its player (GET /players/{id}), and what matchmaking seats it by "
            "(docs/ratings.md)"
        },
    )
    elo = fields.Integer(
        required=True,
        metadata={
            "description": "its strength on the Elo scale (random is 1000; 200 more wins about "
            "three matches in four), fitted to matches between the levels (docs/bots.md): "
            "`rating` is this, calibrated once onto the players' scale"
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
