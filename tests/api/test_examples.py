"""openapi.yaml's examples: each one valid against its operation's schemas (openapi-core), and
each one in step with what the server answers today (the recording script, replayed live)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse
from openapi_schema_validator import OAS31Validator
from openapi_spec import committed_spec
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from app.api.errors import PROBLEM_JSON
from app.api.examples import PROBLEMS_KEY, RECORDS_KEY, load, record
from app.api.record_schemas import STREAM_RECORDS

ROOT = Path(__file__).resolve().parents[2]
SPEC = committed_spec()
# openapi-core reads application/json only; a problem document is JSON too.
OPENAPI = OpenAPI.from_dict(
    SPEC, config=Config(extra_media_type_deserializers={PROBLEM_JSON: json.loads})
)
COMMITTED = load()
METHODS = ("get", "post", "put", "patch", "delete")


def operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, ops in SPEC["paths"].items()
            for method, op in ops.items() if method in METHODS]  # fmt: skip


def _request(path: str, method: str, body: Any = None) -> MockRequest:
    url = path.replace("{game_id}", "2e67a52deb954a1a")
    headers = {"Authorization": "Bearer uHpokchu3TD9bmmfMDgqK9Su31kBJeT7NqtqzPT9t98"}
    data = json.dumps(body) if body is not None else None
    return MockRequest("http://localhost", method, url, headers=headers, data=data,
                       content_type="application/json" if data else None)  # fmt: skip


def _response_headers(op: dict[str, Any], status: str) -> dict[str, str]:
    """Values for the headers an answer documents (openapi-core checks required ones)."""
    declared = op["responses"][status].get("headers", {})
    sample = {"ETag": '"2"', "Retry-After": "1"}
    return {name: sample.get(name, "/games/2e67a52deb954a1a") for name in declared}


def validate_answer(path: str, method: str, status: str, body: Any, media: str) -> None:
    op = SPEC["paths"][path][method]
    response = MockResponse(json.dumps(body).encode(), status_code=int(status),
                            headers=_response_headers(op, status), content_type=media)  # fmt: skip
    OPENAPI.validate_response(_request(path, method), response)


def examples_of(examples: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    entry: dict[str, Any] = examples.get(f"{method.upper()} {path}", {})
    return entry


@pytest.mark.parametrize("path,method", [(p, m) for p, m, _ in operations()])
def test_every_example_is_valid_against_its_operation(path: str, method: str) -> None:
    op = SPEC["paths"][path][method]
    body_doc = op.get("requestBody", {}).get("content", {}).get("application/json")
    if body_doc is not None:
        assert body_doc.get("examples"), f"{method} {path}: no example request body"
        for name, example in body_doc["examples"].items():
            OPENAPI.validate_request(_request(path, method, example["value"])), name
    for status, answer in op["responses"].items():
        content = answer.get("content", {})
        if status.startswith("2") and "application/json" in content:
            assert "example" in content["application/json"], f"{method} {path} {status}: none"
            validate_answer(path, method, status, content["application/json"]["example"],
                            "application/json")  # fmt: skip
        if PROBLEM_JSON in content:
            listed = _codes_of(content[PROBLEM_JSON]["schema"])
            assert set(content[PROBLEM_JSON]["examples"]) == set(listed), (path, method, status)
            for code, example in content[PROBLEM_JSON]["examples"].items():
                assert example["value"]["code"] == code
                validate_answer(path, method, status, example["value"], PROBLEM_JSON)


def _codes_of(schema: dict[str, Any]) -> list[str]:
    codes: list[str] = schema["allOf"][1]["properties"]["code"]["enum"]
    return codes


def shape_fits(example: Any, live: Any, where: str = "") -> list[str]:
    """Where ``live`` does not have the shape of ``example``: the same keys at every level and
    the same JSON types (null fits anything: schemas decide what may be null; an empty list
    fits any list; each item of either list must fit some item of the other)."""
    if example is None or live is None:
        return []
    if isinstance(example, dict) and isinstance(live, dict):
        if set(example) != set(live):
            return [f"{where}: keys {sorted(set(example) ^ set(live))} differ"]
        return [m for key in example for m in shape_fits(example[key], live[key], f"{where}.{key}")]
    if isinstance(example, list) and isinstance(live, list):
        misfits: list[str] = []
        for mine, theirs, side in ((example, live, "live"), (live, example, "committed")):
            for index, item in enumerate(mine):
                if theirs and all(shape_fits(item, other) for other in theirs):
                    misfits.append(f"{where}[{index}]: fits no item of the {side} list")
        return misfits
    if type(example) is not type(live):
        return [f"{where}: {type(example).__name__} became {type(live).__name__}"]
    return []


@pytest.mark.both_databases
def test_examples_are_in_step_with_what_the_server_answers(client: Any) -> None:
    live = record(client)
    assert set(live) == set(COMMITTED), "run `basra examples` and `basra openapi`"
    misfits = []
    for operation, entry in live.items():
        if operation in (PROBLEMS_KEY, RECORDS_KEY):
            continue
        assert entry.get("requests") == COMMITTED[operation].get("requests"), operation
        for status, answer in entry["responses"].items():
            committed = COMMITTED[operation]["responses"][status]
            misfits += [f"{operation} {status}{m}" for m in shape_fits(committed, answer)]
    for name, data in live[RECORDS_KEY].items():
        misfits += [f"record {name}{m}" for m in shape_fits(COMMITTED[RECORDS_KEY][name], data)]
    for code, answer in live[PROBLEMS_KEY].items():
        misfits += [f"problem {code}{m}" for m in shape_fits(COMMITTED[PROBLEMS_KEY][code], answer)]
    assert not misfits, "answers changed shape; run `basra examples` and `basra openapi`:\n" + (
        "\n".join(misfits)
    )


@pytest.mark.both_databases
def test_live_answers_are_valid_against_their_schemas(client: Any) -> None:
    live = record(client)
    for path, method, _op in operations():
        for status, answer in examples_of(live, path, method).get("responses", {}).items():
            if not isinstance(answer, str):  # the stream's text is checked record by record
                validate_answer(path, method, status, answer, "application/json")
    for name, data in live[RECORDS_KEY].items():
        validate_record(name, data)


def test_shape_check_notices_a_renamed_key_and_a_changed_type() -> None:
    before = {"state": {"hand": ["7D"], "turn": 0, "last_move": None}}
    assert shape_fits(before, {"state": {"hand": [], "turn": 1, "last_move": {"n": 1}}}) == []
    assert shape_fits(before, {"state": {"cards": ["7D"], "turn": 0, "last_move": None}})
    assert shape_fits(before, {"state": {"hand": [7], "turn": 0, "last_move": None}})
    assert shape_fits(before, {"state": {"hand": ["7D"], "turn": "0", "last_move": None}})


REGISTRY: Registry[Any] = Registry().with_resource(
    "urn:basra", Resource.from_contents(SPEC, default_specification=DRAFT202012)
)


def validate_record(name: str, data: Any) -> None:
    component = STREAM_RECORDS[name].__name__.removesuffix("Schema")
    ref = {"$ref": f"urn:basra#/components/schemas/{component}"}
    OAS31Validator(ref, registry=REGISTRY).validate(data)


def test_every_stream_record_example_is_valid_against_its_schema() -> None:
    seen = set()
    for name, schema in STREAM_RECORDS.items():
        component = SPEC["components"]["schemas"][schema.__name__.removesuffix("Schema")]
        for example in component.get("examples", []):
            validate_record(name, example)
            seen.add(name)
    assert seen == set(STREAM_RECORDS), sorted(set(STREAM_RECORDS) - seen)
