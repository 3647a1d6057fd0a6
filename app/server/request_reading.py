"""A request's head (and its body, when small and of known length) read in the event loop,
before a thread is given to it.

gunicorn's threaded worker hands a connection to one of its pool threads as soon as it is
accepted, or as soon as a kept-alive one becomes readable, and that thread reads the request's
head with a blocking read and no deadline. A client that sends part of a head and stops keeps the
thread for as long as it keeps the connection: 600 such connections left a one-worker server
(512 threads) answering nothing (docs/reliability.md, "Slow request heads").

``RequestReader`` reads in the loop's selector instead, without blocking: a connection gets a
thread once its whole head is in, with its body when the head gives a ``Content-Length`` of at
most ``max_body`` bytes (a JSON body of this API) or a chunked body, whose chunks are read until
the last one (one adding up to more than ``max_body`` is refused, 413), so that the thread never
waits on the client.
One that has not sent all that within ``seconds`` of its first chance is closed, as HAProxy's
``timeout http-request`` does. A head larger than ``max_head`` is refused (431) without reading on.
What it read goes to gunicorn's own parser untouched: gunicorn still judges the request.
"""

from __future__ import annotations

import selectors
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from enum import Enum
from functools import partial
from typing import Any

from app.server.nonblocking import recv_now


class Verdict(Enum):
    WAIT = "wait"  # the request is not all in yet
    READY = "ready"  # hand it to a thread
    GONE = "gone"  # the client closed (or reset) before sending a whole request
    TOO_LARGE = "too_large"  # a head longer than any this server reads
    BODY_TOO_LARGE = "body_too_large"  # chunks that add up to more than the app accepts


@dataclass(eq=False)
class _Reading:
    conn: Any  # gunicorn's TConn: its ``sock`` is the client's socket, non-blocking
    deadline: float
    data: bytearray = field(default_factory=bytearray)
    searched: int = 0  # the head's end is not in data[:searched] (each byte is looked at once)
    whole: int | None = None  # once the head is in: the request's length with its body
    chunk_at: int | None = None  # a chunked body: where its next chunk-size line starts
    chunked_bytes: int = 0  # the sizes of the chunks read so far


# (connection, the bytes read) -> None
Ready = Callable[[Any, bytes], None]
# (connection, verdict: GONE, TOO_LARGE, or WAIT at the deadline) -> None
Refuse = Callable[[Any, Verdict], None]


class RequestReader:
    """The connections an event loop is reading a request from; ``poller`` is the loop's
    selector, which calls the data registered with a socket as ``callback(fileobj)``."""

    def __init__(
        self,
        poller: selectors.BaseSelector,
        ready: Ready,
        refuse: Refuse,
        seconds: float = 10.0,
        max_head: int = 65536,
        max_body: int = 65536,
    ) -> None:
        self.poller = poller
        self.ready, self.refuse = ready, refuse
        self.seconds, self.max_head, self.max_body = seconds, max_head, max_body
        self.reading: dict[_Reading, None] = {}  # in the order they began: by deadline

    def read(self, conn: Any) -> None:
        """Take ``conn`` until its request is in (often it is already: then at once)."""
        entry = _Reading(conn, time.monotonic() + self.seconds)
        verdict = self._take(entry)
        if verdict is not Verdict.WAIT:
            self._settle(entry, verdict)
            return
        try:
            self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._readable, entry))
        except (OSError, ValueError, KeyError):
            self.refuse(conn, Verdict.GONE)
            return
        self.reading[entry] = None

    def expire(self) -> None:
        """Give up on the connections whose time is up (the loop calls this every turn)."""
        now = time.monotonic()
        while self.reading:
            entry = next(iter(self.reading))
            if entry.deadline > now:
                return
            self._forget(entry)
            self.refuse(entry.conn, Verdict.WAIT)

    def close_all(self) -> None:
        for entry in list(self.reading):
            self._forget(entry)
            self.refuse(entry.conn, Verdict.WAIT)

    def _readable(self, entry: _Reading, _fileobj: object) -> None:
        verdict = self._take(entry)
        if verdict is not Verdict.WAIT:
            self._forget(entry)
            self._settle(entry, verdict)

    def _take(self, entry: _Reading) -> Verdict:
        """Read what the socket holds now, and judge what has come so far."""
        while True:
            try:
                chunk = recv_now(entry.conn.sock)  # keeps the GIL: this loop serves them all
            except OSError:
                return Verdict.GONE
            if chunk is None:
                return Verdict.WAIT
            if not chunk:
                return Verdict.GONE
            entry.data += chunk
            verdict = advance(entry, self.max_head, self.max_body)
            if verdict is not Verdict.WAIT:
                return verdict

    def _settle(self, entry: _Reading, verdict: Verdict) -> None:
        if verdict is Verdict.READY:
            self.ready(entry.conn, bytes(entry.data))
        else:
            self.refuse(entry.conn, verdict)

    def _forget(self, entry: _Reading) -> None:
        self.reading.pop(entry, None)
        with suppress(OSError, ValueError, KeyError):
            self.poller.unregister(entry.conn.sock)


def judge(data: bytes | bytearray, max_head: int, max_body: int) -> Verdict:
    """Whether ``data`` holds a whole request head (and the small body it announces)."""
    return advance(_Reading(conn=None, deadline=0.0, data=bytearray(data)), max_head, max_body)


def advance(entry: _Reading, max_head: int, max_body: int) -> Verdict:
    """``judge`` of what ``entry`` has read so far, looking at each byte once however small
    the pieces it came in."""
    if entry.whole is None:
        end, gap = head_end(entry.data, max(0, entry.searched - 3))
        entry.searched = len(entry.data)
        if end == -1:
            return Verdict.TOO_LARGE if len(entry.data) > max_head else Verdict.WAIT
        head = bytes(entry.data[:end])
        length = body_length(head)
        if length is None and is_chunked(head):
            entry.chunk_at = end + gap
            entry.whole = -1  # known once the last chunk is in
        elif length is None or length > max_body:
            return Verdict.READY  # the thread reads the body (or the app refuses it, 413)
        else:
            entry.whole = end + gap + length
    if entry.chunk_at is not None:
        return advance_chunks(entry, max_body)
    return Verdict.READY if len(entry.data) >= entry.whole else Verdict.WAIT


def advance_chunks(entry: _Reading, max_body: int) -> Verdict:
    """Walk the chunks in so far, from where the last call stopped (each chunk is walked once).
    A malformed chunk goes to gunicorn's parser, which refuses it (400)."""
    data = entry.data
    while True:
        at = entry.chunk_at
        assert at is not None
        line_end = data.find(b"\r\n", at)
        if line_end == -1:
            return Verdict.READY if len(data) - at > 1024 else Verdict.WAIT
        try:
            size = int(bytes(data[at:line_end]).split(b";", 1)[0].strip(), 16)
        except ValueError:
            return Verdict.READY
        entry.chunked_bytes += size
        if entry.chunked_bytes > max_body:
            return Verdict.BODY_TOO_LARGE
        if size == 0:  # the last chunk, then trailers up to a blank line
            if data.startswith(b"\r\n", line_end + 2):
                return Verdict.READY
            return Verdict.READY if data.find(b"\r\n\r\n", line_end) != -1 else Verdict.WAIT
        following = line_end + 2 + size + 2
        if len(data) < following:
            entry.chunked_bytes -= size  # walked again once it is all in
            return Verdict.WAIT
        entry.chunk_at = following


def head_end(data: bytes | bytearray, start: int = 0) -> tuple[int, int]:
    """Where the head ends (its blank line) and the blank line's length; (-1, 0) if not yet."""
    end, gap = data.find(b"\r\n\r\n", start), 4
    bare = data.find(b"\n\n", start)  # gunicorn judges a head that ends so: hand it on
    if bare != -1 and (end == -1 or bare < end):
        end, gap = bare, 2
    return end, gap if end != -1 else 0


def is_chunked(head: bytes) -> bool:
    """Whether the head frames its body in chunks (and asks for nothing else first)."""
    fields = [line.partition(b":") for line in head.split(b"\n")[1:]]
    names = {name.strip().lower(): value.strip().lower() for name, _, value in fields}
    return names.get(b"transfer-encoding") == b"chunked" and b"expect" not in names


def body_length(head: bytes) -> int | None:
    """The body's length by the head, when it is plainly one ``Content-Length``; None when the
    body is framed otherwise (chunked), waits for an answer (``Expect``), or the head is odd
    (gunicorn then refuses it, or reads the body its own way)."""
    lengths = []
    for line in head.split(b"\n")[1:]:
        name, colon, value = line.partition(b":")
        if not colon:
            return None
        name = name.strip().lower()
        if name in (b"transfer-encoding", b"expect"):
            return None
        if name == b"content-length":
            lengths.append(value.strip())
    if not lengths:
        return 0
    if len(lengths) > 1 or not lengths[0].isdigit():
        return None
    return int(lengths[0])
