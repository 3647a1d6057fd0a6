"""The contract's closed sets as OpenAPI components, the ``Ref`` fields that point at them, and
the plugins that describe every schema and every operation's X-Request-ID. The problems each
operation can answer are built in ``problem_answers.py``.

Every list here is read from the code that decides it (the engine's 52 cards, the bot levels,
the game statuses, the log's event types, the one table of problem codes in ``errors.py``), so
``openapi.yaml`` can neither name a value the server does not know nor miss one it answers.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from apispec import BasePlugin
from marshmallow import fields

from app.api.errors import PROBLEMS
from app.api.telemetry import REQUEST_ID, REQUEST_ID_HEADER
from app.engine import BASRA, EVENT_TYPES_BY_NAME, JACK_BASRA
from app.engine.bots import BOT_LEVELS
from app.engine.cards import FULL_DECK, RANKS, SUITS
from app.engine.catalog import BOT_HELP
from app.services.log import EVENT_TYPES
from app.services.model import STATUSES

CARD_CODES: tuple[str, ...] = tuple(str(card) for card in FULL_DECK)
# What the server accepts for a card: the code in any letter case (Card.parse upper-cases it).
CARD_INPUT_PATTERN = "^(?:[2-9AJQKajqk]|10)[SHDCshdc]$"


STATUS_DOCS = {
    "waiting": "created with open seats, not yet dealt",
    "active": "being played",
    "finished": "the match is over; the whole log and the server seed are open",
    "cancelled": "nobody filled the open seats in time; the seed is revealed",
}
# The log's entries written around the engine's own events (those describe themselves).
SERVICE_EVENT_DOCS = {
    "GameCreated": "the seats, rules, shuffle algorithm and commitment (first entry)",
    "SeatJoined": "a player took an open seat",
    "SeedRevealed": "the server seed, once the game is over",
    "GameCancelled": "a waiting game nobody joined in time ended",
    "RematchOffered": "a seat of the finished game asked for a rematch: `game_id` is the new "
    "game (the same for every seat), `seat` the seat that asked first",
}


def _event_doc(kind: str) -> str:
    """An engine event's own docstring and fields, or the words above for the service's."""
    cls = EVENT_TYPES_BY_NAME.get(kind)
    if cls is None:
        return SERVICE_EVENT_DOCS.get(kind, "")
    names = ", ".join(f"`{field.name}`" for field in dataclasses.fields(cls))
    doc = cls.__doc__ or ""
    own = "" if doc.startswith(f"{kind}(") else " ".join(doc.split()).replace("``", "`")
    return f"{own} ({names})".strip()


def ref(component: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{component}"}


COMPONENTS: dict[str, dict[str, Any]] = {
    "Card": {
        "type": "string",
        "enum": list(CARD_CODES),
        "description": (
            f"A card: its rank ({', '.join(RANKS)}) then its suit ({', '.join(SUITS)}: spades, "
            "hearts, diamonds, clubs), so `7D` is the seven of diamonds and `10H` the ten of "
            "hearts. The server always writes codes in upper case. The 52 codes are listed in "
            "the canonical order of the fair shuffle (FAIRNESS.md): AS=0 ... KC=51."
        ),
        "examples": ["7D"],
    },
    "CardInput": {
        "description": (
            "A card as a client may send it: a `Card` code, in any letter case (`7D`, `7d`, "
            "`10h` and `js` are all accepted; answers write them as `7D`, `10H`, `JS`). A "
            "string of that form that is no card is refused as `invalid_card`."
        ),
        "anyOf": [
            ref("Card"),
            {"type": "string", "pattern": CARD_INPUT_PATTERN, "maxLength": 3},
        ],
        "examples": ["7D"],
    },
    "GameStatus": {
        "type": "string",
        "enum": list(STATUSES),
        "description": "Where a game is in its life: "
        + "; ".join(f"`{status}`: {STATUS_DOCS.get(status, status)}" for status in STATUSES),
    },
    "BotLevel": {
        "type": "string",
        "enum": list(BOT_LEVELS),
        "description": "A bot's level: "
        + "; ".join(f"`{level}` {BOT_HELP[level]}" for level in BOT_LEVELS),
    },
    "BasraKind": {
        "type": "string",
        "enum": [BASRA, JACK_BASRA],
        "description": (
            "`basra`: a capture that emptied the floor (RULES.md 4.1); `jack_basra`: a Jack on "
            "a lone Jack, a Jack on a lone 7D, or the 7D on a lone Jack (4.2)."
        ),
    },
    "EventType": {
        "type": "string",
        "enum": list(EVENT_TYPES),
        "description": "The kind of an entry of the game's event log; its `data` depends on it. "
        + "; ".join(f"`{kind}`: {_event_doc(kind)}" for kind in EVENT_TYPES),
    },
    "ProblemCode": {
        "type": "string",
        "enum": list(PROBLEMS),
        "description": "The stable code of a refusal: "
        + "; ".join(f"`{code}` ({status}): {title}" for code, (status, title) in PROBLEMS.items()),
    },
}


NULL: dict[str, Any] = {"type": "null"}


class Ref(fields.String):
    """A string field documented as a reference to one of ``COMPONENTS``."""

    def __init__(self, component: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.component = component


def card(description: str, **kwargs: Any) -> Ref:
    return Ref("Card", metadata={"description": description}, **kwargs)


def cards(description: str, **kwargs: Any) -> fields.List:
    return fields.List(Ref("Card"), metadata={"description": description}, **kwargs)


def _component_property(converter: Any, field: fields.Field, ret: dict[str, Any],
                        **_kwargs: Any) -> dict[str, Any]:  # fmt: skip
    """Document a ``Ref`` field as ``allOf: [$ref]`` (keeping its description beside it), or
    ``anyOf: [$ref, null]`` when it may be null. A nested schema's ``$ref`` with words beside
    it goes in an ``allOf`` too: OpenAPI 3.1 allows the siblings, but generators such as
    openapi-python-client read a ``$ref`` alone and drop them (a ``oneOf`` of player kinds)."""
    component = getattr(field, "component", None)
    if component is None:
        if "$ref" in ret and len(ret) > 1:
            ret["allOf"] = [{"$ref": ret.pop("$ref")}]
        return {}
    kept: dict[str, Any] = {
        key: ret[key] for key in ("description", "readOnly", "writeOnly") if key in ret
    }
    ret.clear()
    ret.update(kept)
    if field.allow_none:
        return {"anyOf": [ref(component), dict(NULL)]}
    return {"allOf": [ref(component)]}


class DescriptionsPlugin(BasePlugin):
    """A marshmallow schema's docstring becomes its component's description."""

    def schema_helper(self, name: str, definition: Any, **kwargs: Any) -> dict[str, Any] | None:
        schema = kwargs.get("schema")
        cls = schema if isinstance(schema, type) else type(schema)
        doc = cls.__dict__.get("__doc__") if schema is not None else None  # not inherited
        if not doc:
            return None
        return {"description": " ".join(doc.split())}


class RequestIdPlugin(BasePlugin):
    """Every operation takes an optional X-Request-ID and every answer carries one."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **_kwargs: Any) -> None:  # fmt: skip
        for operation in (operations or {}).values():
            parameters = operation.setdefault("parameters", [])
            if not any(p.get("name") == REQUEST_ID_HEADER for p in parameters if "name" in p):
                # No pattern: an id that is not sane is replaced, never refused.
                parameters.append({"in": "header", "name": REQUEST_ID_HEADER, "required": False,
                                   **REQUEST_ID})  # fmt: skip
            for answer in operation.get("responses", {}).values():
                if isinstance(answer, dict) and "$ref" not in answer:
                    answer.setdefault("headers", {})[REQUEST_ID_HEADER] = dict(REQUEST_ID)


def install(api: Any) -> None:
    """Register the components, the ``Ref`` converter and the descriptions on ``api``."""
    for plugin in (DescriptionsPlugin(), RequestIdPlugin()):
        plugin.init_spec(api.spec)
        api.spec.plugins.append(plugin)
    for name, schema in COMPONENTS.items():
        api.spec.components.schema(name, schema)
    api.ma_plugin.converter.add_attribute_function(_component_property)
    # flask-smorest's own pagination schema: this API pages with cursors, and never uses it.
    api.spec.components.schemas.pop("PaginationMetadata", None)
