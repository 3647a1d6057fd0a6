"""Deadlines, so that no game hangs forever (API.md items 13 and 15).

A game's ``deadline`` is when the server acts if nobody does first: an active game's turn
clock (the seat to move is played for), a waiting game's wait (it ends cancelled). The
sweeper calls ``sweep`` every second or so in every server process; every use case that
changes a game first ``settle``s a deadline already passed, so a request never acts on a
turn that is over, whichever comes first. The rules themselves (which card is played, the
timeouts in a row, the bot taking the seat) are the engine's: here only the clock is read.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from app.engine import TimeOut, turn_deadline
from app.observability import metrics
from app.services.access import load
from app.services.errors import ConcurrentUpdate, ServiceError
from app.services.log import GAME_CANCELLED
from app.services.model import ACTIVE, CANCELLED, WAITING, GameRecord
from app.services.ratings import settle_end
from app.services.turns import Moves, advance, bot_of, execute, reveal_seed
from app.services.unit_of_work import AbstractUnitOfWork, retrying

log = logging.getLogger("basra.deadlines")

DEFAULT_WAITING_SECONDS = 24 * 60 * 60  # how long a waiting game waits for its players
SWEEP_BATCH = 100  # games settled by one sweep at most; the next sweep takes the rest


def utc_now() -> datetime:
    return datetime.now(UTC)


def is_due(game: GameRecord, now: datetime) -> bool:
    return game.deadline is not None and game.deadline <= now


def restamp(game: GameRecord, now: datetime, waiting_seconds: int | None = None) -> None:
    """Set the next deadline after a change made at ``now``: a human's turn under a clock
    gets ``turn_seconds`` from now; a waiting game ``waiting_seconds`` (when given: a
    join or the creation), anything else none."""
    if game.status == WAITING:
        if waiting_seconds is not None:
            game.deadline = now + timedelta(seconds=waiting_seconds)
        return
    if game.status != ACTIVE:
        game.deadline = None
        return
    bots = {seat.seat for seat in game.seats if bot_of(game, seat.seat) is not None}
    game.deadline = turn_deadline(game.state, now, bots)


def settle(game: GameRecord, now: datetime) -> Moves | None:
    """Act on a deadline that has passed (None: none had); the moves this made, the timed
    out one first. The game is changed in memory only; the caller saves it."""
    deadline = game.deadline
    if deadline is None or deadline > now:
        return None
    moves: Moves = []
    if game.status == WAITING:
        cancel(game, now)
    elif game.status == ACTIVE and game.state.turn is not None:
        bots = frozenset(seat.seat for seat in game.seats if seat.bot is not None)
        execute(game, TimeOut(game.state.turn, deadline, now, bots), moves)
        # Bots reply up to the next human's turn, and the next round is dealt. Once no human
        # is left to play (the bot took the last human seat) the match has ended, forfeited,
        # in the TimeOut: nothing here plays a match of bots alone to its end.
        advance(game, moves)
        if game.status != ACTIVE and game.state.resigned is not None:
            log.info("game %s forfeited by side %s", game.id, game.state.resigned)
    restamp(game, now)
    return moves


def _count(moves: Moves) -> None:
    """Metrics, once the transaction that made ``moves`` has committed."""
    if moves:
        metrics.turn_timed_out()
        metrics.moves_applied(len(moves))


def cancel(game: GameRecord, now: datetime) -> None:
    """Nobody joined in time: the game ends with no winner and shows its seed."""
    created = game.created_at
    if created.tzinfo is None:  # SQLite hands stored UTC times back without their zone
        created = created.replace(tzinfo=UTC)
    waited = int((now - created).total_seconds())
    game.status = CANCELLED
    game.winner = None
    open_seats = [seat.seat for seat in game.seats if seat.is_open]
    game.record(GAME_CANCELLED, {"reason": "nobody joined in time", "open_seats": open_seats,
                                 "waited_seconds": waited})  # fmt: skip
    reveal_seed(game)


def load_settled(
    uow: AbstractUnitOfWork,
    game_id: str,
    now: datetime,
    for_update: bool = False,
    idempotency_key: str | None = None,
) -> GameRecord:
    """``load``, after settling a deadline that has passed in a transaction of its own:
    the timeout happened whatever the request that noticed it goes on to do."""
    game = load(uow, game_id, for_update=for_update, idempotency_key=idempotency_key)
    if not is_due(game, now):
        return game
    if not for_update:
        uow.rollback()
        game = load(uow, game_id, for_update=True)
    moves = settle(game, now)
    if moves is not None:
        try:
            _save(uow, game, now)
            uow.commit()
            _count(moves)
        except ConcurrentUpdate:  # a sweeper or another request settled it first
            uow.rollback()
    return load(uow, game_id, for_update=for_update, idempotency_key=idempotency_key)


def sweep(uow: AbstractUnitOfWork, now: datetime, limit: int = SWEEP_BATCH) -> int:
    """Settle every game whose deadline is ``now`` or earlier, each in a transaction of its
    own; returns how many. Safe to run in any number of processes at once: each due game is
    taken under a lock (PostgreSQL: ``FOR UPDATE SKIP LOCKED``), and the version-checked
    save lets only one of two writers through (SQLite too)."""
    failed: set[str] = set()
    settled = 0
    for _ in range(limit):
        try:
            game_id = retrying(lambda: _settle_next(uow, now, failed))
        except ServiceError as error:  # busy or unavailable: the next sweep tries again
            log.warning("sweep stopped: %s", error.detail)
            break
        if game_id is None:
            break
        if game_id not in failed:
            settled += 1
    return settled


def _settle_next(uow: AbstractUnitOfWork, now: datetime, failed: set[str]) -> str | None:
    with uow:
        game = uow.games.take_due(now, failed)
        if game is None:
            return None
        try:
            moves = settle(game, now)
        except Exception:  # a bug in one game must not stop the clocks of all the others
            log.exception("could not settle the deadline of game %s", game.id)
            failed.add(game.id)
            return game.id
        _save(uow, game, now)
        uow.commit()
        _count(moves or [])
        return game.id


def _save(uow: AbstractUnitOfWork, game: GameRecord, now: datetime) -> None:
    game.updated_at = now
    settle_end(uow, game)  # a forfeit ends a match too: its ratings change in this save
    uow.games.save(game)
