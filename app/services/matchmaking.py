"""The pairing pass: seat the waiting seeks that can sit together, and expire the old ones
(API.md item 21; who sits with whom is pairing.py's).

A pass runs after every new seek and every second in the background of every server process,
so any number of them may run at once. Seeks of humans alone are seated in one transaction
under ``lock_pairing`` (one pass at a time: the others wait, then find those seeks gone); the
games it creates and the seeks it settles commit together or not at all. Each table with bots
is a transaction of its own, without the lock, since its bots may think before the human's
first turn. Whatever the lock, ``settle`` lets a seek stop waiting once: a second pass that
seated it too loses its whole transaction, its games with it.

A pass reads only what it can seat: the seeks of the kinds that have two or more waiting,
and the seeks due for bots, each by an index of the waiting seeks; expiry is one statement.
Seeks alone of their kinds, however many wait, are never read (docs/matchmaking.md measures
it), and a new seek's request runs a pass over its own kind alone.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial

from app.engine import Rules
from app.engine.bots import BOT_LEVELS, BOT_NAMES
from app.engine.bots.ratings import PLAYER_RATINGS
from app.observability import metrics
from app.services.access import hash_token, new_token
from app.services.creation import new_game
from app.services.errors import ServiceError
from app.services.model import MATCHED, WAITING, MatchedSeat, Seat, SeekRecord, bot_player_id
from app.services.pairing import Seeker, Sitter, Table, bot_tables, human_tables
from app.services.ports import AbstractUnitOfWork, retrying
from app.services.progress import Moves, replies_deadline, restamp, start

log = logging.getLogger("basra.matchmaking")
# Seeks one pass reads at most, the oldest first: of the kinds that have a partner, and then
# of those due for bots (each a transaction of its own).
PASS_LIMIT = 2000
BOT_PASS_LIMIT = 200
# Each bot level's player: (player id, rating), as GET /rules names them.
BotPlayers = Mapping[str, tuple[str, float]]
_SYSTEM_RANDOM = secrets.SystemRandom()


@dataclass(frozen=True, slots=True)
class Seated:
    """A game a pass created, and the seeks it seated (each now ``matched``)."""

    game_id: str
    seeks: tuple[SeekRecord, ...]
    with_bots: bool


@dataclass
class Pass:
    seated: list[Seated] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)
    waiting: int = 0  # the seeks a whole pass left waiting (before seating any with bots)

    @property
    def settled(self) -> list[str]:
        """Every seek this pass stopped waiting."""
        return [seek.id for game in self.seated for seek in game.seeks] + self.expired


def bot_players() -> BotPlayers:
    """Each bot level's player and its fixed rating on the players' scale (GET /rules)."""
    return {level: (bot_player_id(level), PLAYER_RATINGS[level]) for level in BOT_LEVELS}


def pair_seeks(
    uow: AbstractUnitOfWork,
    now: datetime,
    bots: Callable[[], BotPlayers],
    rng: random.Random | None = None,
    kind: str | None = None,
) -> Pass:
    """One pass (over ``kind`` alone if given: a new seek's own); a part that keeps losing
    races (or finds the database away) is left to the next pass, which starts again from what
    is committed. ``bots`` is asked only when a seek is due for bots."""
    draw = rng or _SYSTEM_RANDOM
    done = Pass()
    try:
        retrying(lambda: _seat_humans(uow, now, draw, done, kind))
        due = retrying(lambda: _due_for_bots(uow, now, bots, draw, done, kind))
    except ServiceError as error:
        log.warning("pairing pass stopped: %s", error.detail)
        return done
    for seek, table in due:
        try:
            seated = retrying(partial(_seat_with_bots, uow, table, seek, now), attempts=2)
        except ServiceError as error:
            log.warning("seating seek %s with bots failed: %s", seek.id, error.detail)
            continue
        if seated is not None:
            done.seated.append(seated)
    _count(done, now, kind is None)
    return done


def _seat_humans(
    uow: AbstractUnitOfWork, now: datetime, rng: random.Random, done: Pass, kind: str | None
) -> None:
    """Expire what is out of time (one statement), then seat the seeks that have a partner:
    only they are read, so seeks alone of their kinds, however many, cost this pass nothing."""
    done.seated, done.expired, done.waiting = [], [], 0
    with uow:
        uow.seeks.lock_pairing()
        done.expired = uow.seeks.expire(now)
        live = {seek.id: seek for seek in uow.seeks.pairable(PASS_LIMIT, kind)}
        for table in human_tables([seeker(seek, now) for seek in live.values()], rng):
            done.seated.append(_seated(uow, table, live, now))
        uow.seeks.match(_seats_of(done.seated), now)
        if kind is None:
            done.waiting = uow.seeks.count_waiting() - len(_seats_of(done.seated))
        uow.commit()


def _due_for_bots(
    uow: AbstractUnitOfWork,
    now: datetime,
    bots: Callable[[], BotPlayers],
    rng: random.Random,
    done: Pass,
    kind: str | None,
) -> list[tuple[SeekRecord, Table]]:
    """The waiting seeks whose ``bot_after`` has passed, each with its table (each is read
    again before it is seated: it may have been cancelled meanwhile)."""
    with uow:
        waiting = uow.seeks.due_for_bots(now, BOT_PASS_LIMIT, kind)
    if not waiting:
        return []
    by_id = {seek.id: seek for seek in waiting}
    tables = bot_tables([seeker(seek, now) for seek in waiting], bots(), rng)
    return [(by_id[table.seek_ids[0]], table) for table in tables]


def _seat_with_bots(
    uow: AbstractUnitOfWork, table: Table, seek: SeekRecord, now: datetime
) -> Seated | None:
    """The seek's table with bots, unless a pass seated it (or it was cancelled) meanwhile."""
    with uow:
        now_is = uow.seeks.get(seek.id)
        if now_is is None or now_is.status != WAITING:
            return None
        seated = _seated(uow, table, {seek.id: seek}, now)
        uow.seeks.match(_seats_of([seated]), now)
        uow.commit()
        return seated


def _seated(
    uow: AbstractUnitOfWork, table: Table, seeks: Mapping[str, SeekRecord], now: datetime
) -> Seated:
    """Create the table's game, dealt (its bots' first moves played); its seeks are settled
    by the caller, with every other table's of its transaction (``_seats_of``)."""
    first = seeks[table.seek_ids[0]]
    seats = [_seat(number, sitter, seeks) for number, sitter in enumerate(table.sitters)]
    game = new_game(Rules.from_dict(first.rules), seats, None, rated=first.rated)
    moves: Moves = []
    start(game, moves, replies_by=replies_deadline())
    restamp(game, now)
    uow.games.add(game)
    matched = []
    for number, sitter in enumerate(table.sitters):
        if sitter.seek_id is not None:
            seek = seeks[sitter.seek_id]
            seek.status, seek.game_id, seek.seat, seek.settled_at = MATCHED, game.id, number, now
            matched.append(seek)
    # The seat order was drawn at random: the log says who got which seat, and from which seek.
    order = ", ".join(f"{n}={s.player_id}" + (f" (seek {s.seek_id})" if s.seek_id else "")
                      for n, s in enumerate(table.sitters))  # fmt: skip
    log.info("seated game %s from seeks: %s", game.id, order)
    return Seated(game.id, tuple(matched), table.with_bots)


def _seats_of(games: list[Seated]) -> list[MatchedSeat]:
    """Each seek these games seat, with its game and seat: settled in one go."""
    return [MatchedSeat(seek.id, game.game_id, seek.seat) for game in games
            for seek in game.seeks if seek.seat is not None]  # fmt: skip


def _seat(number: int, sitter: Sitter, seeks: Mapping[str, SeekRecord]) -> Seat:
    """A bot level's seat, or a seeker's: taken, with a seat token nobody is ever shown (its
    player's bearer acts for it, API.md item 18)."""
    if sitter.bot is not None:
        return Seat(number, BOT_NAMES[sitter.bot], bot=sitter.bot, player_id=sitter.player_id)
    name = seeks[sitter.seek_id or ""].name
    return Seat(number, name, token_hash=hash_token(new_token()), player_id=sitter.player_id)


def seeker(seek: SeekRecord, now: datetime) -> Seeker:
    return Seeker(seek.id, seek.player_id, seek.rating, seek.waited(now), seek.kind,
                  seek.players, seek.bot_after)  # fmt: skip


def _count(done: Pass, now: datetime, whole: bool) -> None:
    """Metrics, once the pass's transactions have committed."""
    for game in done.seated:
        first = game.seeks[0]
        metrics.seeks_matched(first.players, first.rated, game.with_bots)
        metrics.game_created()
        for seek in game.seeks:
            metrics.seek_waited(seek.waited(now))
    if whole:  # a pass of one kind does not count the others
        with_bots = sum(len(game.seeks) for game in done.seated if game.with_bots)
        metrics.seeks_waiting(done.waiting - with_bots)
