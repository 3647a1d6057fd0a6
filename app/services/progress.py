"""A game's progress: a command through the engine into the log, then every deal that is
due and every bot whose turn it is, inside the same transaction; the deadlines that act
when nobody does (API.md items 13 and 15); and the one save of a changed game.

A game's ``deadline`` is when the server acts if nobody does first: an active game's turn
clock (the seat to move is played for), a waiting game's wait (it ends cancelled). The
sweeper calls ``sweep`` every second or so in every server process; every use case that
changes a game first ``settle``s a deadline already passed, so a request never acts on a
turn that is over, whichever comes first. The rules themselves (which card is played, the
timeouts in a row, the bot taking the seat) are the engine's: here only the clock is read.
"""

from __future__ import annotations

import hmac
import logging
import random
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from app.engine import (
    DEALING,
    OVER,
    PLAYING,
    TAKEOVER_BOT,
    Card,
    CardPlayed,
    Deal,
    MatchEnded,
    Play,
    Resign,
    TimeOut,
    apply,
    decide,
    observe,
    parse_cards,
    turn_deadline,
)
from app.engine.bots import choose_card
from app.engine.fairness import ALGORITHM, client_seed, shuffled_deck
from app.observability import metrics
from app.services.access import load
from app.services.errors import ConcurrentUpdate, ServiceError
from app.services.log import GAME_CANCELLED, SEED_REVEALED
from app.services.model import ACTIVE, CANCELLED, FINISHED, WAITING, GameRecord
from app.services.ports import AbstractUnitOfWork, retrying
from app.services.ratings import settle_end

Moves = list[dict[str, Any]]  # API.md's *moves*, in the order they were applied
# The longest an expert bot searches for one move, and all the bots' replies to one request
# together. The search has a fixed size (the same card on any machine at any load); these are
# only a last guard, logged when they cut a search short. Idle, a decision takes 0.03 s.
BOT_DECISION_SECONDS = 1.0
BOT_REPLIES_SECONDS = 1.5
# Levels whose thinking time could say something of their hand: padded at a human's table.
PADDED_LEVELS = frozenset({"expert"})


@dataclass(slots=True)
class Thinking:
    """The least time a padded bot's decision takes while a human sits at the table, so that
    how long it thought tells nobody what it holds (``BOT_THINKING_SECONDS``, set by
    ``create_app``; none by default, so tools and games of bots alone are not slowed)."""

    floor: float = 0.0


THINKING = Thinking()


def replies_deadline() -> float:
    """When the bots' replies to a request must be decided (for every retry of it together)."""
    return time.monotonic() + BOT_REPLIES_SECONDS


def start(
    game: GameRecord, moves: Moves, play_bots: bool = True, replies_by: float | None = None
) -> None:
    """Every seat is filled: fix the client seed, deal round 1, let bots move (unless
    ``play_bots`` is off: a game of bots alone is played in the background by
    app.background.bot_runner)."""
    game.client_seed = client_seed([None if s.bot else s.seed for s in game.seats])
    game.status = ACTIVE
    if play_bots:
        advance(game, moves, replies_by=replies_by)
    else:
        execute(game, Deal(*_deck_for(game, 1)), moves)


def advance(
    game: GameRecord, moves: Moves, deadline: float | None = None, replies_by: float | None = None
) -> None:
    """Deal every round that is due and play every bot whose turn it is (until ``deadline``,
    a ``time.monotonic()`` value, if one is given: the rest is played later). Expert bots
    search until ``replies_by`` at the latest (BOT_REPLIES_SECONDS from now if not given)."""
    state = game.state
    replies_by = replies_deadline() if replies_by is None else replies_by
    while deadline is None or time.monotonic() < deadline:
        if state.phase == DEALING:
            execute(game, Deal(*_deck_for(game, state.round + 1)), moves)
            continue
        bot = bot_of(game, state.turn) if state.turn is not None else None
        if state.phase != PLAYING or state.turn is None or bot is None:
            return
        started = time.perf_counter()
        decide_by = min(time.monotonic() + BOT_DECISION_SECONDS, replies_by)
        card = choose_card(bot, observe(state, state.turn), _bot_random(game), decide_by)
        metrics.bot_decided(bot, time.perf_counter() - started)
        if bot in PADDED_LEVELS and THINKING.floor > 0 and has_human(game):
            time.sleep(max(0.0, started + THINKING.floor - time.perf_counter()))
        execute(game, Play(state.turn, card), moves)


def has_human(game: GameRecord) -> bool:
    return any(seat.bot is None for seat in game.seats)


def bot_of(game: GameRecord, seat: int) -> str | None:
    """The bot that plays ``seat``: its own, or the one that took it after its timeouts."""
    own = game.seats[seat].bot
    if own is None and seat in game.state.taken_by_bot:
        return TAKEOVER_BOT
    return own


def execute(game: GameRecord, command: Deal | Play | TimeOut | Resign, moves: Moves) -> None:
    """Decide, apply and log ``command``'s events; the engine refuses bad ones."""
    for event in decide(game.state, command):
        apply(game.state, event)
        game.record_engine(event)
        if isinstance(event, CardPlayed):
            moves.append(event.to_dict())
        elif isinstance(event, MatchEnded):
            _finish(game, event.winner)
    if game.state.phase == OVER and game.status != FINISHED:
        raise RuntimeError(f"game {game.id} ended in the engine but not in its record")


def _finish(game: GameRecord, winner: int | None) -> None:
    """The match is over: record the winner and reveal the seed that made the decks."""
    game.status = FINISHED
    game.winner = winner
    reveal_seed(game)


def reveal_seed(game: GameRecord) -> None:
    game.record(
        SEED_REVEALED,
        {"algorithm": ALGORITHM, "server_seed": game.server_seed, "client_seed": game.client_seed},
    )


def _deck_for(game: GameRecord, round_number: int) -> tuple[tuple[Card, ...], bool]:
    if round_number == 1 and game.custom_deck:
        return parse_cards(game.custom_deck), True
    seed = bytes.fromhex(game.server_seed)
    return shuffled_deck(seed, game.client_seed or "", round_number), False


def _bot_random(game: GameRecord) -> random.Random:
    """Bots' randomness: secret while the game is on, reproducible from the seed after."""
    seed = bytes.fromhex(game.server_seed)
    digest = hmac.digest(seed, f"bot|{game.state.moves}".encode(), "sha256")  # one call, in C
    return random.Random(int.from_bytes(digest[:8], "big"))


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
            save(uow, game, now)
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
        save(uow, game, now)
        uow.commit()
        _count(moves or [])
        return game.id


def add(uow: AbstractUnitOfWork, game: GameRecord) -> None:
    """A new game, in a transaction of its own."""
    with uow:
        uow.games.add(game)
        uow.commit()


def save(uow: AbstractUnitOfWork, game: GameRecord, now: datetime | None = None) -> None:
    """Every save of a changed game, by a use case, a deadline or the background play of
    bots: stamped, with its end settled."""
    game.updated_at = utc_now() if now is None else now
    settle_end(uow, game)  # the save that ends a match (a forfeit too) changes its ratings with it
    uow.games.save(game)
