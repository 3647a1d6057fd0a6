"""The shapes of /seeks (API.md item 21): what a seek asks for, and what it answers."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from app.api.request_schemas import EffectiveRulesSchema, QuerySchema, RulesSchema
from app.api.schema_fields import SEAT, StrictBoolean, StrictSchema, WholeNumber
from app.engine import PLAYER_COUNTS
from app.services.model import SEEK_STATUSES, SeekRecord
from app.services.seeks import SEEK_SECONDS

MAX_WAIT_SECONDS = 30  # the longest a GET /seeks/{id}?wait= holds its answer


def _doc(text: str, **more: Any) -> dict[str, Any]:
    return {"metadata": {"description": text, **more}}


class SeekSchema(StrictSchema):
    """A wish to play: the table's size and kind; paired with seeks of the same kind."""

    players = WholeNumber(
        required=True,
        validate=validate.OneOf(PLAYER_COUNTS),
        **_doc("Players at the table: 2, or 4 (two teams of two, balanced by rating)"),
    )
    rated = StrictBoolean(**_doc("A rated game (default false): paired with rated seeks only"))
    rules = fields.Nested(
        RulesSchema,
        **_doc("Options of RULES.md; left out: the defaults. Paired only with seeks whose "
               "effective rules are the same"),
    )  # fmt: skip
    bot_after = WholeNumber(
        validate=validate.Range(min=0, max=SEEK_SECONDS),
        **_doc("Seconds: still waiting after this long, the seek is matched with bots of the "
               "rating closest to yours (left out: humans only)"),
    )  # fmt: skip


class SeekQuerySchema(QuerySchema):
    wait = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_WAIT_SECONDS),
        **_doc("Hold the answer up to this many seconds while the seek is waiting, and answer "
               "as soon as it changes (0, the default: at once)"),
    )  # fmt: skip


class SeekOutSchema(Schema):
    """A seek as its player sees it."""

    id = fields.String(required=True, **_doc("The seek's id"))
    status = fields.String(
        required=True,
        validate=validate.OneOf(SEEK_STATUSES),
        **_doc("`waiting`, `matched` (its game is made: `game_id`, `seat`), `cancelled` by "
               "its player, or `expired` (nobody matched it within 10 minutes)"),
    )  # fmt: skip
    players = fields.Integer(required=True, **_doc("Players at the table: 2 or 4"))
    rated = fields.Boolean(required=True, **_doc("A rated game"))
    rules = fields.Nested(EffectiveRulesSchema, required=True, **_doc("The effective rules"))
    bot_after = fields.Integer(allow_none=True, required=True,
                               **_doc("Seconds before bots are taken, or null"))  # fmt: skip
    created_at = fields.String(required=True, **_doc("When it was made (ISO 8601 UTC)"))
    expires_at = fields.String(required=True, **_doc("When it expires if still waiting"))
    game_id = fields.String(**_doc("Once matched: the game (GET /games/{id} with your bearer)"))
    seat = fields.Integer(**_doc(f"Once matched: your seat. {SEAT}"))


def seek_body(seek: SeekRecord) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": seek.id,
        "status": seek.status,
        "players": seek.players,
        "rated": seek.rated,
        "rules": seek.rules,
        "bot_after": seek.bot_after,
        "created_at": seek.created_at.isoformat(),
        "expires_at": seek.expires_at.isoformat(),
    }
    if seek.game_id is not None:
        body |= {"game_id": seek.game_id, "seat": seek.seat}
    return body
