"""Health, the OpenAPI document (committed, generated, valid) and the docs page."""

from __future__ import annotations

from pathlib import Path

import pytest
from openapi_spec import committed_spec, parse_yaml
from openapi_spec_validator import validate

from app.cli import openapi_document

ROOT = Path(__file__).resolve().parents[2]


def test_healthz_answers_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}


def test_committed_openapi_matches_the_code():
    committed = (ROOT / "openapi.yaml").read_text()
    assert committed == openapi_document(), "openapi.yaml drifted: run `.venv/bin/basra openapi`"


@pytest.mark.slow  # 15 s of jsonschema over 300 KB: the whole check (CI) runs it
def test_openapi_document_is_valid_openapi_3():
    spec = committed_spec()
    validate(spec)
    assert spec["openapi"].startswith("3.")


def test_openapi_describes_every_endpoint_of_the_contract():
    paths = committed_spec()["paths"]
    expected = {
        ("/games", "post"), ("/games", "get"), ("/games/{game_id}", "get"),
        ("/games/{game_id}/join", "post"), ("/games/{game_id}/moves", "post"),
        ("/games/{game_id}/moves", "get"), ("/games/{game_id}/events", "get"),
        ("/games/{game_id}/replay", "get"), ("/games/{game_id}/verify", "get"),
        ("/games/{game_id}/fairness", "get"),
    }  # fmt: skip
    assert expected <= {(path, method) for path, ops in paths.items() for method in ops}


def test_openapi_yaml_is_served(client):
    response = client.get("/openapi.yaml")
    assert response.status_code == 200
    assert parse_yaml(response.data)["info"]["title"] == "Egyptian Basra"


def test_openapi_yaml_is_rendered_once_a_process(client, app, monkeypatch):
    # Rendering it takes about 0.3 s of CPU: it must not be anyone's to spend per request.
    rendered = []
    spec = app.extensions["basra_api"].spec
    to_yaml = spec.to_yaml
    monkeypatch.setattr(spec, "to_yaml", lambda: rendered.append(1) or to_yaml())
    app.extensions.pop("basra_openapi_yaml", None)
    bodies = {client.get("/openapi.yaml").get_data() for _ in range(3)}
    assert len(bodies) == 1 and rendered == [1]


def test_docs_page_uses_assets_served_by_the_app_itself(client):
    page = client.get("/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "/docs/assets/swagger-ui-bundle.js" in html
    assert "https://" not in html  # no CDN
    asset = client.get("/docs/assets/swagger-ui-bundle.js")
    assert asset.status_code == 200 and len(asset.data) > 100_000
    asset.close()


def test_unknown_route_is_a_problem(client):
    response = client.get("/nowhere")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "not_found"


def test_wrong_method_keeps_the_allow_header(client):
    response = client.delete("/healthz")
    assert response.status_code == 405
    assert response.get_json()["code"] == "method_not_allowed"
    assert "GET" in response.headers["Allow"]
