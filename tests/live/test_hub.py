"""The process's hub (app/live/hub.py) on the in-memory unit of work: a caught-up stream takes a
notice's records without a read, waits with keep-alives, and ends when its client leaves or the
server stops; a notice that leaves a gap is read from the log instead, once for every stream; a
stream whose channel runs ahead of the log waits rather than reading again; a long poll wakes
when its seek is settled from another thread."""

from __future__ import annotations

import asyncio
import threading

from event_loops import run_apart

from app.api.stream import wire
from app.live import feed
from app.live.channel import Channel, Watch
from app.live.feed import Page
from app.live.hub import Hub
from app.live.records import Record
from app.persistence.notifications import CHANNEL, notice_text
from app.services import games
from app.services.creation import Player


def a_hub(uow) -> Hub:
    return Hub(lambda: uow, lambda seek_ids: {}, poll_seconds=60)


def a_game(uow) -> tuple[str, feed.Page]:
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")])
    return created.game_id, feed.read(uow, created.game_id, 0)


def played(version: int, card: str = "7D") -> tuple[int, str, dict]:
    """A CardPlayed log event, as the save's notice carries it."""
    data = {"n": version, "round": 1, "seat": 0, "card": card, "captured": [], "basra": None}
    return (version, "CardPlayed", data)


def move(version: int, card: str = "7D") -> Record:
    data = {"n": version, "round": 1, "seat": 0, "card": card, "captured": [], "basra": None,
            "version": version}  # fmt: skip
    return Record(version, "move", data)


def watched(hub: Hub, through: int) -> Channel:
    channel = Channel("g1", through=through, known=through, ring_from=through, watchers=1)
    hub.channels["g1"] = channel
    return channel


def no_reads():
    raise AssertionError("the hub read the log although the notice brought the records")


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


def test_records_that_follow_on_are_kept_without_a_read():
    hub = Hub(no_reads, lambda seek_ids: {})
    channel = watched(hub, 7)
    watch = Watch()
    channel.watches.add(watch)
    hub._heard(CHANNEL, notice_text("g1", 9, 7, "active", (0, 0), [played(8), played(9)]))
    assert watch.wake.is_set()
    assert channel.through == 9 and [r.id for r in channel.after(7).records] == [8, 9]


def test_records_that_leave_a_gap_are_read_from_the_log_instead(monkeypatch):
    reads = []

    def read(uow, game_id, after, limit=500):
        reads.append(after)
        return Page([move(6), move(7), move(8), move(9)], 9, False)

    monkeypatch.setattr("app.live.hub.feed.read", read)

    async def scenario() -> Channel:
        hub = Hub(lambda: None, lambda seek_ids: {})
        channel = watched(hub, 5)
        hub._heard(CHANNEL, notice_text("g1", 9, 7, "active", (0, 0), [played(8), played(9)]))
        await asyncio.gather(*hub.tasks)
        return channel

    channel = run_apart(scenario())
    assert reads == [5]
    assert [r.id for r in channel.after(5).records] == [6, 7, 8, 9]


def test_a_record_kept_already_is_not_kept_twice():
    channel = Channel("g1", through=7, known=7, ring_from=7)
    channel.keep(Page([move(8), move(9)], 9, False))
    channel.keep(Page([move(9), move(10)], 10, False))  # a read overlapping a notice
    assert [r.id for r in channel.after(7).records] == [8, 9, 10]


def test_a_stream_whose_channel_runs_ahead_of_the_log_waits_instead_of_reading_again(
    uow, monkeypatch
):
    """A channel that thinks the log goes further than it does (made from a cursor nobody
    checked) finds nothing when a stream reads the log: the stream then waits for news, as a
    caught-up one does, and never reads in a loop."""
    game_id, first = a_game(uow)
    reads = []
    real_read = feed.read

    def read(*args, **kwargs):
        reads.append(args[2])
        return real_read(*args, **kwargs)

    monkeypatch.setattr("app.live.hub.feed.read", read)

    async def scenario() -> tuple[bytes, float]:
        hub = a_hub(uow)
        hub.channels[game_id] = Channel(game_id, through=999, known=999, ring_from=999)
        stream = hub.follow(game_id, Page([], first.through, False), 0.3, 60, wire)
        loop = asyncio.get_running_loop()
        started = loop.time()
        got = await anext(stream)
        waited = loop.time() - started
        await stream.aclose()
        return got, waited

    got, waited = run_apart(scenario())
    assert got == b": keep-alive\n\n" and waited >= 0.25  # a keep-alive, after the wait
    assert reads == [first.through]


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
        hub.seeks.watch("s1")
        hub.seeks.watch("s2")
        threading.Timer(0.05, hub.seeks.settled, args=(["s1"],)).start()
        heard = await hub.seeks.changed("s1", 5)
        quiet = await hub.seeks.changed("s2", 0.1)
        hub.seeks.unwatch("s1")
        hub.seeks.unwatch("s2")
        assert hub.seeks.waiting == 0 and not hub.seeks.seeks
        await hub.stop()
        return heard, quiet

    assert run_apart(scenario()) == (True, False)
