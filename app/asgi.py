"""The served entrance: ``gunicorn -c gunicorn.conf.py app.asgi:app`` (uvicorn's worker).

One ASGI app per process. Every request runs the Flask app (app.wsgi) in a small thread pool
(a2wsgi), streams and long polls included: Flask checks them and answers every refusal as it
always has. Once it says yes to a stream (``GET /games/{id}/stream``) or to a long poll of a
waiting seek (``GET /seeks/{id}?wait=N``), it hands the waiting to this process's event loop
(app/live/handoff.py) and its thread goes back to the pool: the process's hub (app/live/
hub.py), started on this loop, holds thousands of them at the cost of a few kilobytes each.

The same module serves ``make run`` (the whole API on one port) and the stream processes of a
deployment, where the proxy sends the stream paths to this and the rest to the REST workers
(``app.wsgi:app``, gthread): docs/scaling.md.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from a2wsgi import WSGIMiddleware
from flask import Flask

from app.api.stream import wire
from app.live.channel import Watch
from app.live.handoff import HANDOFF, Handoff
from app.live.hub import Hub
from app.observability import metrics

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_STREAM = re.compile(r"^/games/[^/]+/stream$")
_SEEK = re.compile(r"^/seeks/([^/]+)$")


class Entrance:
    """The ASGI app: Flask in a thread pool, and the live edge on the loop."""

    def __init__(self, flask_app: Flask, threads: int) -> None:
        self.flask = flask_app
        self.hub: Hub = flask_app.extensions["basra_hub"]
        self.wsgi = WSGIMiddleware(_terminated(flask_app.wsgi_app), workers=threads)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] != "http":
            return
        elif scope["method"] in ("GET", "HEAD") and _STREAM.match(scope["path"]):
            await self._stream(scope, receive, send)
        elif scope["method"] == "GET" and (seek := _SEEK.match(scope["path"])):
            await self._seek(seek[1], scope, receive, send)
        else:
            await self.wsgi(scope, receive, send)  # type: ignore[arg-type]

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.hub.start()
                _end_streams_on(signal.SIGTERM, self.hub)
                _end_streams_on(signal.SIGINT, self.hub)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.hub.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _flask(self, scope: Scope, receive: Receive, send: Send, handoff: Handoff) -> None:
        token = HANDOFF.set(handoff)  # a2wsgi runs the app in a copy of this context
        try:
            await self.wsgi(scope, receive, send)  # type: ignore[arg-type]
        finally:
            HANDOFF.reset(token)

    async def _stream(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Flask answers the head and the opening; the loop sends the records after it."""
        handoff, counted = Handoff(), False

        async def head_only(message: Message) -> None:
            nonlocal counted
            if handoff.stream is not None and not counted:  # counted before its head goes
                metrics.STREAM_CLIENTS.inc()
                counted = True
            ends = message["type"] == "http.response.body" and not message.get("more_body")
            if not (ends and handoff.stream is not None):
                await send(message)

        try:
            await self._flask(scope, receive, head_only, handoff)
            if handoff.stream is not None and scope["method"] == "HEAD":  # the head alone
                handoff.stream.give_back()
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            elif handoff.stream is not None:
                await self._follow(handoff, receive, send)
        finally:
            if counted:
                metrics.STREAM_CLIENTS.dec()

    async def _follow(self, handoff: Handoff, receive: Receive, send: Send) -> None:
        task, handoff.stream = handoff.stream, None
        assert task is not None
        watch, give_back = Watch(), task.give_back
        records = self.hub.follow(task.game_id, task.first, task.keepalive, task.lifetime,
                                  wire, watch)  # fmt: skip
        del task  # the first page is the generator's alone, and let go once sent
        listening = asyncio.ensure_future(_until_gone(receive))
        listening.add_done_callback(lambda _: watch.leave())
        try:
            async for batch in records:
                await send({"type": "http.response.body", "body": batch, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            listening.cancel()
            await records.aclose()  # leaves the game's channel now, whatever ended the stream
            give_back()

    async def _seek(self, seek_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        """Flask answers; if the seek is waiting and the request asked to wait, the loop
        waits (watching the seek from before Flask read it), and Flask answers again once the
        seek changed, or the first answer goes after the wait."""
        held: list[Message] = []

        async def hold(message: Message) -> None:
            held.append(message)

        handoff, waits = Handoff(), self.hub.seeks
        waits.watch(seek_id)
        try:
            await self._flask(scope, receive, hold, handoff)
            waited = handoff.wait
            if waited is not None:
                try:
                    changed = await waits.changed(seek_id, waited.seconds)
                finally:
                    waited.give_back()
                if changed:
                    await self._flask(scope, receive, send, Handoff(resumed=True))
                    return
        finally:
            waits.unwatch(seek_id)
        for message in held:
            await send(message)


def _terminated(wsgi_app: Any) -> Any:
    """The WSGI app told that its input ends where the request's body does (a2wsgi reads the
    body until the server says it is all in, chunked or not), as gunicorn tells it: werkzeug
    then reads a chunked body instead of taking it for none."""

    def app(environ: dict[str, Any], start_response: Any) -> Any:
        environ["wsgi.input_terminated"] = True
        return wsgi_app(environ, start_response)

    return app


async def _until_gone(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def _end_streams_on(number: signal.Signals, hub: Hub) -> None:
    """Before the server's own handler (uvicorn's: stop accepting, wait for the connections to
    end), end every stream, so that they do end and their clients reconnect elsewhere."""
    previous = signal.getsignal(number)
    if not callable(previous) or threading.current_thread() is not threading.main_thread():
        return  # a server run on a thread of its own (the browser tests') handles none

    def handler(signum: int, frame: Any) -> None:
        hub.close_soon()
        previous(signum, frame)

    signal.signal(number, handler)


def build(flask_app: Flask, threads: int | None = None) -> Entrance:
    """The entrance for a built Flask app; ``threads`` for its requests (GUNICORN_THREADS)."""
    return Entrance(flask_app, threads or int(os.environ.get("GUNICORN_THREADS") or 32))


_SERVED: list[Entrance] = []


def __getattr__(name: str) -> Entrance:
    """``app``, the served entrance, built when the server first asks for it (importing this
    module for ``build`` builds nothing: a test serves an app of its own)."""
    if name != "app":
        raise AttributeError(name)
    if not _SERVED:
        from app.wsgi import app as flask_app  # the app the REST workers serve, as built

        _SERVED.append(build(flask_app))
    return _SERVED[0]
