"""The pieces every schema of the API is made of: names, strict schemas and fields, the texts
that document seats, sides and players."""

from __future__ import annotations

import unicodedata
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate

from app.engine.bots import BOT_NAMES

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


def doc(text: str, **more: Any) -> dict[str, Any]:
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
