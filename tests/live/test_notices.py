"""A move's NOTIFY says what happened (status, scores, the events appended), so that no
process's hub reads the log for it: the notice's format, and the records the live adapter makes
of it (app/live/notices.py). What the hub does with them: test_hub.py."""

from __future__ import annotations

import pytest

from app.live.notices import parse_notice
from app.live.records import Record
from app.persistence.notifications import MAX_NOTICE, notice_text


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
