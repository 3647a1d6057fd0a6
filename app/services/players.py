"""Players who last across games: made with a bearer token of their own, or on first sight of
the subject an integrator's signed token names; their profiles, their games and the
leaderboard. A player's record is model.py's ``PlayerRecord``, the port that keeps it ports.py's
``PlayerRepository``."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from app.engine.bots import BOT_NAMES
from app.services.access import Bearer, SignedPlayer, hash_token, new_token
from app.services.audit import decode_cursor, encode_cursor
from app.services.errors import NotFound, Unauthorized
from app.services.model import ACTIVE, FINISHED, PlayedGame, PlayerRecord, bot_level_of, listed_seat
from app.services.ports import AbstractUnitOfWork, retrying
from app.services.ratings import PROVISIONAL_GAMES, rating_of, result_of


@dataclass(frozen=True, slots=True)
class CreatedPlayer:
    player: PlayerRecord
    token: str  # shown once

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.player.id, "name": self.player.name, "token": self.token,
                "rating": rating_of(self.player)}  # fmt: skip


def create_player(uow: AbstractUnitOfWork, name: str) -> CreatedPlayer:
    token = new_token()
    player = PlayerRecord(secrets.token_hex(8), name)

    def attempt() -> CreatedPlayer:
        with uow:
            uow.players.add(player, hash_token(token), None)
            uow.commit()
        return CreatedPlayer(player, token)

    return retrying(attempt, attempts=1)  # a clash of new ids is a Busy, not a 500


def signed_in(uow: AbstractUnitOfWork, subject: str, name: str) -> SignedPlayer:
    """The player a verified signed token's subject names, made the first time it is seen
    (two first requests at once: one makes it, the other finds it on its retry)."""

    def attempt() -> SignedPlayer:
        with uow:
            found = uow.players.id_of_subject(subject)
            if found is None:
                found = secrets.token_hex(8)
                uow.players.add(PlayerRecord(found, name), None, subject)
                uow.commit()
            return SignedPlayer(found)

    return retrying(attempt)


def identify(uow: AbstractUnitOfWork, bearer: Bearer) -> PlayerRecord:
    """The player a bearer names (401 if it names none)."""
    with uow:
        if isinstance(bearer, SignedPlayer):
            player = uow.players.get(bearer.player_id)
        elif bearer:
            player = uow.players.of_token(hash_token(bearer))
        else:
            raise Unauthorized("this needs a player's token: Authorization: Bearer <token>")
    if player is None:
        raise Unauthorized("that token is not a player's")
    return player


def rename_player(uow: AbstractUnitOfWork, player: PlayerRecord, name: str) -> PlayerRecord:
    """The player (as ``identify`` found it) under a new name: the one its later seats take."""

    def attempt() -> PlayerRecord:
        with uow:
            uow.players.rename(player.id, name)
            uow.commit()
        player.name = name
        return player

    return retrying(attempt)


def profile(player: PlayerRecord) -> dict[str, Any]:
    stats = {"played": player.played, "won": player.won, "lost": player.lost,
             "drawn": player.drawn}  # fmt: skip
    return {"id": player.id, "name": player.name, "bot": player.bot,
            "rating": rating_of(player), "stats": stats}  # fmt: skip


def find_player(uow: AbstractUnitOfWork, player_id: str) -> PlayerRecord:
    """The player (404 if none); a bot level's, before its first game ends, as it starts."""
    with uow:
        player = uow.players.get(player_id)
    level = bot_level_of(player_id)
    if player is None and level in BOT_NAMES:
        player = PlayerRecord(player_id, BOT_NAMES[level], bot=level)
    if player is None:
        raise NotFound(f"no player {player_id!r}")
    return player


def player_games(
    uow: AbstractUnitOfWork, player_id: str, status: str | None, limit: int, cursor: str | None
) -> dict[str, Any]:
    """A page of the player's games, newest first, and the cursor of the next page."""
    before = decode_cursor(cursor) if cursor else None
    find_player(uow, player_id)
    with uow:
        found = uow.players.games(player_id, status, limit + 1, before)
    page = found[:limit]
    more = len(found) > limit
    return {
        "games": [_entry(played) for played in page],
        "next_cursor": encode_cursor(page[-1].created_at, page[-1].game_id) if more else None,
    }


def _entry(played: PlayedGame) -> dict[str, Any]:
    side = played.seat % 2
    change = next((c for c in played.ratings or [] if c["seat"] == played.seat), None)
    return {
        "id": played.game_id,
        "status": played.status,
        "seat": played.seat,
        "side": side,
        "result": result_of(played.winner, side) if played.status == FINISHED else None,
        "rated": played.rated,
        "rating_before": change["before"]["value"] if change else None,
        "rating_after": change["after"]["value"] if change else None,
        "players": [listed_seat(seat) for seat in played.seats],
        "scores": played.scores,
        "updated_at": played.updated_at.isoformat(),
        "your_turn": played.status == ACTIVE and played.turn == played.seat,
    }


def leaderboard(uow: AbstractUnitOfWork, limit: int) -> dict[str, Any]:
    """The best rated players; provisional ones are left out."""
    with uow:
        best = uow.players.best(limit, PROVISIONAL_GAMES)
    return {"players": [{"rank": rank, **profile(player)}
                        for rank, player in enumerate(best, start=1)]}  # fmt: skip
