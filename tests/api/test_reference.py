"""openapi.yaml as a front-end team reads it: every operation and property described, every card
a `Card`, every closed set an enum read from the code, and every refusal's codes listed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from openapi_spec import committed_spec

from app.api.contract import CARD_CODES
from app.api.errors import PROBLEM_JSON, PROBLEMS
from app.api.record_schemas import STREAM_RECORDS
from app.engine.bots import BOT_LEVELS
from app.engine.cards import FULL_DECK
from app.engine.rules import CHOICES
from app.services.log import EVENT_TYPES

ROOT = Path(__file__).resolve().parents[2]
SPEC = committed_spec()
SCHEMAS = SPEC["components"]["schemas"]
METHODS = ("get", "post", "put", "patch", "delete")
# Properties that hold one card or a list of cards, wherever they appear.
CARD_FIELDS = {"card", "captured", "floor", "hand", "deck", "hands", "piles", "leftover"}


def operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, ops in SPEC["paths"].items():
        for method, op in ops.items():
            if method in METHODS:
                yield path, method, op


def properties(schema: dict[str, Any], where: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every property of a schema and of the schemas written inline inside it."""
    for name, prop in schema.get("properties", {}).items():
        yield f"{where}.{name}", name, prop
        yield from properties(prop, f"{where}.{name}")
        if "items" in prop:
            yield from properties(prop["items"], f"{where}.{name}[]")
    for key in ("allOf", "anyOf", "oneOf"):
        for index, part in enumerate(schema.get(key, [])):
            yield from properties(part, f"{where}.{key}[{index}]")


def refers_to(prop: dict[str, Any], component: str) -> bool:
    """Whether a property (or, for a list, its items, at any depth) refers to ``component``."""
    target = f"#/components/schemas/{component}"
    if prop.get("$ref") == target:
        return True
    if "items" in prop:
        return refers_to(prop["items"], component)
    return any(
        refers_to(part, component) for key in ("allOf", "anyOf") for part in prop.get(key, [])
    )


def test_every_operation_has_a_summary_a_description_and_an_id():
    ids = [op.get("operationId") for _, _, op in operations()]
    assert None not in ids and len(set(ids)) == len(ids), ids
    for path, method, op in operations():
        assert op.get("summary"), f"{method} {path}"
        assert len(op.get("description", "")) > 60, f"{method} {path}: describe it"


def test_every_parameter_and_header_is_described():
    for path, method, op in operations():
        for parameter in op.get("parameters", []):
            assert parameter.get("description"), f"{method} {path} {parameter['name']}"
        for status, answer in op["responses"].items():
            assert answer.get("description") or "$ref" in answer, (path, method, status)
            for name, header in answer.get("headers", {}).items():
                assert header.get("description"), f"{method} {path} {status} {name}"


def test_every_schema_and_every_property_is_described():
    undescribed = [name for name, schema in SCHEMAS.items() if not schema.get("description")]
    for name, schema in SCHEMAS.items():
        undescribed += [
            where
            for where, prop_name, prop in properties(schema, name)
            # (parts of allOf/anyOf/oneOf restate a property described beside them)
            if not prop.get("description") and not any(k in where for k in ("Of[",))
        ]
    assert not undescribed, undescribed


def test_card_lists_the_52_codes_of_the_engine_in_upper_case():
    card = SCHEMAS["Card"]
    assert card["enum"] == [str(c) for c in FULL_DECK] == list(CARD_CODES)
    assert len(set(card["enum"])) == 52 and all(code == code.upper() for code in card["enum"])


def test_card_input_takes_a_card_in_any_letter_case_and_says_so():
    schema = SCHEMAS["CardInput"]
    assert {"$ref": "#/components/schemas/Card"} in schema["anyOf"]
    assert "lower" in schema["description"] or "any letter case" in schema["description"]


def test_every_card_valued_field_refers_to_card():
    wrong = []
    for name, schema in SCHEMAS.items():
        for where, prop_name, prop in properties(schema, name):
            is_card = refers_to(prop, "Card") or refers_to(prop, "CardInput")
            if prop_name in CARD_FIELDS and prop.get("type") != "integer" and not is_card:
                wrong.append(where)
    assert not wrong, f"card-valued fields that are not a Card: {wrong}"


def test_requests_take_card_input_and_answers_write_card():
    assert refers_to(SCHEMAS["Move"]["properties"]["card"], "CardInput")
    assert refers_to(SCHEMAS["CreateGame"]["properties"]["deck"], "CardInput")
    assert refers_to(SCHEMAS["View"]["properties"]["hand"], "Card")
    assert not refers_to(SCHEMAS["View"]["properties"]["hand"], "CardInput")


def test_closed_sets_are_enums_read_from_the_code():
    assert SCHEMAS["BotLevel"]["enum"] == list(BOT_LEVELS)
    assert SCHEMAS["EventType"]["enum"] == list(EVENT_TYPES)
    assert set(SCHEMAS["BasraKind"]["enum"]) == {"basra", "jack_basra"}
    assert {"waiting", "active", "finished"} <= set(SCHEMAS["GameStatus"]["enum"])
    for option, allowed in CHOICES.items():
        assert SCHEMAS["Rules"]["properties"][option]["enum"] == list(allowed), option
    for name in ("View", "GameSummary", "CreatedGame"):
        assert refers_to(SCHEMAS[name]["properties"]["status"], "GameStatus"), name
    assert refers_to(SCHEMAS["Event"]["properties"]["type"], "EventType")
    assert refers_to(SCHEMAS["MoveOut"]["properties"]["basra"], "BasraKind")


def test_every_status_event_type_and_stream_record_is_explained():
    for component in ("GameStatus", "EventType", "StreamRecordType", "ProblemCode", "BotLevel"):
        schema = SCHEMAS[component]
        for value in schema["enum"]:
            assert f"`{value}`" in schema["description"], f"{component}: explain {value}"
    assert SCHEMAS["StreamRecordType"]["enum"] == list(STREAM_RECORDS)


def test_problem_code_is_the_enum_of_every_code_in_the_one_table():
    assert SCHEMAS["ProblemCode"]["enum"] == list(PROBLEMS)
    assert refers_to(SCHEMAS["Problem"]["properties"]["code"], "ProblemCode")


def test_every_refusal_names_its_codes_with_an_example_each():
    for path, method, op in operations():
        refusals = {s: a for s, a in op["responses"].items() if s[0] in "45"}
        probe = path in {"/healthz", "/readyz", "/metrics"}  # exempt from the limits
        assert probe or "429" in refusals, f"{method} {path}: every operation may be limited"
        for status, answer in refusals.items():
            content = answer["content"][PROBLEM_JSON]
            codes = content["schema"]["allOf"][1]["properties"]["code"]["enum"]
            assert codes and all(PROBLEMS[code][0] == int(status) for code in codes), status
            assert set(content["examples"]) == set(codes), f"{method} {path} {status}"
            for code in codes:
                assert f"`{code}`" in answer["description"], f"{method} {path} {status} {code}"


def test_every_answer_carries_x_request_id_and_every_operation_takes_one():
    for path, method, op in operations():
        assert any(p.get("name") == "X-Request-ID" for p in op.get("parameters", [])), path
        for status, answer in op["responses"].items():
            headers = answer.get("headers") or SPEC["components"]["responses"][
                answer["$ref"].rsplit("/", 1)[-1]
            ].get("headers", {})
            assert "X-Request-ID" in headers, f"{method} {path} {status}"


def test_the_operating_endpoints_are_documented():
    for path in ("/healthz", "/readyz", "/metrics", "/games/{game_id}/stream", "/rules"):
        assert "get" in SPEC["paths"][path], path
