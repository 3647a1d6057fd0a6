"""Schemas of players, their games and the leaderboard (API.md items 17, 19 and 20)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate, validates_schema

from app.api.contract import Ref
from app.api.request_schemas import QuerySchema
from app.api.schema_fields import NAME, PLAYER, SEAT, Name, StrictSchema, check_not_reserved
from app.services.ratings import PROVISIONAL_GAMES


def _doc(text: str) -> dict[str, Any]:
    return {"metadata": {"description": text}}


class CreatePlayerSchema(StrictSchema):
    """A new player."""

    name = Name(required=True, **_doc(NAME))

    @validates_schema
    def check_name(self, data: dict[str, Any], **_kwargs: Any) -> None:
        check_not_reserved(data.get("name"))


class RenamePlayerSchema(CreatePlayerSchema):
    """The player's new name."""


class RatingSchema(Schema):
    """A player's rating now (docs/ratings.md)."""

    value = fields.Float(required=True, **_doc("The rating (openskill's mu); 25 to start"))
    deviation = fields.Float(
        required=True, **_doc("How unsure it still is (openskill's sigma); 8.333 to start")
    )
    provisional = fields.Boolean(
        required=True, **_doc(f"true until the player's {PROVISIONAL_GAMES}th rated match")
    )


class StatsSchema(Schema):
    """A player's finished matches, rated or not."""

    played = fields.Integer(required=True, **_doc("Finished matches"))
    won = fields.Integer(required=True, **_doc("Won (resigned and forfeited ones included)"))
    lost = fields.Integer(required=True, **_doc("Lost"))
    drawn = fields.Integer(required=True, **_doc("Drawn"))


class CreatedPlayerSchema(Schema):
    """The new player, with its bearer token (shown only here)."""

    id = fields.String(required=True, **_doc("The player's id"))
    name = fields.String(required=True, **_doc(NAME))
    token = fields.String(
        required=True,
        **_doc("The player's bearer token (`Authorization: Bearer <token>`), shown once: it "
               "acts for every seat the player holds. Keep it secret"),
    )  # fmt: skip
    rating = fields.Nested(RatingSchema, required=True, **_doc("Where every player starts"))


class PlayerProfileSchema(Schema):
    """A player as anyone may see it."""

    id = fields.String(required=True, **_doc("The player's id; a bot level's is `bot-<level>`"))
    name = fields.String(required=True, **_doc(NAME))
    bot = Ref("BotLevel", allow_none=True, required=True,
              metadata={"description": "The bot level this player is, or null"})  # fmt: skip
    rating = fields.Nested(RatingSchema, required=True, **_doc("The rating now"))
    stats = fields.Nested(StatsSchema, required=True, **_doc("Its finished matches"))


class ListedSeatSchema(Schema):
    """A seat of a game in a player's list: who sits there."""

    seat = fields.Integer(required=True, **_doc(SEAT))
    name = fields.String(
        allow_none=True, required=True,
        **_doc("The name of whoever sits there (or is awaited there); null: an open seat"),
    )  # fmt: skip
    player = fields.String(allow_none=True, required=True, **_doc(PLAYER))
    bot = Ref("BotLevel", allow_none=True, required=True,
              metadata={"description": "The bot level of a bot's seat, or null"})  # fmt: skip


class PlayerGameSchema(Schema):
    """A game a player holds a seat of."""

    id = fields.String(required=True, **_doc("The game's id"))
    status = Ref("GameStatus", required=True, metadata={"description": "The game's status"})
    seat = fields.Integer(required=True, **_doc("The player's seat"))
    side = fields.Integer(required=True, **_doc("The seat's side"))
    result = fields.String(
        allow_none=True, required=True, validate=validate.OneOf(["won", "lost", "drawn"]),
        **_doc("`won`, `lost` or `drawn` once finished; null before, or cancelled"),
    )  # fmt: skip
    rated = fields.Boolean(required=True, **_doc("true: a rated game"))
    rating_before = fields.Float(
        allow_none=True, required=True, **_doc("A rated game's end: the rating before it")
    )
    rating_after = fields.Float(
        allow_none=True, required=True, **_doc("A rated game's end: the rating after it")
    )
    players = fields.List(
        fields.Nested(ListedSeatSchema), required=True, **_doc("Every seat of the game, in order")
    )
    scores = fields.List(fields.Integer(), required=True, **_doc("Match totals, one per side"))
    updated_at = fields.String(
        required=True, **_doc("When the game last changed (ISO 8601 UTC): a move, a join, its end")
    )
    your_turn = fields.Boolean(
        required=True, **_doc("true: the game is being played and the player's seat is to move")
    )


class PlayerGamesPageSchema(Schema):
    """A page of a player's games, newest first."""

    games = fields.List(fields.Nested(PlayerGameSchema), required=True, **_doc("Newest first"))
    next_cursor = fields.String(
        allow_none=True, required=True,
        **_doc("Pass it as `cursor` to read the next page; null on the last page"),
    )  # fmt: skip


class LeaderboardQuerySchema(QuerySchema):
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100),
                           **_doc("At most this many players"))  # fmt: skip


class RankedPlayerSchema(PlayerProfileSchema):
    """A player on the leaderboard."""

    rank = fields.Integer(required=True, **_doc("1 for the highest rating"))


class LeaderboardSchema(Schema):
    """The highest rated players, provisional ones left out."""

    players = fields.List(fields.Nested(RankedPlayerSchema), required=True,
                          **_doc("The highest rating first"))  # fmt: skip
