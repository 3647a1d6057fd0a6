"""GET /games/{id}/stream: a game's public records as Server-Sent Events (API.md item 12)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from flask import Response, current_app, request
from flask.views import MethodView

from app.api import record_schemas, request_schemas
from app.api.contract import ref
from app.api.errors import ApiError, problem
from app.api.games import blp
from app.api.limits import client_address
from app.api.problem_answers import problems
from app.api.requests import query, unit_of_work
from app.live import feed
from app.live.handoff import HANDOFF, StreamTask
from app.live.hub import Hub
from app.live.records import Record
from app.live.stream_slots import NoSlot, StreamSlots
from app.observability import metrics
from app.services import games

EVENT_STREAM = "text/event-stream"
KEEPALIVE_SECONDS = 15.0
MAX_SECONDS = 3600.0  # then the client reconnects with Last-Event-ID, to another worker maybe
RETRY_MS = 2000
FULL_RETRY_SECONDS = 5  # when this process, or the address, holds all it may (StreamSlots)
_VERSION = re.compile(r"^[0-9]{1,10}$")
_LARGEST = 2**31 - 1  # the log's seq column; any version past the game's reads as the game's
# Each record's data is documented by the component of its schema's name: `move`: MoveRecord.
RECORD_COMPONENTS = {
    name: schema.__name__.removesuffix("Schema")
    for name, schema in record_schemas.STREAM_RECORDS.items()
}
RECORDS_DOC = "\n".join(
    f"- `{name}`: #/components/schemas/{component}" for name, component in RECORD_COMPONENTS.items()
)
RECORD_TYPE = {
    "type": "string",
    "enum": list(RECORD_COMPONENTS),
    "description": "The `event:` name of a record of GET /games/{game_id}/stream; its "
    "`data:` line is the schema of the same name: "
    + ", ".join(f"`{name}`: {component}" for name, component in RECORD_COMPONENTS.items()),
}
# One record as an SSE client parses it: its `id:`, `event:` and `data:` lines, the data a JSON
# text whose schema the event names (JSON Schema's contentSchema, OpenAPI 3.1).
EVENT = {
    "type": "object",
    "description": "A record of GET /games/{game_id}/stream, as an EventSource gives it: "
    "`id` the game's version after the record's event, `event` its name, and `data` a JSON "
    "text of the schema that name gives (StreamRecordType)",
    "required": ["id", "event", "data"],
    "properties": {
        "id": {
            "type": "string",
            "pattern": _VERSION.pattern,
            "description": "The game's version after this record: resume after it with "
            "Last-Event-ID",
        },
        "event": {
            "description": "The record's name: which schema its data has",
            "allOf": [ref("StreamRecordType")],
        },
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "description": "The record, one line of JSON",
        },
    },
    "oneOf": [
        {
            "properties": {
                "event": {"const": name},
                "data": {"contentMediaType": "application/json", "contentSchema": ref(component)},
            }
        }
        for name, component in RECORD_COMPONENTS.items()
    ],
}
DESCRIPTION = f"""Server-Sent Events: every public record of the game, oldest first, then live
ones as they are committed by any server process or instance on the same database.

Each record is `id: <version>`, `event: <name>` and one JSON `data:` line. The names and the
schema of each one's data:

{RECORDS_DOC}

Reconnect with `Last-Event-ID` (EventSource does it by itself) or `?after=<version>` to get
every record after that version, then live ones: nothing is missed or repeated. A version past
the game's own is read as the game's version: the stream waits for the next record. A comment line
(`: keep-alive`) comes every 15 s when nothing else does; the stream ends after `over`, and after
an hour (reconnect with `Last-Event-ID`). A finished game's `rematch` record comes after its
`over`: a client that reconnects then gets it, and the stream ends again. Public information
only: no token is needed, and no record carries a hand, the stock's cards, a legal move or a
seed. A seated client refreshes its own view with `GET /games/{{id}}` and `If-None-Match` when
a record arrives."""


def _after(game_id: str) -> int:
    """Last-Event-ID, else ?after=, else 0; refused (422) only once the game is known."""
    header = request.headers.get("Last-Event-ID")
    try:
        after = query(request_schemas.StreamQuerySchema).get("after", 0)
        if header is not None and header.strip() != "":
            if not _VERSION.match(header.strip()):
                raise ApiError(
                    "invalid_request",
                    "Last-Event-ID must be a version this stream sent",
                    errors={"Last-Event-ID": ["a version: 0..9999999999"]},
                )
            after = min(int(header), _LARGEST)  # past the game's version: feed.read clamps
    except ApiError:
        games.check_access(unit_of_work(), game_id, None)  # 404 before 422
        raise
    return int(after)


def sse(batch: list[Record]) -> str:
    """Records in the wire format, in one piece (one write); none: a keep-alive comment."""
    if not batch:
        return ": keep-alive\n\n"
    return "".join(f"id: {r.id}\nevent: {r.event}\ndata: {r.json}\n\n" for r in batch)


def wire(batch: list[Record]) -> bytes:
    """A batch as the bytes of the body (the server frames them)."""
    return sse(batch).encode()


def _lines(opening: str, batches: Iterator[list[Record]]) -> Iterator[str]:
    with metrics.stream_client():
        yield opening  # sent at once, so the client sees the stream open before any record
        for batch in batches:
            yield sse(batch)


@blp.route("/<game_id>/stream")
class StreamResource(MethodView):
    @blp.doc(
        operationId="streamGame",
        summary="The game's public records, live (Server-Sent Events)",
        description=DESCRIPTION,
        parameters=[
            {"in": "query", "schema": request_schemas.StreamQuerySchema},
            {
                "in": "header",
                "name": "Last-Event-ID",
                # Empty is no id: EventSource sends none before its first record (WHATWG HTML).
                "schema": {"type": "string", "pattern": "^(?:[0-9]{1,10})?$"},
                "required": False,
                "description": "The id of the last record received: resume after it (empty: "
                "from the start, or from `after`)",
            },
        ],
        responses={
            200: {
                "description": "An endless text/event-stream, ended after the `over` record",
                "content": {
                    EVENT_STREAM: {
                        "schema": ref("StreamEvent"),
                        "example": 'id: 7\nevent: move\ndata: {"n":1,"round":1,"seat":0,'
                        '"card":"7D","captured":["3S","4H"],"basra":null,"version":7}\n\n',
                    }
                },
            },
            **problems("not_found", "invalid_request"),
        },
    )
    def get(self, game_id: str) -> Response:
        after = _after(game_id)
        first = feed.read(unit_of_work(), game_id, after)  # 404 here, before the stream starts
        slots: StreamSlots = current_app.extensions["basra_stream_slots"]
        give_back = slots.take(client_address())
        if give_back is NoSlot.SERVER_FULL:
            return problem(
                "unavailable",
                "this server holds as many live streams as it can; try again soon, or follow "
                "the game with GET /games/{id} and If-None-Match meanwhile",
                {"Retry-After": str(FULL_RETRY_SECONDS)},
            )
        if give_back is NoSlot.ADDRESS_FULL:
            return problem(
                "rate_limited",
                f"your address has {slots.per_address} live streams open on this server "
                "process; close one, or follow the game with GET /games/{id} and "
                "If-None-Match meanwhile",
                {"Retry-After": str(FULL_RETRY_SECONDS)},
            )
        settings: dict[str, Any] = current_app.config
        keepalive = float(settings.get("STREAM_KEEPALIVE_SECONDS", KEEPALIVE_SECONDS))
        lifetime = float(settings.get("STREAM_MAX_SECONDS", MAX_SECONDS))
        opening = f"retry: {RETRY_MS}\n\n"
        handoff = HANDOFF.get()
        if handoff is not None:  # the event loop follows the game (app/asgi.py)
            handoff.stream = StreamTask(game_id, first, give_back, keepalive, lifetime)
            return _streamed(iter([opening]))
        hub: Hub = current_app.extensions["basra_hub"]
        records = hub.follow(game_id, first, keepalive=keepalive, lifetime=lifetime)
        response = _streamed(_lines(opening, records))
        response.call_on_close(give_back)  # the WSGI server closes every response it was given
        return response


def _streamed(body: Iterator[str]) -> Response:
    """The stream's answer; a body of unknown length, so the server sends it as it comes."""
    response = Response(body, mimetype=EVENT_STREAM)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # nginx: pass each record on at once
    return response
