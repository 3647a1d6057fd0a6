"""GET /docs, as a front-end developer opens it: Swagger UI served by the app itself (no CDN),
every operation of openapi.yaml listed, and an operation's examples and refusal codes shown,
with no script error and no Content-Security-Policy violation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from openapi_spec import committed_spec

ROOT = Path(__file__).resolve().parents[2]
SPEC = committed_spec()
OPERATIONS = sum(
    1
    for ops in SPEC["paths"].values()
    for method in ops
    if method in ("get", "post", "patch", "delete")
)

pytestmark = pytest.mark.browser


def test_docs_list_every_operation_with_examples_and_codes(new_page: Any, live_server_url: str,
                                                           screenshot: Any) -> None:  # fmt: skip
    page = new_page()
    console_errors: list[str] = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    outside: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(live_server_url) else
            outside.append(r.url))  # fmt: skip
    page.goto(f"{live_server_url}/docs")
    page.wait_for_selector(".opblock")
    page.wait_for_function(f"document.querySelectorAll('.opblock').length >= {OPERATIONS}")
    assert page.locator(".opblock").count() == OPERATIONS

    play = page.locator(".opblock", has_text="/games/{game_id}/moves").filter(has_text="POST")
    play.locator(".opblock-summary").first.click()
    body = play.first
    body.locator(".responses-wrapper").wait_for()
    text = body.inner_text()
    assert "Play a card" in text
    for code in ("not_your_turn", "card_not_in_hand", "idempotency_conflict"):
        assert code in text, code
    assert '"card": "5D"' in text or '"card":"5D"' in text  # the recorded request example
    screenshot(page, "api-docs")
    assert not outside, f"the docs page fetched from elsewhere: {outside}"
    assert not [e for e in console_errors if "Content Security Policy" in e], console_errors
