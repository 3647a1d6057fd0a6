"""The hub for a request served on a thread (app/live/bridge.py): a stream is taken from the
process's own loop a batch at a time and leaves its game's channel when it is closed; a long
poll waits there until its seek is settled."""

from __future__ import annotations

import threading

from app.api.stream import wire
from app.live import bridge, feed
from app.live.hub import Hub
from app.services import games
from app.services.creation import Player


def a_hub(uow) -> Hub:
    return Hub(lambda: uow, lambda seek_ids: {}, poll_seconds=60)


def test_a_stream_taken_from_a_thread_leaves_its_channel_when_closed(uow):
    hub = a_hub(uow)
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")])
    first = feed.read(uow, created.game_id, 0)
    try:
        stream = bridge.follow(hub, created.game_id, first, 0.05, 60, wire)
        assert b"event: dealt" in next(stream)
        assert next(stream) == b": keep-alive\n\n"
        assert created.game_id in hub.channels
        stream.close()
        assert not hub.channels
        assert list(stream) == []
    finally:
        hub.shutdown()


def test_a_long_poll_from_a_thread_wakes_when_its_seek_is_settled(uow):
    hub = a_hub(uow)
    try:
        with bridge.watching(hub, "s1") as changed:
            threading.Timer(0.05, hub.seeks.settled, args=(["s1"],)).start()
            assert changed(5)
        with bridge.watching(hub, "s2") as changed:
            assert not changed(0.1)
        assert hub.seeks.waiting == 0 and not hub.seeks.seeks
    finally:
        hub.shutdown()
