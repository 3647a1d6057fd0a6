"""Who the caller is: a seat's bearer token, a player's (its own token, or one an integrator
signed, verified by the API), or nobody (a spectator). Seat and player tokens are shown once,
stored only as a SHA-256 hash, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from app.services.errors import Forbidden, NotFound, Unauthorized
from app.services.model import GameRecord
from app.services.ports import AbstractUnitOfWork


@dataclass(frozen=True, slots=True)
class SignedPlayer:
    """A player named by a signed token the API has verified (app/api/bearers.py)."""

    player_id: str


# A request's bearer: a token as sent (a seat's or a player's), a verified signed player, or
# None (no Authorization header: a spectator).
Bearer = str | SignedPlayer | None


def load(
    uow: AbstractUnitOfWork,
    game_id: str,
    for_update: bool = False,
    idempotency_key: str | None = None,
) -> GameRecord:
    game = uow.games.get(game_id, for_update=for_update, idempotency_key=idempotency_key)
    if game is None:
        raise NotFound(f"no game {game_id!r}")
    return game


def seat_of(uow: AbstractUnitOfWork, game: GameRecord, token: Bearer) -> int | None:
    """The seat a bearer acts as: a seat's token, or a player's for the seat it holds; None
    for a spectator (no token at all)."""
    if token is None:
        return None
    if isinstance(token, SignedPlayer):
        return _held_by(game, token.player_id)
    digest = hash_token(token)
    for seat in game.seats:
        if same_hash(seat.token_hash, digest):
            return seat.seat
    player_id = uow.players.id_of_token(digest)
    if player_id is not None:
        return _held_by(game, player_id)
    if uow.games.game_of_token(digest) is not None:
        raise Forbidden("that token belongs to another game")
    raise Unauthorized("unknown token")


def _held_by(game: GameRecord, player_id: str) -> int | None:
    """The seat the player holds; None (a spectator) while its seat is only held for it, not
    taken yet (a rematch's)."""
    for seat in game.seats:
        if seat.player_id == player_id and seat.bot is None:
            return None if seat.is_held else seat.seat
    raise Forbidden("this player holds no seat of this game")


def seated(uow: AbstractUnitOfWork, game: GameRecord, token: Bearer) -> int:
    """The seat a bearer acts as, where only a seat may act."""
    seat = seat_of(uow, game, token)
    if seat is None:
        raise Unauthorized("this needs a seat's token: Authorization: Bearer <token>")
    return seat


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def same_hash(a: str | None, b: str) -> bool:
    return a is not None and hmac.compare_digest(a, b)
