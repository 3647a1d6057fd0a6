"""A game's log in either of its two forms: rows of ``events`` while the game is played, one
compressed value of ``compacted_logs`` once it is over and the sweep got to it (a few KB a match
instead of some 60 KB, docs/scaling.md). Every read of a log goes through ``log_query`` and
``stored_log``, which hand back the same rows whichever form holds them.

The sweep compacts the games over for a while, oldest first, a batch a transaction: each game's
row is locked (on PostgreSQL another sweeper passes over it: SKIP LOCKED), its rows are read,
encoded, decoded again and compared, and only when they read back exactly the same are the
compressed value written and the rows deleted, in that one transaction. A log that does not
read back the same (an entry changed by hand so that its hash no longer follows) stays in rows,
where ``/verify`` shows which entry it is; the game is marked swept either way.

The value (``compacted``, and back: ``expanded``): as rows, a match to 101 cost about 58 KB
(some 210 rows of ~240 bytes and their primary key's entries, docs/scaling.md); as one value
about 3 KB. What makes the difference:

- the hashes are not stored: the chain is computed again from the entries when the log is
  read, but the hash of each ``RoundDealt`` and of the last entry, which are kept as stored
  (anchors). A changed entry then changes the hashes computed after it, and the chain fails at
  the next anchor, where the stored hash no longer follows (``/verify`` says which one);
- times are microseconds since the previous entry's (a few bytes), when every entry's text is
  the one ``now_text`` writes; otherwise their text is kept as it is;
- each entry's data is kept as the JSON text stored, byte for byte, and the whole is
  compressed with zlib (lzma saved another 10% and took several times longer to read).

A value that does not decompress or parse reads as no log at all, which ``/verify`` reports
as a chain that ends before its first event.
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from sqlalchemy import (
    Connection,
    Integer,
    LargeBinary,
    Select,
    String,
    Text,
    cast,
    delete,
    insert,
    null,
    select,
    union_all,
    update,
)

from app.persistence.models import COMPACTED_LOGS, EVENTS, GAMES, UNSWEPT
from app.services.log import GENESIS_HASH, ROUND_DEALT, RawEvent, event_hash

log = logging.getLogger("basra.persistence")

FORMAT = 1  # the first byte of every value: what follows, and how to read it
_TIMES, _TEXTS = 0, 1  # how the entries' times are kept
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)

_ROW_COLUMNS = (
    EVENTS.c.seq, EVENTS.c.type, cast(EVENTS.c.data, Text).label("data"), EVENTS.c.at,
    EVENTS.c.hash,
)  # fmt: skip
_NO_ROW = (cast(null(), Integer), cast(null(), String), cast(null(), Text), cast(null(), String),
           cast(null(), String))  # fmt: skip


def log_query(game_id: str, after: int, limit: int | None, kind: str | None) -> Any:
    """The log's rows after ``after`` (of ``kind``; the first ``limit``) and its compacted
    value, if any, in one statement: each result row has either the entry or ``log``."""
    rows: Select[Any] = select(*_ROW_COLUMNS, cast(null(), LargeBinary).label("log"))
    rows = rows.where(EVENTS.c.game_id == game_id, EVENTS.c.seq > after)
    if kind is not None:
        rows = rows.where(EVENTS.c.type == kind)
    rows = rows.order_by(EVENTS.c.seq).limit(limit)
    entries = rows.subquery()
    value = select(*_NO_ROW, COMPACTED_LOGS.c.log).where(COMPACTED_LOGS.c.game_id == game_id)
    return union_all(select(entries), value)


def stored_log(
    game_id: str, found: Sequence[Any], after: int, limit: int | None, kind: str | None
) -> list[RawEvent]:
    """The rows ``log_query`` found, the compacted value's read like the others."""
    rows = [RawEvent(r.seq, r.type, r.data, r.at, r.hash) for r in found if r.log is None]
    for value in (r.log for r in found if r.log is not None):
        whole = _readable(game_id, bytes(value))
        rows += [e for e in whole if e.seq > after and (kind is None or e.type == kind)]
    rows.sort(key=lambda row: row.seq)
    return rows if limit is None else rows[:limit]


def _readable(game_id: str, value: bytes) -> list[RawEvent]:
    try:
        return expanded(game_id, value)
    except UnreadableLog as error:  # /verify reports the log as missing from its first event
        log.warning("the compacted log of game %s is unreadable: %s", game_id, error)
        return []


def compact_logs(connection: Connection, before: datetime, limit: int) -> int:
    """Compact the logs of up to ``limit`` games over and unchanged since ``before``, the
    longest over first; how many games were swept (compacted or left as they are)."""
    due = (
        select(GAMES.c.id).where(UNSWEPT, GAMES.c.updated_at < before)
        .order_by(GAMES.c.updated_at).limit(limit).with_for_update(skip_locked=True)
    )  # fmt: skip
    game_ids = list(connection.scalars(due))
    for game_id in game_ids:
        _compact(connection, game_id)
    if game_ids:
        swept = update(GAMES).where(GAMES.c.id.in_(game_ids)).values(log_swept=True)
        connection.execute(swept)
    return len(game_ids)


def _compact(connection: Connection, game_id: str) -> None:
    query = select(*_ROW_COLUMNS).where(EVENTS.c.game_id == game_id).order_by(EVENTS.c.seq)
    rows = [RawEvent(*row) for row in connection.execute(query)]
    if not rows:
        return
    value = compacted(rows)
    if expanded(game_id, value) != rows:
        log.warning("the log of game %s does not read back the same compacted: kept", game_id)
        return
    connection.execute(insert(COMPACTED_LOGS).values(game_id=game_id, log=value))
    connection.execute(delete(EVENTS).where(EVENTS.c.game_id == game_id))


class UnreadableLog(ValueError):
    """The stored value is not a log this code wrote (changed, cut short, or another format)."""


def compacted(rows: Sequence[RawEvent]) -> bytes:
    """The value that holds ``rows`` (the whole log, seq 1 to n, in order)."""
    types = sorted({row.type for row in rows})
    out = bytearray(_varint(len(rows)))
    out += _varint(len(types)) + b"".join(_text(name) for name in types)
    out += b"".join(_varint(types.index(row.type)) for row in rows)
    micros = [_micros(row.at) for row in rows]
    if all(m is not None and _at_text(m) == row.at for m, row in zip(micros, rows, strict=True)):
        out.append(_TIMES)
        previous = 0
        for moment in micros:
            assert moment is not None
            out += _varint(_zigzag(moment - previous))
            previous = moment
    else:
        out.append(_TEXTS)
        out += b"".join(_text(row.at) for row in rows)
    out += b"".join(_text(row.data) for row in rows)
    anchors = [(index, row.hash) for index, row in enumerate(rows) if _anchored(rows, index)]
    out += _varint(len(anchors))
    for index, digest in anchors:
        out += _varint(index) + _text(digest)
    return bytes([FORMAT]) + zlib.compress(bytes(out), 9)


def expanded(game_id: str, value: bytes) -> list[RawEvent]:
    """The rows ``value`` holds, their hashes computed again (UnreadableLog if it cannot)."""
    if not value or value[0] != FORMAT:
        raise UnreadableLog("not a compacted log of this format")
    try:
        reader = _Reader(zlib.decompress(value[1:]))
        count = reader.number()
        types = [reader.text() for _ in range(reader.number())]
        kinds = [types[reader.number()] for _ in range(count)]
        if reader.byte() == _TIMES:
            times = list(_moments(reader, count))
        else:
            times = [reader.text() for _ in range(count)]
        data = [reader.text() for _ in range(count)]
        anchors = {reader.number(): reader.text() for _ in range(reader.number())}
    except (zlib.error, IndexError, UnicodeDecodeError) as error:
        raise UnreadableLog(str(error)) from error
    if not reader.done:
        raise UnreadableLog("bytes left over after the log")
    return list(_chained(game_id, kinds, times, data, anchors))


def _chained(
    game_id: str, kinds: list[str], times: list[str], data: list[str], anchors: dict[int, str]
) -> Iterator[RawEvent]:
    previous = GENESIS_HASH
    for index, (kind, at, text) in enumerate(zip(kinds, times, data, strict=True)):
        digest = anchors.get(index)
        if digest is None:
            try:
                digest = event_hash(game_id, index + 1, kind, orjson.loads(text), at, previous)
            except orjson.JSONDecodeError:
                digest = ""  # no hash follows from data that is not JSON: the chain breaks here
        yield RawEvent(index + 1, kind, text, at, digest)
        previous = digest


def _anchored(rows: Sequence[RawEvent], index: int) -> bool:
    return rows[index].type == ROUND_DEALT or index == len(rows) - 1


def _micros(at: str) -> int | None:
    try:
        moment = datetime.fromisoformat(at)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return (moment - _EPOCH) // _MICROSECOND


def _at_text(micros: int) -> str:
    moment = _EPOCH + micros * _MICROSECOND
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


def _moments(reader: _Reader, count: int) -> Iterator[str]:
    moment = 0
    for _ in range(count):
        moment += _unzigzag(reader.number())
        yield _at_text(moment)


def _zigzag(number: int) -> int:
    return number * 2 if number >= 0 else -number * 2 - 1


def _unzigzag(number: int) -> int:
    return number // 2 if number % 2 == 0 else -(number + 1) // 2


def _varint(number: int) -> bytes:
    out = bytearray()
    while number >= 0x80:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def _text(value: str) -> bytes:
    encoded = value.encode()
    return _varint(len(encoded)) + encoded


class _Reader:
    def __init__(self, body: bytes) -> None:
        self.body, self.at = body, 0

    @property
    def done(self) -> bool:
        return self.at == len(self.body)

    def byte(self) -> int:
        self.at += 1
        return self.body[self.at - 1]

    def number(self) -> int:
        number, shift = 0, 0
        while True:
            byte = self.byte()
            number |= (byte & 0x7F) << shift
            if byte < 0x80:
                return number
            shift += 7

    def text(self) -> str:
        length = self.number()
        if self.at + length > len(self.body):
            raise IndexError("a text runs past the end of the log")
        self.at += length
        return self.body[self.at - length : self.at].decode()
