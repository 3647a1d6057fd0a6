"""The process's one LISTEN connection (app/persistence/notifications.py: ``listen_async``) on a
real PostgreSQL: the notices of the games' and the seeks' channels reach the hub as they come,
after it was told the connection is up; and it is asked between notices, at least every
``wake_every`` seconds, whether it has work (its safety poll)."""

from __future__ import annotations

import asyncio
import time

import psycopg
import pytest
from event_loops import run_apart

from app.persistence.notifications import CHANNEL, libpq_url, listen_async
from app.persistence.seeks import SEEK_CHANNEL


@pytest.fixture
def postgres_url(database_url: str, backend: str) -> str:
    if backend != "postgresql":
        pytest.skip("SQLite has no NOTIFY; its streams poll")
    return database_url


def announce(url: str, *notices: tuple[str, str]) -> None:
    """Each (channel, payload) in a transaction of its own, as separate commits send them."""
    with psycopg.connect(libpq_url(url), autocommit=True) as connection:
        for channel, payload in notices:
            connection.execute("SELECT pg_notify(%s, %s)", (channel, payload))


class Hub:
    """A hub as the listener sees it, noting what it is told."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, str]] = []
        self.idles: list[float] = []
        self.up = asyncio.Event()

    def notice(self, channel: str, payload: str) -> None:
        self.heard.append((channel, payload))

    async def connected(self) -> None:
        self.up.set()

    async def idle(self) -> None:
        self.idles.append(time.monotonic())


async def listening(url: str, hub: Hub, wake_every: float) -> asyncio.Task[None]:
    channels = (CHANNEL, SEEK_CHANNEL)
    task = asyncio.ensure_future(
        listen_async(url, channels, hub.notice, hub.connected, hub.idle, wake_every)
    )
    await asyncio.wait_for(hub.up.wait(), 10)
    return task


def test_notices_of_games_and_seeks_reach_the_hub(postgres_url):
    async def scenario() -> list[tuple[str, str]]:
        hub = Hub()
        task = await listening(postgres_url, hub, wake_every=1.0)
        sent = [(CHANNEL, "listened-g1:1"), (SEEK_CHANNEL, "listened-s1:1")]
        await asyncio.to_thread(announce, postgres_url, *sent)
        deadline = time.monotonic() + 5
        # Only these: the channel is the database's, and other tests' games may notify too.
        while len(ours := [n for n in hub.heard if "listened-" in n[1]]) < 2:
            assert time.monotonic() < deadline, hub.heard
            await asyncio.sleep(0.02)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return ours

    assert run_apart(scenario()) == [(CHANNEL, "listened-g1:1"), (SEEK_CHANNEL, "listened-s1:1")]


def test_the_hub_is_asked_for_its_work_between_notices(postgres_url):
    async def scenario() -> list[float]:
        hub = Hub()
        task = await listening(postgres_url, hub, wake_every=0.1)
        await asyncio.sleep(0.6)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return hub.idles

    assert len(run_apart(scenario())) >= 3
