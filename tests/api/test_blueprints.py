"""A view's contract in decorators (app/api/blueprints.py): the paths in the blueprint's order,
a read refused only after the view's own check, the body sent as the view built it."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.views import MethodView
from marshmallow import Schema, fields

from app.api.blueprints import Answer, ApiBlueprint
from app.api.errors import ApiError, ProblemApi, register_error_handlers


class NameSchema(Schema):
    name = fields.String(required=True)


def _app(blp: ApiBlueprint) -> tuple[Flask, ProblemApi]:
    app = Flask(__name__)
    app.config.update(API_TITLE="t", API_VERSION="1", OPENAPI_VERSION="3.1.0")
    api = ProblemApi(app)
    api.register_blueprint(blp)
    register_error_handlers(app)
    return app, api


def _blueprint(checks: list[str]) -> ApiBlueprint:
    blp = ApiBlueprint("things", __name__, url_prefix="/things", paths=("", "/<thing_id>"))

    def known(thing_id: str) -> None:
        checks.append(thing_id)
        if thing_id != "a":
            raise ApiError("not_found", "no such thing")

    @blp.route("/<thing_id>")  # added first, listed second
    class Thing(MethodView):
        @blp.arguments(NameSchema, first=known)
        @blp.response(201, NameSchema, description="Named")
        @blp.problems("not_found", "invalid_request")
        def put(self, body: dict[str, Any], thing_id: str) -> Answer:
            return {"name": body["name"], "id": thing_id}, {"ETag": '"1"'}

    @blp.route("")
    class Things(MethodView):
        @blp.response(200, NameSchema)
        def get(self) -> Answer:
            return {"name": "all"}

    return blp


def test_paths_are_documented_in_the_blueprints_order_not_the_order_routes_are_added() -> None:
    _, api = _app(_blueprint([]))
    assert list(api.spec.to_dict()["paths"]) == ["/things", "/things/{thing_id}"]


def test_a_route_whose_path_is_not_listed_is_refused() -> None:
    blp = ApiBlueprint("others", __name__, url_prefix="/others", paths=("",))
    with pytest.raises(ValueError, match="/<other_id>"):
        blp.add_url_rule("/<other_id>", view_func=lambda other_id: other_id)


def test_the_views_check_runs_only_when_its_read_is_refused_and_outranks_it() -> None:
    checks: list[str] = []
    client = _app(_blueprint(checks))[0].test_client()
    assert client.put("/things/a", json={"name": "x"}).status_code == 201
    assert checks == []
    refused = client.put("/things/b", json={})
    assert (refused.status_code, refused.get_json()["code"]) == (404, "not_found")
    shape = client.put("/things/a", json={})
    assert (shape.status_code, shape.get_json()["code"]) == (422, "invalid_request")
    assert checks == ["b", "a"]


def test_the_view_answers_its_declared_status_with_its_body_and_headers() -> None:
    answer = _app(_blueprint([]))[0].test_client().put("/things/a", json={"name": "x"})
    assert answer.get_json() == {"name": "x", "id": "a"}  # not dumped: "id" is not in the schema
    assert answer.headers["ETag"] == '"1"'


def test_each_refusal_status_is_documented_once_and_flask_smorests_own_422_is_not() -> None:
    _, api = _app(_blueprint([]))
    answers = api.spec.to_dict()["paths"]["/things/{thing_id}"]["put"]["responses"]
    assert set(answers) == {"default", "201", "404", "422", "429", "503"}
    assert "$ref" not in answers["422"]
    assert answers["422"]["content"]["application/problem+json"]["examples"]["invalid_request"]
