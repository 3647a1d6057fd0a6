"""The append-only event log: each event's hash chains to the one before it, so any
change, deletion or reordering of a stored event shows up in ``/verify``."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.engine import EVENT_TYPES_BY_NAME, Event, event_to_dict
from app.persistence import EventRow

GENESIS_HASH = "0" * 64
# Event types written by the service around the engine's own.
GAME_CREATED = "GameCreated"
SEAT_JOINED = "SeatJoined"
SEED_REVEALED = "SeedRevealed"
ROUND_DEALT = "RoundDealt"
CARD_PLAYED = "CardPlayed"
# Every type of entry the log can hold (openapi.yaml's EventType): a new one goes here too.
EVENT_TYPES = (GAME_CREATED, SEAT_JOINED, *EVENT_TYPES_BY_NAME, SEED_REVEALED)


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def event_hash(game_id: str, seq: int, kind: str, data: dict[str, Any], at: str, prev: str) -> str:
    body = {"game": game_id, "seq": seq, "type": kind, "data": data, "at": at, "prev": prev}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass
class LogWriter:
    """Appends events after ``seq`` (the game's version) with a chained hash."""

    game_id: str
    seq: int
    last_hash: str

    def __post_init__(self) -> None:
        self.rows: list[dict[str, Any]] = []  # the new rows of the events table

    def append(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        self.seq += 1
        at = now_text()
        digest = event_hash(self.game_id, self.seq, kind, data, at, self.last_hash)
        row = {"game_id": self.game_id, "seq": self.seq, "type": kind, "data": data, "at": at,
               "hash": digest}  # fmt: skip
        self.last_hash = digest
        self.rows.append(row)
        return row

    def append_engine(self, event: Event) -> dict[str, Any]:
        return self.append(type(event).__name__, event_to_dict(event))


def public_data(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """An event's data as anyone may see it while the game is on: no dealt deck."""
    if kind == ROUND_DEALT:
        return {key: value for key, value in data.items() if key != "deck"}
    return data


def event_json(row: EventRow, redact: bool) -> dict[str, Any]:
    data = public_data(row.type, row.data) if redact else row.data
    return {"seq": row.seq, "type": row.type, "data": data, "at": row.at, "hash": row.hash}
