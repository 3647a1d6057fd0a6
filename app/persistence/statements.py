"""What the games repository of each database reads and writes alike: the columns of a move's
statements, the text they share, and a game's state as it is stored, its JSON text included.

Each database sends a move's statements as its driver takes them (postgres.py, sqlite.py); the
columns and the text they agree on are written here once, so that a new column is added in one
place and the two cannot drift."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

import orjson

from app.services.model import GameRecord, rounds_text
from app.services.ready_json import ready_json_default

# The columns of a game's row that the record holds as they are.
RECORD_COLUMNS = ("id", "status", "version", "server_seed", "commitment", "client_seed",
                  "custom_deck", "winner", "last_hash", "created_at", "updated_at",
                  "deadline", "invite_hash", "public", "rated", "ratings",
                  "rematch_of")  # fmt: skip
# What a move, a join or a deal can change in a game's row.
CHANGING_COLUMNS = ("status", "version", "snapshot", "rounds", "score_0", "score_1",
                    "client_seed", "winner", "last_hash", "updated_at", "deadline",
                    "ratings")  # fmt: skip
CHANGING_RECORD_COLUMNS = tuple(name for name in CHANGING_COLUMNS if name in RECORD_COLUMNS)
# What a move's load reads of the game's row; its seats come with it.
LOADED_COLUMNS = (*RECORD_COLUMNS, "snapshot", "rounds")
SEAT_COLUMNS = ("seat", "name", "bot", "seed", "token_hash", "player_id")
EVENT_COLUMNS = ("game_id", "seq", "type", "data", "at", "hash")
RESULT_COLUMNS = ("game_id", "seat", "key", "request_hash", "answer", "created_at")
# Written only when given (a save passes None for rounds no round was added to).
_KEPT_WHEN_NONE = frozenset({"rounds"})

Placeholder = Callable[[str], str]  # a parameter's name -> its place in the driver's text


def json_bytes(value: Any) -> bytes:
    """How snapshots and log entries become JSON: orjson, several times faster than the
    standard library on every move's snapshot (docs/performance.md), with the same documents."""
    # Keys that are not strings become strings, as the standard library's json.dumps does.
    # A view's stored rounds (a ReadyJson) are written as the JSON text they are.
    return orjson.dumps(value, default=ready_json_default, option=orjson.OPT_NON_STR_KEYS)


def json_text(value: Any) -> str:
    return json_bytes(value).decode()


def assignment(name: str, parameter: str) -> str:
    """``SET`` text of a changing column: the parameter, or for a column kept when None,
    the stored value then."""
    if name in _KEPT_WHEN_NONE:
        return f"{name} = COALESCE({parameter}, {name})"
    return f"{name} = {parameter}"


def insert_text(table: str, columns: Sequence[str], placeholder: Placeholder) -> str:
    """``INSERT`` of one row's ``columns``, each value in the driver's ``placeholder``."""
    values = ", ".join(placeholder(name) for name in columns)
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({values})"


def insert_result(placeholder: Placeholder) -> str:
    """``INSERT`` of the answer kept for an Idempotency-Key's retries."""
    return insert_text("idempotent_responses", RESULT_COLUMNS, placeholder)


def game_row(game: GameRecord) -> dict[str, Any]:
    """A new game's row."""
    row = {name: getattr(game, name) for name in RECORD_COLUMNS}
    row |= {"players": game.players, "rules": game.state.rules.to_dict()}
    return row | stored_state(game, adding=True)


def seat_rows(game: GameRecord) -> list[dict[str, Any]]:
    """A new game's seats' rows, each with the game's creation time: a player's games are
    listed in that order (ix_seats_player)."""
    return [{"game_id": game.id, **asdict(seat), "created_at": game.created_at}
            for seat in game.seats]  # fmt: skip


def stored_state(game: GameRecord, adding: bool = False) -> dict[str, Any]:
    """The engine state as stored: the snapshot, the rounds apart from it (None when they are
    the ones loaded: a save keeps them as stored), and the scores on their own."""
    state = game.state
    score_0, score_1 = state.scores
    unchanged = state.rounds.encoded is not None and not adding
    snapshot = state.to_dict(with_rounds=False)
    rounds = None if unchanged else rounds_text(state.rounds)
    game.saving(snapshot, rounds)
    return {"snapshot": snapshot, "rounds": rounds, "score_0": score_0, "score_1": score_1}


def now() -> datetime:
    return datetime.now(UTC)


def utc(moment: datetime | None) -> datetime | None:
    """SQLite hands back stored UTC times without their zone."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def storable(text: str) -> bool:
    """No stored id holds NUL, and PostgreSQL refuses to even compare a text that does."""
    return "\x00" not in text
