"""The event loop's hub (app/live/loop_hub.py) on the in-memory unit of work: a caught-up stream
takes a notice's records without a read, waits with keep-alives, and ends when its client
leaves or the server stops; a long poll wakes when its seek is settled from another thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from app.api.stream import wire
from app.live import feed
from app.live.loop_hub import LoopHub, Watch
from app.persistence.notifications import CHANNEL, notice_text
from app.services import games
from app.services.creation import Player

T = TypeVar("T")


def run_apart(scenario: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on a thread of its own: a test run may hold an event loop on this thread
    already (Playwright's sync API keeps one while its browser is open)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = asyncio.run(scenario)
        except BaseException as error:  # handed back to the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=run, name="loop-hub-test")
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive(), "the scenario did not end within a minute"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]


def a_hub(uow) -> LoopHub:
    return LoopHub(lambda: uow, lambda seek_ids: {}, poll_seconds=60)


def a_game(uow) -> tuple[str, feed.Page]:
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")])
    return created.game_id, feed.read(uow, created.game_id, 0)


def played(version: int) -> tuple[int, str, dict]:
    data = {"n": 1, "round": 1, "seat": 0, "card": "7D", "captured": [], "basra": None}
    return (version, "CardPlayed", data)


def test_a_caught_up_stream_takes_a_notices_records_and_keep_alives_between(uow):
    async def scenario() -> list[bytes]:
        hub = a_hub(uow)
        hub.start()
        game_id, first = a_game(uow)
        stream = hub.follow(game_id, first, 0.05, 60, wire, Watch())
        got = [await anext(stream)]  # the records so far
        got.append(await anext(stream))  # nothing new: a keep-alive
        version = first.through
        hub._heard(CHANNEL, notice_text(game_id, version + 1, version, "active", (0, 0),
                                        [played(version + 1)]))  # fmt: skip
        got.append(await anext(stream))
        await stream.aclose()
        assert not hub.channels  # its one stream left: the channel is gone
        await hub.stop()
        return got

    records, keepalive, move = run_apart(scenario())
    assert b"event: dealt" in records
    assert keepalive == b": keep-alive\n\n"
    assert move.startswith(b"id: ") and b"event: move" in move and b'"card":"7D"' in move


def test_a_stream_ends_when_its_client_leaves_or_the_server_stops(uow):
    async def scenario() -> None:
        hub = a_hub(uow)
        hub.start()
        game_id, first = a_game(uow)
        leaving, staying = Watch(), Watch()
        streams = [hub.follow(game_id, first, 30, 60, wire, w) for w in (leaving, staying)]
        for stream in streams:
            await anext(stream)  # the records so far; then each waits
        waits = [asyncio.ensure_future(anext(stream, None)) for stream in streams]
        await asyncio.sleep(0.05)
        leaving.leave()
        assert await asyncio.wait_for(waits[0], 1) is None
        assert not waits[1].done()
        hub.close_soon()
        assert await asyncio.wait_for(waits[1], 1) is None
        await hub.stop()

    run_apart(scenario())


def test_a_long_poll_wakes_when_another_thread_settles_its_seek(uow):
    async def scenario() -> tuple[bool, bool]:
        hub = a_hub(uow)
        hub.start()
        hub.watch_seek("s1")
        hub.watch_seek("s2")
        threading.Timer(0.05, hub.settled, args=(["s1"],)).start()
        heard = await hub.seek_changed("s1", 5)
        quiet = await hub.seek_changed("s2", 0.1)
        hub.unwatch_seek("s1")
        hub.unwatch_seek("s2")
        assert hub.seeks_waiting == 0 and not hub.seeks
        await hub.stop()
        return heard, quiet

    assert run_apart(scenario()) == (True, False)
