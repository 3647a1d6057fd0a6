"""GET /games/{id}/stream: a game's public records as Server-Sent Events (API.md item 12)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response, current_app, request
from flask.views import MethodView

from app.api import record_schemas, request_schemas
from app.api.contract import ref
from app.api.errors import ApiError, problem
from app.api.games import access, blp
from app.api.limits import client_address
from app.api.requests import after_access, unit_of_work
from app.live import bridge, feed
from app.live.handoff import HANDOFF, StreamTask
from app.live.records import Record
from app.live.stream_slots import NoSlot, StreamSlots
from app.observability import metrics

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


def _after(game_id: str, args: dict[str, Any]) -> int:
    """Last-Event-ID, else ?after=, else 0; a bad header is refused (422) only once the game
    is known."""
    header = request.headers.get("Last-Event-ID")
    if header is None or header.strip() == "":
        return int(args.get("after", 0))
    return after_access(lambda: access(token=False)(game_id), lambda: _last_event_id(header))


def _last_event_id(header: str) -> int:
    if not _VERSION.match(header.strip()):
        raise ApiError(
            "invalid_request",
            "Last-Event-ID must be a version this stream sent",
            errors={"Last-Event-ID": ["a version: 0..9999999999"]},
        )
    return min(int(header), _LARGEST)  # past the game's version: feed.read clamps


def sse(batch: list[Record]) -> str:
    """Records in the wire format, in one piece (one write); none: a keep-alive comment."""
    if not batch:
        return ": keep-alive\n\n"
    return "".join(f"id: {r.id}\nevent: {r.event}\ndata: {r.json}\n\n" for r in batch)


def wire(batch: list[Record]) -> bytes:
    """A batch as the bytes of the body (the server frames them)."""
    return sse(batch).encode()


def _lines(opening: str, batches: Iterator[bytes]) -> Iterator[bytes]:
    with metrics.stream_client():
        yield opening.encode()  # at once, so the client sees the stream open before any record
        yield from batches


@blp.route("/<game_id>/stream")
class StreamResource(MethodView):
    @blp.doc(
        operationId="streamGame",
        summary="The game's public records, live (Server-Sent Events)",
        description=DESCRIPTION,
        parameters=[
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
    )
    @blp.arguments(request_schemas.StreamQuerySchema, location="query", first=access(token=False))
    @blp.response(
        200,
        ref("StreamEvent"),
        content_type=EVENT_STREAM,
        description="An endless text/event-stream, ended after the `over` record",
        example='id: 7\nevent: move\ndata: {"n":1,"round":1,"seat":0,"card":"7D",'
        '"captured":["3S","4H"],"basra":null,"version":7}\n\n',
    )
    @blp.problems("not_found", "invalid_request")
    def get(self, args: dict[str, Any], game_id: str) -> Response:
        first = feed.read(unit_of_work(), game_id, _after(game_id, args))  # 404 before it opens
        give_back = _slot()
        if isinstance(give_back, Response):
            return give_back
        settings: dict[str, Any] = current_app.config
        keepalive = float(settings.get("STREAM_KEEPALIVE_SECONDS", KEEPALIVE_SECONDS))
        lifetime = float(settings.get("STREAM_MAX_SECONDS", MAX_SECONDS))
        opening = f"retry: {RETRY_MS}\n\n"
        handoff = HANDOFF.get()
        if handoff is not None:  # the entrance's event loop follows the game (app/asgi.py)
            handoff.stream = StreamTask(game_id, first, give_back, keepalive, lifetime)
            return _streamed(iter([opening.encode()]))
        hub = current_app.extensions["basra_hub"]  # on the process's own loop (bridge.py)
        records = bridge.follow(hub, game_id, first, keepalive, lifetime, wire)
        response = _streamed(_lines(opening, records))
        response.call_on_close(records.close)  # the WSGI server closes every response it gave
        response.call_on_close(give_back)
        return response


def _slot() -> Callable[[], None] | Response:
    """A stream slot of this process (StreamSlots), as the function that gives it back; or
    the refusal when the process, or the caller's address, holds all it may."""
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
    return give_back


def _streamed(body: Iterator[bytes]) -> Response:
    """The stream's answer; a body of unknown length, so the server sends it as it comes."""
    response = Response(body, mimetype=EVENT_STREAM)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # nginx: pass each record on at once
    return response
