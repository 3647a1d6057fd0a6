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


class Running:
    """A listener on its own thread, as the hub's watcher runs it."""

    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self.thread = threading.Thread(target=listener.run, daemon=True)
        self.thread.start()
        assert listener.connected.wait(10), "the listener did not connect"

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
    batches: list[list[tuple]] = []
    first_batch_taken, go_on = threading.Event(), threading.Event()

    def on_news(news: list[tuple]) -> None:
        batches.append(news)
        first_batch_taken.set()
        go_on.wait(10)  # the listener's thread is busy: the next notices queue up meanwhile

    running.append(Running(Listener(postgres_url, on_news, lambda: None, wake_every=1.0)))
    announce(postgres_url, "g1:1")
    assert first_batch_taken.wait(5)
    announce(postgres_url, "g1:2", "g2:5", "g1:3")
    time.sleep(0.3)  # they reach the listener's socket while its thread is still away
    go_on.set()
    deadline = time.monotonic() + 5
    while len(batches) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [[(game, version) for game, version, *_ in batch] for batch in batches] == [
        [("g1", 1)],
        [("g1", 2), ("g2", 5), ("g1", 3)],
    ]


def test_the_listener_wakes_when_asked_without_a_notice(postgres_url, running):
    idles: list[float] = []

    def on_idle() -> float:
        idles.append(time.monotonic())
        return 0.05  # records held back: wake in 50 ms to write them

    listener = Listener(postgres_url, lambda news: None, lambda: None, 5.0, on_idle)
    running.append(Running(listener))
    time.sleep(0.6)
    # With nothing said, it would wait for a notice for wake_every (5 s) before each call.
    assert len(idles) >= 4, idles
