"""A rematch (API.md item 23): a seat of a finished game asks, and every seat is offered the
same new game, with the same rules and the same seats.

The first seat to ask makes the rematch: a new game (its own fair deal) in which it sits where
it sat, its bots are bots again, and each other human's seat is held for that human, to be
taken by its own call here or, for a player, by joining with its bearer. The seats not taken
within ``REMATCH_SECONDS`` end the offer: the game is cancelled by the deadline sweep, as any
waiting game is. The finished game's log records ``RematchOffered``, which its stream sends as
a ``rematch`` record.

A game has one rematch at most, however many seats ask at once and in whichever process: the
new game names the game it follows in a unique column (``rematch_of``), and the finished game's
log takes the offer as its next entry, so of two calls that race only one commits its game; the
other is tried again, finds that game and takes its seat there.
"""

from __future__ import annotations

from datetime import datetime

from app.observability import metrics
from app.services.access import Bearer, hash_token, load, new_token, seated
from app.services.creation import new_game
from app.services.errors import GameNotFinished
from app.services.games import Created, created_answer, take_seat
from app.services.log import REMATCH_OFFERED
from app.services.model import FINISHED, WAITING, GameRecord, Seat
from app.services.ports import AbstractUnitOfWork, retrying
from app.services.progress import (
    Moves,
    load_settled,
    replies_deadline,
    restamp,
    save,
    start,
    utc_now,
)

REMATCH_SECONDS = 5 * 60  # how long a rematch's seats are held for the players before


def rematch_game(
    uow: AbstractUnitOfWork, game_id: str, token: Bearer, now: datetime | None = None
) -> Created:
    """The rematch of a finished game, asked for by one of its seats (by the seat's token or
    its player's bearer): made by the first to ask, and the caller's seat taken in it by each
    later caller whose seat is still held. The caller's token is in the answer when its seat
    was taken by this call (shown once), and the view is then its seat's."""
    moment = now or utc_now()
    replies_by = replies_deadline()  # for every retry together
    asked = retrying(lambda: _ask(uow, game_id, token, moment, replies_by))
    if isinstance(asked, Created):
        metrics.game_created()
        answer = asked
    else:
        made = asked
        answer = retrying(lambda: _take_held(uow, made, moment, replies_by))
    metrics.moves_applied(len(answer.moves))
    return answer


def _ask(
    uow: AbstractUnitOfWork, game_id: str, token: Bearer, now: datetime, replies_by: float
) -> Created | tuple[str, Seat]:
    """The rematch made now by the caller, or the one made before: its id and the seat the
    caller held in the game over."""
    with uow:
        old = load(uow, game_id, for_update=True)
        seat = old.seats[seated(uow, old, token)]
        if old.status != FINISHED:
            message = f"game {game_id} is {old.status}: a rematch follows a finished game"
            raise GameNotFinished(message)
        made = uow.games.rematch_id(old.id)
        if made is not None:
            return made, seat
        game, tokens, moves = _rematch_of(old, seat, now, replies_by)
        uow.games.add(game)  # a rematch made meanwhile: ConcurrentUpdate, and this is tried again
        old.record(REMATCH_OFFERED, {"game_id": game.id, "seat": seat.seat})
        save(uow, old)
        uow.commit()
        return created_answer(game, tokens, moves, None)


def _rematch_of(
    old: GameRecord, caller: Seat, now: datetime, replies_by: float
) -> tuple[GameRecord, dict[int, str], Moves]:
    """The new game: the same rules and seats, the caller seated, the other humans' seats held
    for them; dealt at once if nobody else is to come (a game against bots)."""
    token = new_token()
    seats = [_seat_again(seat, caller, hash_token(token)) for seat in old.seats]
    game = new_game(old.state.rules, seats, None, rated=old.rated, rematch_of=old.id)
    moves: Moves = []
    if not any(seat.is_open for seat in seats):
        start(game, moves, replies_by=replies_by)
    restamp(game, now, REMATCH_SECONDS)
    return game, {caller.seat: token}, moves


def _seat_again(seat: Seat, caller: Seat, token_hash: str) -> Seat:
    if seat.bot is not None:
        return Seat(seat.seat, seat.name, bot=seat.bot, player_id=seat.player_id)
    if seat.seat == caller.seat:
        return Seat(seat.seat, seat.name, token_hash=token_hash, player_id=seat.player_id)
    return Seat(seat.seat, seat.name, player_id=seat.player_id)  # held: open, named for whom


def _take_held(
    uow: AbstractUnitOfWork, asked: tuple[str, Seat], now: datetime, replies_by: float
) -> Created:
    """The rematch made before: the caller's seat taken if it is still held for it (the game
    still waiting for its players), else the game as it is, no seat taken."""
    rematch_id, before = asked
    with uow:
        game = load_settled(uow, rematch_id, now, for_update=True)
        seat = game.seats[before.seat]
        if game.status != WAITING or not seat.is_open:
            return created_answer(game, {}, [], None)
        token = new_token()
        moves = take_seat(game, seat, before.name or "", None, hash_token(token),
                          before.player_id, replies_by)  # fmt: skip
        restamp(game, now)  # still waiting: its deadline stays the offer's
        save(uow, game)
        uow.commit()
        return created_answer(game, {seat.seat: token}, moves, None)
