"""The append-only event log: each event's hash chains to the one before it, so any
change, deletion or reordering of a stored event shows up in ``/verify``."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from app.engine import (
    EVENT_TYPES_BY_NAME,
    CardPlayed,
    Event,
    GameState,
    Rules,
    apply,
    event_from_dict,
    event_to_dict,
)

GENESIS_HASH = "0" * 64
# Event types written by the service around the engine's own.
GAME_CREATED = "GameCreated"
SEAT_JOINED = "SeatJoined"
SEED_REVEALED = "SeedRevealed"
GAME_CANCELLED = "GameCancelled"  # a waiting game nobody joined in time
ROUND_DEALT = "RoundDealt"
CARD_PLAYED = "CardPlayed"
REMATCH_OFFERED = "RematchOffered"  # a game over: the game its seats are offered next
# Every type of entry the log can hold (openapi.yaml's EventType): a new one goes here too.
EVENT_TYPES = (GAME_CREATED, SEAT_JOINED, *EVENT_TYPES_BY_NAME, SEED_REVEALED, GAME_CANCELLED,
               REMATCH_OFFERED)  # fmt: skip


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


# The canonical text that is hashed: what the standard library's
# ``json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` writes, as
# UTF-8. orjson writes the same bytes for the values a log holds (text, integers, booleans,
# null, lists, objects with text keys) several times faster, every move, for each new entry;
# tests/services/test_log_hash.py holds it to the standard library's text.
_CANONICAL = orjson.OPT_SORT_KEYS


def canonical_json(body: dict[str, Any]) -> bytes:
    return orjson.dumps(body, option=_CANONICAL)


def event_hash(game_id: str, seq: int, kind: str, data: dict[str, Any], at: str, prev: str) -> str:
    body = {"game": game_id, "seq": seq, "type": kind, "data": data, "at": at, "prev": prev}
    return hashlib.sha256(canonical_json(body)).hexdigest()


@dataclass(frozen=True, slots=True)
class RawEvent:
    """A log entry with its data as the JSON text stored, undecoded: the audit's checkpoints
    (audit_cache) compare the stored bytes themselves."""

    seq: int
    type: str
    data: str
    at: str
    hash: str


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One entry of a game's log, exactly as stored and hashed: the *event* of API.md."""

    seq: int
    type: str
    data: dict[str, Any]
    at: str  # ISO 8601 UTC, exactly as hashed
    hash: str

    @classmethod
    def chained(
        cls, game_id: str, seq: int, kind: str, data: dict[str, Any], prev: str
    ) -> EventRecord:
        at = now_text()
        return cls(seq, kind, data, at, event_hash(game_id, seq, kind, data, at, prev))

    def to_dict(self, redact: bool = False) -> dict[str, Any]:
        """The event as ``/events`` shows it; ``redact`` hides what the game still hides."""
        data = public_data(self.type, self.data) if redact else self.data
        return {"seq": self.seq, "type": self.type, "data": data, "at": self.at, "hash": self.hash}

    @property
    def is_engine_event(self) -> bool:
        return self.type in EVENT_TYPES_BY_NAME

    def engine_event(self) -> Event:
        return event_from_dict(self.type, self.data)


def engine_record_data(event: Event) -> tuple[str, dict[str, Any]]:
    """An engine event as a log entry's type and data."""
    return type(event).__name__, event_to_dict(event)


def move_of(record: EventRecord) -> dict[str, Any]:
    """A ``CardPlayed`` entry as API.md's *move*: the engine's own dict of the event."""
    return CardPlayed.from_dict(record.data).to_dict()


def public_data(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """An event's data as anyone may see it while the game is on: no dealt deck."""
    if kind == ROUND_DEALT:
        return {key: value for key, value in data.items() if key != "deck"}
    return data


def replay_log(rules: Rules, players: int, log: Sequence[EventRecord]) -> GameState:
    """The state the engine's events of ``log`` fold into: the one replay loop."""
    state = GameState.new(rules, players)
    for record in log:
        if record.is_engine_event:
            apply(state, record.engine_event())
    return state
