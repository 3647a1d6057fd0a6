"""The pieces every schema of the API is made of: names, strict schemas and fields, the texts
that document seats, sides and players."""

from __future__ import annotations

import unicodedata
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate

from app.services.names import HIDDEN, SEAT_NAME_MAX, NameRefused, normal_name, reads_as_bot

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


def check_not_reserved(name: str | None, field: str = "name") -> None:
    """A human's name that reads as a bot level's (look-alike letters included) is refused."""
    if name is not None and reads_as_bot(name):
        raise ValidationError("this name reads as a bot's: it is kept for the server's bots", field)


NO_NUL_PATTERN = r"^[^\x00]*$"  # PostgreSQL cannot store NUL in text
TEXT = validate.Regexp(NO_NUL_PATTERN, error="must not contain NUL characters")


class Name(fields.String):
    """A name, as app/services/names.py keeps it: NFKC-normalised, trimmed, its spaces
    collapsed, 1 to ``longest`` characters with no control (Cc) or format (Cf) character, so a
    right-to-left override or a zero-width character cannot make one name pass for another."""

    def __init__(self, longest: int = SEAT_NAME_MAX, **kwargs: Any) -> None:
        metadata = {"pattern": NAME_PATTERN, **kwargs.pop("metadata", {})}
        super().__init__(validate=validate.Length(min=1, max=longest), metadata=metadata,
                         **kwargs)  # fmt: skip
        self.longest = longest

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> str:
        text: str = super()._deserialize(value, attr, data, **kwargs)
        try:
            return normal_name(text, self.longest)
        except NameRefused as refused:
            raise ValidationError(str(refused)) from refused


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


def doc(text: str, **more: Any) -> dict[str, Any]:
    return {"metadata": {"description": text, **more}}


SEAT = "A seat number, 0 to players-1; seats 0 and 2 form side 0, seats 1 and 3 side 1"
SIDE = "A side: one player, or one team of two in a four-player game (0 or 1)"
NAME = (
    "A seat's name, 1 to 40 characters once NFKC-normalised, trimmed and its spaces collapsed; "
    "no control or format character"
)
PLAYER_NAME = (
    "A player's name, 1 to 24 characters once NFKC-normalised, trimmed and its spaces "
    "collapsed; no control or format character, and none that reads as a bot's (422)"
)
SEED = (
    "Up to 64 characters of the player's own, mixed into the shuffle of every round "
    "(FAIRNESS.md), so that no side alone decides the deal"
)
BOT = "The bot playing this seat, or null for a human seat"
PLAYER = (
    "The id of the player holding this seat (GET /players/{player_id}); a bot's seat is its "
    "level's player (`bot-<level>`); null: a seat held by its seat token alone, or open"
)
