"""The process's one LISTEN connection (app/persistence/notifications.py) on a real PostgreSQL:
notices that reach it together are handed over together, so that the hub writes each game's
streams once for all of them; and it wakes as soon as the hub asks (records held back)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import psycopg
import pytest

from app.persistence.notifications import CHANNEL, Listener, libpq_url


@pytest.fixture
def postgres_url(database_url: str, backend: str) -> str:
    if backend != "postgresql":
        pytest.skip("SQLite has no NOTIFY; its streams poll")
    return database_url


def announce(url: str, *payloads: str) -> None:
    """Each payload in a transaction of its own, as separate commits send them."""
    with psycopg.connect(libpq_url(url), autocommit=True) as connection:
        for payload in payloads:
            connection.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))


class Sink:
    """A hub as the listener sees it (``NewsSink``), noting what it is told."""

    def __init__(self, watched: set[str] | None = None, wake_in: float | None = None) -> None:
        self.watched = watched  # None: every game
        self.wake_in = wake_in
        self.batches: list[list[tuple]] = []
        self.idles: list[float] = []
        self.first_batch_taken, self.go_on = threading.Event(), threading.Event()
        self.go_on.set()

    def watches(self, game_id: str) -> bool:
        return self.watched is None or game_id in self.watched

    def news(self, payloads: list[str]) -> None:
        notices = [payload.split(":")[:2] for payload in payloads]
        self.batches.append([(game_id, int(version)) for game_id, version in notices])
        self.first_batch_taken.set()
        self.go_on.wait(10)  # while cleared, the listener's thread is busy here

    def reconnected(self) -> None:
        pass

    def idle(self) -> float | None:
        self.idles.append(time.monotonic())
        return self.wake_in

    def wait_for_batches(self, count: int) -> None:
        deadline = time.monotonic() + 5
        while len(self.batches) < count and time.monotonic() < deadline:
            time.sleep(0.02)


class Running:
    """A listener on its own thread, as the hub's watcher runs it."""

    def __init__(self, url: str, sink: Sink, wake_every: float) -> None:
        self.listener = Listener(url, sink, wake_every)
        self.thread = threading.Thread(target=self.listener.run, daemon=True)
        self.thread.start()
        assert self.listener.connected.wait(10), "the listener did not connect"

    def stop(self) -> None:
        self.listener.stop()
        self.thread.join(10)


@pytest.fixture
def running() -> Iterator[list[Running]]:
    started: list[Running] = []
    yield started
    for each in started:
        each.stop()


def test_notices_that_arrive_together_are_handed_over_in_one_call(postgres_url, running):
    # Only these games: the channel is the database's, and a bots-only game an earlier test
    # left to the background runner may still be notifying (CI saw one in the second batch).
    sink = Sink(watched={"g1", "g2"})
    sink.go_on.clear()
    running.append(Running(postgres_url, sink, wake_every=1.0))
    announce(postgres_url, "g1:1")
    assert sink.first_batch_taken.wait(5)
    announce(postgres_url, "g1:2", "g2:5", "g1:3")
    time.sleep(0.3)  # they reach the listener's socket while its thread is still away
    sink.go_on.set()
    sink.wait_for_batches(2)
    assert sink.batches == [[("g1", 1)], [("g1", 2), ("g2", 5), ("g1", 3)]]


def test_notices_of_games_nobody_here_watches_are_skipped(postgres_url, running):
    sink = Sink(watched={"g1"})
    running.append(Running(postgres_url, sink, wake_every=1.0))
    announce(postgres_url, 'g2:5:4:0:[[5,"move",{"n":3}]]', "g1:2")
    sink.wait_for_batches(1)
    time.sleep(0.2)
    assert sink.batches == [[("g1", 2)]]


def test_the_listener_wakes_when_asked_without_a_notice(postgres_url, running):
    sink = Sink(wake_in=0.05)  # records held back: wake in 50 ms to write them
    running.append(Running(postgres_url, sink, wake_every=5.0))
    time.sleep(0.6)
    # Left alone, it would wait for a notice for wake_every (5 s) between calls.
    assert len(sink.idles) >= 4, sink.idles
