"""A move's NOTIFY says what happened (status, scores, the events appended), so that no
process's hub reads the log for it: the notice's format, the records the live adapter makes of
it (app/live/notices.py), and what the hub does with a notice that brings records."""

from __future__ import annotations

import threading
import time

import pytest

from app.live.channel import Channel
from app.live.feed import Page
from app.live.hub import Hub
from app.live.notices import parse_notice
from app.live.records import Record
from app.persistence.notifications import MAX_NOTICE, notice_text
from app.services import games
from app.services.creation import Player


def move(version: int, card: str = "7D") -> Record:
    data = {"n": version, "round": 1, "seat": 0, "card": card, "captured": [], "basra": None,
            "version": version}  # fmt: skip
    return Record(version, "move", data)


def played(version: int, card: str = "7D") -> tuple[int, str, dict]:
    """A CardPlayed log event, as the save's notice carries it."""
    data = {"n": version, "round": 1, "seat": 0, "card": card, "captured": [], "basra": None}
    return (version, "CardPlayed", data)


def test_a_notice_carries_the_records_it_announces():
    records = [move(8), move(9, "10H"), Record(10, "over", {"winner": 1, "scores": [12, 101]})]
    events = [played(8), played(9, "10H"), (10, "MatchEnded", {"winner": 1})]
    notice = parse_notice(notice_text("a1b2", 10, 7, "finished", (12, 101), events))
    assert notice is not None and (notice.game_id, notice.version, notice.after) == ("a1b2", 10, 7)
    assert notice.page is not None and notice.page.ended and notice.page.through == 10
    assert [(r.id, r.event, r.data, r.json) for r in notice.page.records] == [
        (r.id, r.event, r.data, r.json) for r in records
    ]


def test_a_notice_leaves_out_what_a_stream_does_not_show():
    dealt = (3, "RoundDealt", {"round": 1, "dealer": 1, "deck": ["7D"] * 52})
    notice = parse_notice(notice_text("a1b2", 3, 2, "active", (0, 0), [dealt]))
    assert notice is not None and notice.page is not None and not notice.page.ended
    assert [(r.event, r.data) for r in notice.page.records] == [
        ("dealt", {"round": 1, "dealer": 1})
    ]


def test_a_bare_notice_still_parses():
    notice = parse_notice("a1b2:12")
    assert notice is not None and (notice.game_id, notice.version, notice.page) == (
        "a1b2",
        12,
        None,
    )


@pytest.mark.parametrize("payload", ["", "a1b2", "a1b2:x", ":3", "a1b2:3:x:[]", "a:1:2"])
def test_a_notice_that_is_not_one_is_ignored(payload):
    assert parse_notice(payload) is None


def test_records_that_do_not_fit_go_without_the_notice_saying_so():
    names = [(n, "SeatJoined", {"seat": n, "name": "x" * 40}) for n in range(1, 400)]
    text = notice_text("a1b2", 400, 0, "waiting", (0, 0), names)
    assert len(text.encode()) <= MAX_NOTICE
    notice = parse_notice(text)
    assert notice is not None and notice.page is None and notice.version == 400


def test_records_with_damaged_json_fall_back_to_the_version():
    notice = parse_notice('a1b2:9:8:["active",[0,0],[[9,"CardPlayed",')
    assert notice is not None and notice.page is None and notice.version == 9


def no_reads():
    raise AssertionError("the hub read the log although the notice brought the records")


def watched(hub: Hub, through: int) -> Channel:
    channel = Channel("g1", through=through, known=through, ring_from=through, watchers=1)
    hub.channels["g1"] = channel
    return channel


def test_records_that_follow_on_are_kept_without_a_read():
    hub = Hub(no_reads)
    channel = watched(hub, 7)
    woken = threading.Event()

    def waiter():
        with channel.changed:
            channel.changed.wait(2)
            woken.set()

    thread = threading.Thread(target=waiter)
    thread.start()
    hub.notify("g1", 9, after=7, page=Page([move(8), move(9)], 9, False))
    thread.join()
    assert woken.is_set()
    assert channel.through == 9 and [r.id for r in channel.after(7).records] == [8, 9]


def test_records_that_leave_a_gap_are_read_from_the_log_instead(monkeypatch):
    reads = []

    class Log:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def read(uow, game_id, after, limit=500):
        reads.append(after)
        return Page([move(6), move(7), move(8), move(9)], 9, False)

    monkeypatch.setattr("app.live.fanout.feed.read", read)
    hub = Hub(Log)
    channel = watched(hub, 5)
    hub.notify("g1", 9, after=7, page=Page([move(8), move(9)], 9, False))
    assert reads == [5]
    assert [r.id for r in channel.after(5).records] == [6, 7, 8, 9]


def test_a_record_kept_already_is_not_kept_twice():
    channel = Channel("g1", through=7, known=7, ring_from=7)
    with channel.changed:
        channel.keep(Page([move(8), move(9)], 9, False))
        channel.keep(Page([move(9), move(10)], 10, False))  # a read overlapping a notice
    assert [r.id for r in channel.after(7).records] == [8, 9, 10]


def test_a_stream_whose_channel_runs_ahead_of_the_log_waits_instead_of_reading_again(uow):
    """A channel that thinks the log goes further than it does (made from a cursor nobody
    checked) finds nothing when a stream reads the log: the stream then waits for news, as a
    caught-up one does, and never reads in a loop."""
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")])
    version = uow.games.progress(created.game_id).version
    hub = Hub(lambda: uow)
    channel = Channel(created.game_id, through=999, known=999, ring_from=999)
    started = time.monotonic()
    assert hub._next(channel, version, wait=0.3) is None  # a keep-alive, after the wait
    assert time.monotonic() - started >= 0.25
