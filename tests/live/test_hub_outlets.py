"""Streams whose socket the hub writes itself (``Outlet``): while a stream keeps up, the thread
that brings a game's records writes them to its socket and the stream's own thread sleeps;
a socket that cannot take a batch is handed back to its thread, which writes the rest and goes
on, missing nothing and repeating nothing. Real sockets (socket pairs), no server."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import suppress

import pytest

from app.api.stream import sse
from app.live.feed import Page
from app.live.hub import Hub
from app.live.outlet import Outlet
from app.live.records import Record


def move(version: int) -> Record:
    return Record(version, "move", {"n": version, "card": "7D", "pad": "x" * 200})


def over(version: int) -> Record:
    return Record(version, "over", {"winner": 0, "scores": [101, 12]})


def wire(batch: list[Record]) -> bytes:
    return sse(batch).encode()


class Versions:
    """A unit of work whose games are all at one version: the hub's polls find nothing new."""

    def __init__(self, version: int) -> None:
        self.games = self
        self.version = version

    def __enter__(self) -> Versions:
        return self

    def __exit__(self, *exc: object) -> bool:
        return False

    def versions(self, game_ids: list[str]) -> dict[str, int]:
        return dict.fromkeys(game_ids, self.version)


class Stream:
    """``hub.follow`` with an outlet on one end of a socket pair, run as a server's stream
    thread runs it; ``client`` is the other end."""

    def __init__(self, hub: Hub, after: int, keepalive: float = 30, lifetime: float = 30) -> None:
        self.server, self.client = socket.socketpair()
        self.outlet = Outlet(self.server, wire)
        self.yielded: list[list[Record]] = []  # what went the ordinary way, through the iterator
        self.ended = threading.Event()
        records = hub.follow("g1", Page([], after, False), keepalive, lifetime, self.outlet)
        self.thread = threading.Thread(target=self._run, args=(records,), daemon=True)
        self.thread.start()

    def _run(self, records: Iterator[list[Record]]) -> None:
        for batch in records:
            self.yielded.append(batch)
            self.server.sendall(wire(batch))  # as the server writes what the iterator yields
        self.ended.set()

    def wait_attached(self) -> None:
        deadline = time.monotonic() + 5
        while not self.outlet.attached:
            assert time.monotonic() < deadline, "the stream never let the hub write for it"
            time.sleep(0.01)

    def read(self, until: bytes, timeout: float = 5) -> bytes:
        self.client.settimeout(timeout)
        got = b""
        while until not in got:
            chunk = self.client.recv(1 << 16)
            assert chunk, f"closed before {until!r}: {got[-200:]!r}"
            got += chunk
        return got

    def close(self) -> None:
        self.client.close()
        self.server.close()


def ids(text: bytes) -> list[int]:
    return [int(line[4:]) for line in text.decode().splitlines() if line.startswith("id: ")]


@pytest.fixture
def hub() -> Iterator[Hub]:
    running = Hub(lambda: Versions(7))
    yield running
    running.stop()


def test_a_caught_up_streams_records_are_written_by_the_notifying_thread(hub):
    stream = Stream(hub, after=7)
    try:
        stream.wait_attached()
        hub.notify("g1", 9, after=7, page=Page([move(8), move(9)], 9, False))
        # The notify call returns once the records are in the socket: no stream thread woke.
        stream.client.settimeout(0)
        assert ids(stream.client.recv(1 << 16)) == [8, 9]
        hub.notify("g1", 10, after=9, page=Page([over(10)], 10, True))
        assert ids(stream.read(b"event: over")) == [10]
        assert stream.ended.wait(5), "the stream did not end after `over`"
        assert stream.yielded == []
    finally:
        stream.close()


def test_a_batch_is_rendered_once_for_all_the_streams_that_take_it(hub):
    rendered: list[int] = []

    def counting(batch: list[Record]) -> bytes:
        rendered.append(len(batch))
        return wire(batch)

    streams = [Stream(hub, after=7) for _ in range(5)]
    try:
        for stream in streams:
            stream.outlet.render = counting
            stream.wait_attached()
        hub.notify("g1", 9, after=7, page=Page([move(8), move(9)], 9, False))
        assert rendered == [2]
        for stream in streams:
            assert ids(stream.read(b"id: 9\n")) == [8, 9]
    finally:
        for stream in streams:
            stream.close()


def test_a_client_that_stops_reading_is_handed_back_and_gets_everything_in_order(hub):
    slow, fast = Stream(hub, after=7), Stream(hub, after=7)
    slow.server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    slow.client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        slow.wait_attached()
        fast.wait_attached()
        version = 7
        for _ in range(100):  # ~55 KiB of records, within the ring, more than the slow buffers
            hub.notify("g1", version + 2, after=version, page=Page(
                [move(version + 1), move(version + 2)], version + 2, False))  # fmt: skip
            version += 2
            assert ids(fast.read(f"id: {version}\n".encode()))[-1] == version
        assert not slow.outlet.attached, "a socket that took no more was still written to"
        last = Page([over(version + 1)], version + 1, True)
        hub.notify("g1", version + 1, after=version, page=last)
        fast.read(b"event: over")
        got = slow.read(b"event: over", timeout=10)  # now it reads: its thread writes the rest
        assert ids(got) == list(range(8, version + 2))
        assert slow.ended.wait(5) and fast.ended.wait(5)
        assert fast.yielded == []
    finally:
        slow.close()
        fast.close()


def test_keep_alives_are_written_while_the_stream_sleeps(hub):
    stream = Stream(hub, after=7, keepalive=0.1)
    try:
        stream.wait_attached()
        # One each 0.1 s: three within 0.3 s on a quiet machine; the deadline is for a loaded one.
        written, deadline = b"", time.monotonic() + 5
        stream.client.settimeout(0.1)
        while written.count(b": keep-alive\n\n") < 3 and time.monotonic() < deadline:
            with suppress(TimeoutError):
                written += stream.client.recv(1 << 16)
        assert written.count(b": keep-alive\n\n") >= 3
        assert stream.yielded == [] and stream.outlet.attached
    finally:
        stream.close()


def test_a_stream_ends_after_its_lifetime_while_it_sleeps(hub):
    stream = Stream(hub, after=7, lifetime=0.3)
    try:
        assert stream.ended.wait(5), "the stream outlived its lifetime"
        assert not stream.outlet.attached
    finally:
        stream.close()


def test_a_client_that_went_away_ends_its_stream(hub):
    stream = Stream(hub, after=7)
    try:
        stream.wait_attached()
        stream.client.close()
        hub.notify("g1", 9, after=7, page=Page([move(8), move(9)], 9, False))
        assert stream.ended.wait(5), "the stream of a closed socket went on"
        assert stream.outlet.broken
    finally:
        stream.server.close()


def counted_sends(stream: Stream) -> list[bytes]:
    """What the hub's thread offered the stream's socket, a send each (the socket still gets it)."""
    sent: list[bytes] = []
    offer = stream.outlet.offer

    def counting(wire: bytes) -> bool:
        sent.append(wire)
        return offer(wire)

    stream.outlet.offer = counting  # type: ignore[method-assign]
    return sent


def test_notices_that_came_together_are_written_in_one_send(hub):
    stream = Stream(hub, after=7)
    sent = counted_sends(stream)
    try:
        stream.wait_attached()
        hub.notify_many([
            ("g1", 9, 7, Page([move(8), move(9)], 9, False)),
            ("g1", 11, 9, Page([move(10), move(11)], 11, False)),
            ("another game", 3, 2, Page([move(3)], 3, False)),  # nobody watches it here
        ])  # fmt: skip
        assert [ids(wire) for wire in sent] == [[8, 9, 10, 11]]
        assert ids(stream.read(b"id: 11\n")) == [8, 9, 10, 11]
    finally:
        stream.close()


@pytest.fixture
def busy_hub() -> Iterator[Hub]:
    """A hub that writes a game's streams at most every 0.3 s (its thread writes what it held)."""
    running = Hub(lambda: Versions(7), write_every=0.3)
    yield running
    running.stop()


def test_a_busy_games_records_are_held_then_written_together(busy_hub):
    stream = Stream(busy_hub, after=7)
    sent = counted_sends(stream)
    try:
        stream.wait_attached()
        busy_hub.notify("g1", 8, after=7, page=Page([move(8)], 8, False))
        assert ids(b"".join(sent)) == [8], "the first news of a quiet game waited"
        held_at = time.monotonic()
        busy_hub.notify("g1", 9, after=8, page=Page([move(9)], 9, False))
        busy_hub.notify("g1", 10, after=9, page=Page([move(10)], 10, False))
        assert len(sent) == 1, "a game written a moment ago was written again at once"
        got = stream.read(b"id: 10\n", timeout=3)
        waited = time.monotonic() - held_at
        assert ids(got) == [8, 9, 10]
        assert [ids(wire) for wire in sent] == [[8], [9, 10]]
        assert 0.1 < waited < 1.5, f"held records were written after {waited:.2f} s"
        assert stream.yielded == []
    finally:
        stream.close()


def test_the_last_record_of_a_game_is_never_held(busy_hub):
    stream = Stream(busy_hub, after=7)
    try:
        stream.wait_attached()
        busy_hub.notify("g1", 8, after=7, page=Page([move(8)], 8, False))
        busy_hub.notify("g1", 9, after=8, page=Page([over(9)], 9, True))
        stream.client.settimeout(0)
        got = b""
        with pytest.raises(BlockingIOError):
            while True:
                got += stream.client.recv(1 << 16)
        assert ids(got) == [8, 9]
        assert stream.ended.wait(5)
    finally:
        stream.close()
