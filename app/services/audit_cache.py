"""Checkpoints of verified logs, so /verify and /replay do a round's work per call, not a game's.

For each game (the last ``GAMES`` asked about, per process) it keeps, at the start of each
round, the state after that round's deal and the chain's hash there, with a SHA-256 of the
raw stored bytes of every log row up to that point (seq, type, data as stored, time, hash).

A call reads the raw rows (no JSON decoding), hashes them in one pass, and resumes from the
last checkpoint whose bytes are unchanged: it decodes, re-hashes and replays only the rows after
it. A change anywhere in the stored log changes the bytes of every later prefix, so tampering
makes the checkpoints before the change the only ones that match, and everything after the
change is checked again; whatever fails there sends the caller to the full, uncached check.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.engine import EVENT_TYPES_BY_NAME, GameState, apply, event_from_dict
from app.services.log import CARD_PLAYED, GENESIS_HASH, ROUND_DEALT, RawEvent, event_hash

GAMES = 256  # games kept per process (each: one state per round, a few KB)


RawRow = RawEvent  # the data as the JSON text stored


@dataclass(frozen=True)
class Checkpoint:
    seq: int  # every row up to this one (a RoundDealt) verified
    digest: bytes  # SHA-256 of the raw rows 1..seq
    previous: str  # the hash of row ``seq``
    moves: int  # moves played before this round
    state: GameState  # after row ``seq``: the round's fresh deal (or the end of the log)
    round_start: bool = True  # False: the end of the log as it was then


@dataclass
class Verified:
    """The whole log verified: its chain ends where the game row says, and its replay."""

    state: GameState
    events: int
    checkpoints: list[Checkpoint] = field(default_factory=list)


_cache: OrderedDict[str, list[Checkpoint]] = OrderedDict()
_lock = threading.Lock()


def _row_bytes(row: RawRow) -> bytes:
    return f"{row.seq}\x1f{row.type}\x1f{row.data}\x1f{row.at}\x1f{row.hash}\x1e".encode()


def verified(game_id: str, start: GameState, rows: Sequence[RawRow]) -> Verified | None:
    """Check the chain and replay the log from the best unchanged checkpoint on. None when
    anything is wrong (a gap, a hash, an event that does not replay): the caller then runs
    the full check, which says what."""
    with _lock:
        known = list(_cache.get(game_id, []))
    resume, digests = _resume_point(known, rows)
    last = rows[-1].seq if rows else 0
    if resume is None:
        state, previous, moves, done = start.copy(), GENESIS_HASH, 0, 0
        kept: list[Checkpoint] = []
    else:
        state, previous, moves = resume.state.copy(), resume.previous, resume.moves
        done = resume.seq
        kept = [
            c
            for c in known
            if c.round_start and c.seq <= resume.seq and digests.get(c.seq) == c.digest
        ]
    for expected, row in enumerate(rows[done:], start=done + 1):
        if row.seq != expected:
            return None
        try:
            data = json.loads(row.data)
            if event_hash_of(game_id, row, data, previous) != row.hash:
                return None
            if row.type in EVENT_TYPES_BY_NAME:
                apply(state, event_from_dict(row.type, data))
        except Exception:  # a tampered row may not even decode: the full check says why
            return None
        previous = row.hash
        if row.type == CARD_PLAYED:
            moves += 1
        if row.type == ROUND_DEALT:
            kept.append(Checkpoint(row.seq, digests[row.seq], previous, moves, state.copy()))
    end = [] if not rows or rows[-1].type == ROUND_DEALT else [
        Checkpoint(last, digests[last], previous, moves, state.copy(), round_start=False)
    ]  # fmt: skip
    with _lock:
        _cache[game_id] = kept + end
        _cache.move_to_end(game_id)
        while len(_cache) > GAMES:
            _cache.popitem(last=False)
    return Verified(state, len(rows), [c for c in kept if c.round_start])


def _resume_point(
    known: list[Checkpoint], rows: Sequence[RawRow]
) -> tuple[Checkpoint | None, dict[int, bytes]]:
    """The last checkpoint whose raw bytes are unchanged, and the digest of the raw rows up to
    each deal (and to the end): one pass over the log, no decoding."""
    by_seq = {checkpoint.seq: checkpoint for checkpoint in known}
    rolling = hashlib.sha256()
    resume: Checkpoint | None = None
    digests: dict[int, bytes] = {}
    last = rows[-1].seq if rows else 0
    for row in rows:
        rolling.update(_row_bytes(row))
        if row.type == ROUND_DEALT or row.seq == last:
            digests[row.seq] = rolling.digest()
            candidate = by_seq.get(row.seq)
            if candidate is not None and candidate.digest == digests[row.seq]:
                resume = candidate
    return resume, digests


def event_hash_of(game_id: str, row: RawRow, data: dict[str, Any], previous: str) -> str:
    return event_hash(game_id, row.seq, row.type, data, row.at, previous)


def replay_from(
    game_id: str, verified_log: Verified, rows: Sequence[RawRow], step: int
) -> tuple[GameState, int]:
    """The state after the first ``step`` moves and the seq of the last row applied, starting
    from the round that holds the move (so at most a round of rows is replayed)."""
    start = None
    for checkpoint in verified_log.checkpoints:
        if checkpoint.moves <= step:
            start = checkpoint
    if start is None:  # before the first deal: nothing of the log to skip
        raise LookupError(f"no deal in the log of {game_id}")
    state = start.state.copy()
    played = start.moves
    last_seq = start.seq
    for row in rows[start.seq :]:
        if row.type == CARD_PLAYED:
            if played == step:
                break
            played += 1
        if row.type in EVENT_TYPES_BY_NAME:
            apply(state, event_from_dict(row.type, json.loads(row.data)))
        last_seq = row.seq
    return state, last_seq


def forget(game_id: str | None = None) -> None:
    with _lock:
        if game_id is None:
            _cache.clear()
        else:
            _cache.pop(game_id, None)
