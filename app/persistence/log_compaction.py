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
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

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

from app.persistence.compacted_logs import UnreadableLog, compacted, expanded
from app.persistence.models import COMPACTED_LOGS, EVENTS, GAMES, UNSWEPT
from app.services.log import RawEvent

log = logging.getLogger("basra.persistence")

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
