"""The live adapter of PostgreSQL's notices: what a commit says happened to a game (its status,
scores and new log events, app/persistence/notifications.py) turned into the stream records a
watcher gets, by the same mapping a read of the log uses (records.py), so a notice and a read
can never disagree."""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from app.live.feed import Page, is_ended
from app.live.records import GameFacts, record_of


@dataclass(frozen=True, slots=True)
class Notice:
    """``<game id>:<version>``; with what happened after version ``after``, its records
    (``page``, read up to ``version``) so that no listener need read them from the log."""

    game_id: str
    version: int
    page: Page | None = None
    after: int | None = None


def parse_notice(payload: str) -> Notice | None:
    """The notice sent as ``payload``; None if it is not one."""
    parts = payload.split(":", 3)
    if len(parts) < 2 or not parts[0] or not all(part.isdigit() for part in parts[1:3]):
        return None
    game_id, version = parts[0], int(parts[1])
    if len(parts) == 2:
        return Notice(game_id, version)
    if len(parts) == 3:
        return None
    try:
        status, scores, events = orjson.loads(parts[3])
        facts = GameFacts(str(status), tuple(int(score) for score in scores))
        records = [
            record
            for seq, kind, data in events
            if (record := record_of(int(seq), str(kind), dict(data), facts))
        ]
    except (ValueError, TypeError, KeyError):
        return Notice(game_id, version)  # the version alone still says what is new
    page = Page(records, version, is_ended(str(status)))
    return Notice(game_id, version, page, int(parts[2]))
