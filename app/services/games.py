"""The use cases that open a game and let its callers in: create, join, and the access
check on the way of every poll. Each is load, decide, append, commit; a game that starts
deals, and its bots play their turns, in the same transaction. A match under way is played
in playing.py."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.engine.fairness import ALGORITHM
from app.observability import metrics
from app.services.access import Bearer, hash_token, new_token, same_hash, seat_of, seated
from app.services.creation import (
    Player,
    check_rated,
    checked_deck,
    checked_rules,
    new_game,
    seat_players,
    with_default_clock,
)
from app.services.errors import AlreadySeated, Backlogged, Forbidden, GameFull, PlayerRequired
from app.services.log import SEAT_JOINED
from app.services.model import WAITING, GameRecord, Seat
from app.services.ports import AbstractUnitOfWork, retrying
from app.services.progress import (
    DEFAULT_WAITING_SECONDS,
    Moves,
    add,
    load_settled,
    replies_deadline,
    restamp,
    save,
    start,
    utc_now,
)
from app.services.views import game_view


@dataclass(frozen=True, slots=True)
class Created:
    game_id: str
    status: str
    seats: list[dict[str, Any]]  # each seat, with the token of each human seated now
    rules: dict[str, Any]
    fairness: dict[str, Any]
    moves: Moves  # what bots played inside this request
    state: dict[str, Any]  # the creator's view
    bots_only: bool = False  # to be played in the background (app.background.bot_runner)
    invite: str | None = None  # a game with open seats: what a joiner needs, shown once


@dataclass(frozen=True, slots=True)
class Joined:
    seat: int
    token: str
    moves: Moves
    state: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Access:
    """Who a caller is in a game, and the game's version (a cheap ETag check)."""

    seat: int | None
    version: int


def check_access(
    uow: AbstractUnitOfWork,
    game_id: str,
    token: Bearer,
    seated_only: bool = False,
    now: datetime | None = None,
) -> Access:
    """Refuse an unknown game, then a bad token; one query on the way of every poll (and
    a write first when a deadline has passed: it is settled)."""
    with uow:
        game = load_settled(uow, game_id, now or utc_now())
        seat = seated(uow, game, token) if seated_only else seat_of(uow, game, token)
        return Access(seat, game.version)


def _refuse_past_backlog(uow: AbstractUnitOfWork, backlog: int) -> None:
    """The background runner plays at most half a core's worth of bots a machine: past this
    many active games of bots alone, a new one would only wait behind them."""
    with uow:
        playing = uow.games.count_bots_only_games(up_to=backlog)
    if playing >= backlog:
        raise Backlogged(
            f"the server is already playing {backlog} games of bots alone; try again later"
        )


def create_game(
    uow: AbstractUnitOfWork,
    players: Sequence[Player],
    rules: Mapping[str, Any] | None = None,
    deck: Sequence[str] | None = None,
    public: bool = False,
    waiting_seconds: int = DEFAULT_WAITING_SECONDS,
    now: datetime | None = None,
    bot_backlog: int | None = None,
    rated: bool = False,
) -> Created:
    """A new game; one with no open seat deals at once and its bots play their turns (but a
    game of bots alone, played in the background, refused past ``bot_backlog`` of them). One
    with open seats answers an invite that joining needs, unless it is ``public``; it waits
    ``waiting_seconds`` for its players before it ends cancelled. A ``rated`` one changes its
    players' ratings when it ends (ratings.py), and has the default turn clock unless its
    rules say otherwise."""
    now = now or utc_now()
    checked = checked_rules(with_default_clock(rules) if rated else rules, players)
    check_rated(rated, players, deck)
    seats, tokens = seat_players(players)
    game = new_game(checked, seats, checked_deck(deck, players), rated)
    game.public = public
    bots_only = all(seat.bot for seat in seats)
    if bots_only and bot_backlog:  # 0 or None: no limit
        _refuse_past_backlog(uow, bot_backlog)
    invite = None
    moves: Moves = []
    if any(seat.is_open for seat in seats):
        invite = new_token()
        game.invite_hash = hash_token(invite)
    else:
        start(game, moves, play_bots=not bots_only)
    restamp(game, now, waiting_seconds)
    retrying(lambda: add(uow, game), attempts=1)  # a clash of new ids is a Busy, not a 500
    metrics.game_created()
    metrics.moves_applied(len(moves))
    return created_answer(game, tokens, moves, invite)


def created_answer(
    game: GameRecord, tokens: dict[int, str], moves: Moves, invite: str | None
) -> Created:
    """A new game as its creation answers it: the tokens of ``tokens``' seats (shown once),
    and the first of those seats' view (a spectator's if none)."""
    return Created(
        game_id=game.id,
        status=game.status,
        seats=[{**s.public(), **_token_of(tokens, s.seat)} for s in game.seats],
        rules=game.state.rules.to_dict(),
        fairness={
            "algorithm": ALGORITHM,
            "commitment": game.commitment,
            "custom_deck": game.custom_deck is not None,
        },
        moves=moves,
        state=game_view(game, min(tokens) if tokens else None),
        bots_only=all(seat.bot for seat in game.seats),
        invite=invite,
    )


def _token_of(tokens: dict[int, str], seat: int) -> dict[str, str]:
    return {"token": tokens[seat]} if seat in tokens else {}


def join_game(
    uow: AbstractUnitOfWork,
    game_id: str,
    name: str,
    seed: str | None = None,
    invite: str | None = None,
    waiting_seconds: int = DEFAULT_WAITING_SECONDS,
    now: datetime | None = None,
    player_id: str | None = None,
) -> Joined:
    """Take the lowest open seat with the game's invite (a public game needs none), for
    ``player_id`` if a player's bearer asks (a rated game's seats are players' only); the
    game deals once the last one is taken, else waits ``waiting_seconds`` more. A seat held
    for the player (a rematch's) is taken without the invite; a rematch waits no longer than
    it was offered for."""
    moment = now or utc_now()
    replies_by = replies_deadline()  # for every retry together

    def attempt() -> Joined:
        with uow:
            game = load_settled(uow, game_id, moment, for_update=True)
            seat = _seat_for(game, invite, player_id)
            token = new_token()
            moves = take_seat(game, seat, name, seed, hash_token(token), player_id, replies_by)
            restamp(game, moment, None if game.rematch_of else waiting_seconds)
            save(uow, game)
            uow.commit()
            return Joined(seat.seat, token, moves, game_view(game, seat.seat))

    joined = retrying(attempt)
    metrics.moves_applied(len(joined.moves))
    return joined


def _seat_for(game: GameRecord, invite: str | None, player_id: str | None) -> Seat:
    """The seat a joiner takes: the one held for its player, else the lowest open one."""
    open_seats = [s for s in game.seats if s.is_open]
    if game.status != WAITING or not open_seats:  # public facts: no secret needed
        raise GameFull("every seat of this game is taken")
    held = next((s for s in open_seats if s.is_held and s.player_id == player_id), None)
    if held is not None:
        return held
    if game.rematch_of is not None:
        raise Forbidden("the seats of a rematch are held for the players of the game before")
    if not game.public and not _invited(game, invite):
        raise Forbidden("joining this game needs its invite")
    _check_joiner(game, player_id)
    return open_seats[0]


def take_seat(
    game: GameRecord,
    seat: Seat,
    name: str,
    seed: str | None,
    token_hash: str,
    player_id: str | None,
    replies_by: float | None = None,
) -> Moves:
    """Seat a joiner, logged; the game deals once its last open seat is taken (the moves its
    bots then make)."""
    game.seat_player(seat, name, seed, token_hash, player_id)
    joined: dict[str, Any] = {"seat": seat.seat, "name": name, "seed": seed}
    if player_id is not None:  # logs from before players had none: they still verify
        joined["player"] = player_id
    game.record(SEAT_JOINED, joined)
    moves: Moves = []
    if not any(s.is_open for s in game.seats):
        start(game, moves, replies_by=replies_by)
    return moves


def _check_joiner(game: GameRecord, player_id: str | None) -> None:
    if player_id is None:
        if game.rated:
            raise PlayerRequired("a seat of a rated game is taken with a player's bearer")
        return
    if any(seat.player_id == player_id for seat in game.seats):
        raise AlreadySeated("this player already holds a seat of this game")


def _invited(game: GameRecord, invite: str | None) -> bool:
    return invite is not None and same_hash(game.invite_hash, hash_token(invite))
