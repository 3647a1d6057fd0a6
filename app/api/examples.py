"""The examples of openapi.yaml, taken from a real game played against the app.

``basra examples`` plays a game from a fixed deck through the HTTP API (in process, on a
throwaway SQLite database), keeps every request body it sent and every answer it got, and
writes them to ``app/api/examples.json``; ``basra openapi`` then puts them in the document
(``ExamplesPlugin``). tests/api/test_examples.py replays the same script against the test
databases and fails when an answer no longer has the shape of its committed example, and
validates every example against its operation's schemas. So when an answer changes shape:
run ``basra examples`` and ``basra openapi``, and commit both files.

``record`` hands a ``Book`` to the script of each resource in turn (game_examples.py,
player_examples.py, seek_examples.py); a new operation gets a step in its resource's script
(``book.exchange(...)``).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from apispec import BasePlugin

from app.api.errors import PROBLEM_JSON
from app.api.game_examples import record_game
from app.api.player_examples import record_players
from app.api.seek_examples import record_seeks

EXAMPLES_FILE = Path(__file__).with_name("examples.json")
PROBLEMS_KEY = "problems"
RECORDS_KEY = "stream_records"  # the data of each kind of record of GET /games/{game_id}/stream
STREAM = "GET /games/{game_id}/stream"


class Book:
    """Sends requests through a Flask test client and keeps what the examples need."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.examples: dict[str, Any] = {PROBLEMS_KEY: {}, RECORDS_KEY: {}}

    def send(self, method: str, url: str, body: Any = None, token: str | None = None,
             headers: dict[str, str] | None = None, raw: bytes | None = None) -> Any:  # fmt: skip
        sent = dict(headers or {})
        if token:
            sent["Authorization"] = f"Bearer {token}"
        if raw is not None:
            return self.client.open(url, method=method, data=raw, headers=sent,
                                    content_type="application/json")  # fmt: skip
        return self.client.open(url, method=method, json=body, headers=sent)

    def exchange(self, operation: str, url: str, body: Any = None, *, status: int,
                 token: str | None = None, headers: dict[str, str] | None = None,
                 request: tuple[str, str] | None = None,
                 shown: Any = None) -> dict[str, Any]:  # fmt: skip
        """Send ``body`` to ``operation`` (``"POST /games"``) and keep the 2xx answer as its
        example (the first one kept wins); ``request`` = (name, summary) keeps the body too
        (``shown`` instead, when the body sent holds a secret that changes every time)."""
        method = operation.split(" ", 1)[0]
        response = self.send(method, url, body, token, headers)
        answer = response.get_json()
        if response.status_code != status:
            raise AssertionError(f"{operation}: {response.status_code} {answer}")
        entry = self.examples.setdefault(operation, {})
        entry.setdefault("responses", {}).setdefault(str(status), answer)
        if request is not None:
            name, summary = request
            value = body if shown is None else shown
            entry.setdefault("requests", {})[name] = {"summary": summary, "value": value}
        return dict(answer or {})

    def request_only(self, operation: str, name: str, summary: str, body: Any) -> None:
        """An example request body that is not sent (a variant of one that was)."""
        requests = self.examples.setdefault(operation, {}).setdefault("requests", {})
        requests[name] = {"summary": summary, "value": body}

    def problem(self, code: str, method: str, url: str, body: Any = None, **kwargs: Any) -> None:
        response = self.send(method, url, body, **kwargs)
        answer = response.get_json()
        if not answer or answer.get("code") != code:
            raise AssertionError(f"{method} {url}: expected {code}, got {answer}")
        self.examples[PROBLEMS_KEY].setdefault(code, answer)

    def stream(self, game_id: str, keep: bool = True) -> None:
        """The game's stream, read until it ends or the records stored so far are out: its
        first records as the answer's example (``keep``), and the data of each kind of record as
        that record schema's example."""
        config = self.client.application.config
        keepalive = config.get("STREAM_KEEPALIVE_SECONDS")
        config["STREAM_KEEPALIVE_SECONDS"] = 0.05  # the first keep-alive ends what is stored
        response = self.client.get(f"/games/{game_id}/stream", buffered=False)
        text = ""
        try:
            for chunk in response.response:  # a live game's stream never ends: stop at a keep-alive
                text += chunk.decode() if isinstance(chunk, bytes) else chunk
                if ": keep-alive" in text:
                    break
        finally:
            response.close()
            if keepalive is None:
                config.pop("STREAM_KEEPALIVE_SECONDS")
            else:
                config["STREAM_KEEPALIVE_SECONDS"] = keepalive
        blocks = [block for block in text.split("\n\n") if block.startswith("id:")]
        if keep:
            entry = self.examples.setdefault(STREAM, {})
            entry["responses"] = {"200": "\n\n".join(blocks[:4]) + "\n\n"}
        for block in blocks:
            fields = dict(line.split(": ", 1) for line in block.splitlines())
            self.examples[RECORDS_KEY].setdefault(fields["event"], json.loads(fields["data"]))


def record(client: Any) -> dict[str, Any]:
    """Play the example game through ``client``; the examples, keyed by operation."""
    book = Book(client)
    record_game(book)
    record_players(book)
    record_seeks(book)
    return book.examples


def load(path: Path = EXAMPLES_FILE) -> dict[str, Any]:
    if not path.exists():
        return {PROBLEMS_KEY: {}, RECORDS_KEY: {}}
    examples: dict[str, Any] = json.loads(path.read_text())
    return examples


class ExamplesPlugin(BasePlugin):
    """Puts the recorded examples into every operation as apispec builds its path."""

    def __init__(self, examples: dict[str, Any]) -> None:
        self.examples = examples

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **_kwargs: Any) -> None:  # fmt: skip
        for method, operation in (operations or {}).items():
            entry = self.examples.get(f"{method.upper()} {path}", {})
            content = (operation.get("requestBody") or {}).get("content", {})
            if entry.get("requests") and "application/json" in content:
                content["application/json"]["examples"] = entry["requests"]
            for status, response in operation.get("responses", {}).items():
                if not isinstance(response, dict):
                    continue
                media = response.get("content", {})
                answer = entry.get("responses", {}).get(str(status))
                if answer is not None and "application/json" in media:
                    media["application/json"]["example"] = answer
                if isinstance(answer, str) and "text/event-stream" in media:
                    media["text/event-stream"]["example"] = answer
                self._problem_examples(media)

    def _problem_examples(self, media: dict[str, Any]) -> None:
        recorded = self.examples.get(PROBLEMS_KEY, {})
        for code, example in media.get(PROBLEM_JSON, {}).get("examples", {}).items():
            if code in recorded:
                example["value"] = copy.deepcopy(recorded[code])  # no YAML anchors
