"""What the Flask views hand to the event loop (app/asgi.py) once they have said yes: a stream,
or a long poll, whose waiting is the loop's, so that no thread is held while it lasts.

The served entrance runs the Flask app in a small thread pool for each request, stream paths
included: Flask checks the request, reads the first page, takes the stream slot and answers the
head and the opening, as it does every refusal (problem+json, limits, request ids, the request
log). Where the entrance put a ``Handoff`` in the request's context (``HANDOFF``), the view
leaves the rest in it and returns; elsewhere (Flask's test client, a plain WSGI server) the
view's own thread takes it from the same hub, on the process's own loop (app/live/bridge.py).
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass

from app.live.feed import Page


@dataclass(frozen=True, slots=True)
class StreamTask:
    """A stream the view accepted: the records after ``first``'s start, live."""

    game_id: str
    first: Page
    give_back: Callable[[], None]  # the stream slot (app/live/stream_slots.py)
    keepalive: float
    lifetime: float


@dataclass(frozen=True, slots=True)
class SeekWait:
    """A long poll of a waiting seek: answer again once it changes, or after ``seconds``."""

    seek_id: str
    seconds: float
    give_back: Callable[[], None]


@dataclass(slots=True)
class Handoff:
    stream: StreamTask | None = None
    wait: SeekWait | None = None
    resumed: bool = False  # the seek changed while the loop waited: answer it at once


HANDOFF: ContextVar[Handoff | None] = ContextVar("basra_live_handoff", default=None)
