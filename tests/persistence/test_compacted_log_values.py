"""The compacted value of a log (app/persistence/compacted_logs.py) reads back as exactly the rows
it was made of, and no changed byte of it reads back as a log whose chain holds."""

from __future__ import annotations

import orjson
import pytest

from app.persistence.compacted_logs import UnreadableLog, compacted, expanded
from app.persistence.memory import MemoryUnitOfWork
from app.persistence.statements import json_text
from app.services import games, playing
from app.services.creation import Player
from app.services.log import GENESIS_HASH, RawEvent, event_hash


def played_log() -> tuple[str, list[RawEvent]]:
    """A whole match against the greedy bot, as its rows store it."""
    uow = MemoryUnitOfWork()
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")],
                                rules={"target_score": 31})  # fmt: skip
    view, token = created.state, created.seats[0]["token"]
    while view["status"] == "active":
        command = playing.PlayCard(created.game_id, token, view["hand"][0])
        view = playing.play_card(uow, command).state
    log = uow.store.logs[created.game_id]
    return created.game_id, [RawEvent(e.seq, e.type, json_text(e.data), e.at, e.hash) for e in log]


def rechained(game_id: str, rows: list[RawEvent]) -> list[RawEvent]:
    """The same entries with each hash computed for what they now hold."""
    previous, out = GENESIS_HASH, []
    for row in rows:
        previous = event_hash(game_id, row.seq, row.type, orjson.loads(row.data), row.at, previous)
        out.append(RawEvent(row.seq, row.type, row.data, row.at, previous))
    return out


def chain_holds(game_id: str, rows: list[RawEvent], last: str) -> bool:
    try:
        again = rechained(game_id, rows)
    except orjson.JSONDecodeError:
        return False
    seqs = [row.seq for row in rows] == list(range(1, len(rows) + 1))
    return seqs and again == rows and bool(rows) and rows[-1].hash == last


def test_a_played_log_reads_back_exactly_and_is_a_fraction_of_its_rows():
    game_id, rows = played_log()
    value = compacted(rows)
    assert expanded(game_id, value) == rows
    text = sum(len(r.data) + len(r.at) + len(r.hash) + len(r.type) for r in rows)
    assert len(value) < text / 4


def test_times_not_in_the_servers_own_format_are_kept_as_they_are():
    game_id, rows = played_log()
    odd = [RawEvent(r.seq, r.type, r.data, r.at.replace("Z", "+00:00"), r.hash) for r in rows]
    odd = rechained(game_id, odd)
    assert expanded(game_id, compacted(odd)) == odd


def test_no_changed_byte_of_a_value_reads_as_another_log_whose_chain_holds():
    game_id, rows = played_log()
    value = compacted(rows)
    for at in range(len(value)):
        for mask in (0x01, 0xFF):
            changed = bytearray(value)
            changed[at] ^= mask
            try:
                read = expanded(game_id, bytes(changed))
            except UnreadableLog:
                continue
            # A few bits of a deflate stream carry nothing (the padding after its last block,
            # say): such a change reads back as the very same log, which is no tampering.
            assert read == rows or not chain_holds(game_id, read, rows[-1].hash), (at, mask)


def test_a_value_of_another_format_is_unreadable():
    game_id, rows = played_log()
    with pytest.raises(UnreadableLog):
        expanded(game_id, b"\x02" + compacted(rows)[1:])
    with pytest.raises(UnreadableLog):
        expanded(game_id, b"")
