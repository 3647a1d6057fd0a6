"""Read-only use cases: views, the move list, the event feed, replay, fairness, verify,
and the list of games."""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.engine import OVER
from app.engine.fairness import ALGORITHM
from app.services import audit_cache
from app.services.access import Bearer, load, seat_of
from app.services.errors import GameNotFinished, InvalidRequest
from app.services.log import (
    CARD_PLAYED,
    GAME_CREATED,
    SEAT_JOINED,
    SEED_REVEALED,
    EventRecord,
    RawEvent,
    move_of,
    replay_log,
)
from app.services.model import ACTIVE, CANCELLED, FINISHED, GameRecord
from app.services.ports import AbstractUnitOfWork
from app.services.progress import load_settled, utc_now
from app.services.verification import from_log, parsed, start_state, verify_log
from app.services.views import complete_view, game_view

EVENTS_PAGE = 200  # events per page of /events unless ?limit= says fewer (at most EVENTS_MAX)
EVENTS_MAX = 1000


def view(
    uow: AbstractUnitOfWork, game_id: str, token: Bearer, now: datetime | None = None
) -> dict[str, Any]:
    """The game as the caller (a seat's token, or none: a spectator) may see it; a
    deadline that has passed is settled first."""
    with uow:
        game = load_settled(uow, game_id, now or utc_now())
        return game_view(game, seat_of(uow, game, token))


def moves(uow: AbstractUnitOfWork, game_id: str) -> list[dict[str, Any]]:
    with uow:
        load(uow, game_id)
        return [move_of(record) for record in uow.games.events_of_type(game_id, CARD_PLAYED)]


def events(
    uow: AbstractUnitOfWork, game_id: str, token: Bearer, after: int = 0,
    limit: int = EVENTS_PAGE,
) -> dict[str, Any]:  # fmt: skip
    """A page of the log after ``after``: at most ``limit`` events, and ``next_after`` (the
    ``after`` of the next page) while more follow, else None. Dealt decks stay hidden until
    the game is over."""
    with uow:
        game = load(uow, game_id)
        seat_of(uow, game, token)
        found = uow.games.events(game_id, after, limit + 1)
    page = [record.to_dict(redact=not game.is_over) for record in found[:limit]]
    more = len(found) > limit
    return {"events": page, "next_after": page[-1]["seq"] if more else None}


def fairness(uow: AbstractUnitOfWork, game_id: str) -> dict[str, Any]:
    """The shuffle's inputs as the log states them (see verification.from_log), not the row."""
    with uow:
        game = load(uow, game_id)
        kinds = (GAME_CREATED, SEAT_JOINED, SEED_REVEALED)
        logged = from_log([e for kind in kinds for e in uow.games.events_of_type(game_id, kind)])
    return {
        "algorithm": ALGORITHM,
        "commitment": logged.commitment,
        "custom_deck": logged.custom_deck,
        "client_seed": logged.client_seed,
        "server_seed": logged.server_seed if game.is_over else None,
    }


def _stored_log(uow: AbstractUnitOfWork, game_id: str) -> tuple[GameRecord, list[RawEvent]]:
    with uow:
        game = load(uow, game_id)
        return game, uow.games.raw_events(game_id)


@dataclass(frozen=True, slots=True)
class ReplayStep:
    step: int
    moves: int  # in the whole game
    state: dict[str, Any]  # the complete state after ``step`` moves

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "moves": self.moves, "state": self.state}


def replay_step(uow: AbstractUnitOfWork, game_id: str, step: int) -> ReplayStep:
    """The complete state after the first ``step`` moves (0: right after the first deal).
    After the first call for a game, a call replays at most the round that holds the move."""
    game, raw = _stored_log(uow, game_id)
    if not game.is_over:
        raise GameNotFinished("replay opens once the game is over")
    total = sum(1 for row in raw if row.type == CARD_PLAYED)
    if not 0 <= step <= total:
        raise InvalidRequest(f"step must be from 0 to {total}", errors={"step": f"0..{total}"})
    checked = audit_cache.verified(game_id, start_state(game), raw)
    if checked is not None and checked.checkpoints:
        state, version = audit_cache.replay_from(game_id, checked, raw, step)
    else:  # a log that does not verify: replay it as it stands, from the start
        prefix = _before_move(parsed(raw), step + 1)
        state = replay_log(game.state.rules, game.players, prefix)
        version = prefix[-1].seq if prefix else 0
    status = FINISHED if state.phase == OVER else ACTIVE
    if game.status == CANCELLED:  # never dealt: the state is the empty table
        status = CANCELLED
    return ReplayStep(step, total, complete_view(game, state, status, version))


def _before_move(log: list[EventRecord], n: int) -> list[EventRecord]:
    """The log up to (not including) its ``n``-th move."""
    played = 0
    for index, record in enumerate(log):
        if record.type == CARD_PLAYED:
            played += 1
            if played == n:
                return log[:index]
    return log


def verify(uow: AbstractUnitOfWork, game_id: str) -> dict[str, Any]:
    game, raw = _stored_log(uow, game_id)
    return verify_log(game, raw)


def list_games(
    uow: AbstractUnitOfWork, status: str | None, limit: int, cursor: str | None
) -> dict[str, Any]:
    """A page of games, newest first, and the cursor of the next page (if any)."""
    before = decode_cursor(cursor) if cursor else None
    with uow:
        found = uow.games.page(status, limit + 1, before)
    page = found[:limit]
    more = len(found) > limit
    return {
        "games": [summary.to_dict() for summary in page],
        "next_cursor": encode_cursor(page[-1].created_at, page[-1].id) if more else None,
    }


_CURSOR = re.compile(r"[A-Za-z0-9_-]{1,200}")
_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")  # every id a game is given is of these


def encode_cursor(created: datetime, game_id: str) -> str:
    raw = json.dumps([created.isoformat(), game_id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """A cursor this server wrote (``encode_cursor``), read back; any other text, however close,
    is ``InvalidRequest``: a game id of another alphabet (a lone surrogate, a NUL) would reach
    the database otherwise."""
    try:
        if not _CURSOR.fullmatch(cursor):
            raise ValueError("not base64url")
        created, game_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not isinstance(created, str) or not isinstance(game_id, str):
            raise ValueError("not a time and a game id")
        when = datetime.fromisoformat(created)
        if not _GAME_ID.fullmatch(game_id):
            raise ValueError("not a time and a game id")
        if encode_cursor(when, game_id) != cursor:
            raise ValueError("not written so")
        return when, game_id
    except (ValueError, TypeError) as error:
        raise InvalidRequest(
            "cursor is not one this server gave", errors={"cursor": "invalid"}
        ) from error
