"""The hub (hub.py) for a request served on a thread: Flask's test client, or a plain WSGI
server (``app.wsgi:app`` under gunicorn's gthread worker, the REST workers of a deployment).

Where no entrance (app/asgi.py) runs the hub on its event loop, the process runs it on one
loop of its own, on a daemon thread started with the first stream or long poll. The request's
thread then takes a stream's batches from that loop one at a time (``Stream``: each ``next``
waits there for the generator's next one), and the WSGI server's close of the response closes
the generator there, so the stream leaves its game's channel at once, however it ended. A long
poll of a seek waits there likewise (``watching``). The request's thread is held while it
waits, as a WSGI server holds one for any answer (so stream_slots.py bounds them below the
worker's threads); what the stream costs the hub is what a stream of the entrance costs it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from app.live.channel import Render
from app.live.feed import Page
from app.live.hub import Hub

log = logging.getLogger(__name__)
T = TypeVar("T")
CLOSE_SECONDS = 5.0  # a stream's close waits this long for the loop at most

_STARTING = threading.Lock()
_PROCESS_LOOP: list[asyncio.AbstractEventLoop] = []  # this process's own loop, once started


def loop_of(hub: Hub) -> asyncio.AbstractEventLoop:
    """The loop the hub runs on: the entrance's, or else this process's own, where the hub is
    started the first time a request's thread needs it."""
    with _STARTING:
        if hub.loop is None:
            _wait(_process_loop(), _run(hub.start))
        assert hub.loop is not None
        return hub.loop


def _process_loop() -> asyncio.AbstractEventLoop:
    if not _PROCESS_LOOP:
        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, name="basra-live-loop", daemon=True).start()
        _PROCESS_LOOP.append(loop)
    return _PROCESS_LOOP[0]


class Stream(Iterator[bytes]):
    """A stream of the hub taken from a request's thread, a batch at a time."""

    def __init__(self, loop: asyncio.AbstractEventLoop, records: AsyncGenerator[bytes, None]):
        self.loop = loop
        self.records = records
        self.done = False

    def __next__(self) -> bytes:
        if self.done:
            raise StopIteration
        try:
            return _wait(self.loop, _run(self.records.__anext__))
        except StopAsyncIteration:
            self.done = True
            raise StopIteration from None

    def close(self) -> None:
        """End the stream on the loop (the WSGI server closes every response it was given)."""
        if self.done:
            return
        self.done = True
        try:
            _wait(self.loop, _run(self.records.aclose), CLOSE_SECONDS)
        except Exception as error:  # a loop that does not answer: its finaliser closes it later
            log.warning("a stream did not close: %s", type(error).__name__)


def follow(
    hub: Hub, game_id: str, first: Page, keepalive: float, lifetime: float, render: Render
) -> Stream:
    """``Hub.follow`` for a request's thread."""
    loop = loop_of(hub)
    return Stream(loop, hub.follow(game_id, first, keepalive, lifetime, render))


@contextmanager
def watching(hub: Hub, seek_id: str) -> Iterator[Callable[[float], bool]]:
    """The seek watched on the hub's loop for as long as the block lasts: a read of the seek
    inside it misses no change. The block is given ``changed(seconds)``, which waits until the
    seek is heard to stop waiting (True), or for ``seconds`` (False)."""
    loop, waits = loop_of(hub), hub.seeks
    _wait(loop, _run(waits.watch, seek_id))
    try:
        yield lambda seconds: _wait(loop, _run(waits.changed, seek_id, seconds))
    finally:
        _wait(loop, _run(waits.unwatch, seek_id))


async def _run(work: Callable[..., T | Awaitable[T]], *args: Any) -> T:
    """``work(*args)`` on the loop, awaited if it gives an awaitable."""
    done = work(*args)
    if isinstance(done, Awaitable):
        return await done
    return done


def _wait(loop: asyncio.AbstractEventLoop, work: Any, timeout: float | None = None) -> Any:
    return asyncio.run_coroutine_threadsafe(work, loop).result(timeout)
