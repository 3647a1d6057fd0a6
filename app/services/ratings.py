"""A game's end, as its players keep it: each player's result counted and, in a rated game,
every player's rating changed, teams rated as teams (openskill's Plackett-Luce model; why it,
and what the numbers mean: docs/ratings.md).

``settle_end`` runs inside the transaction that saves the game's last event, before the save.
The save checks the version the game was loaded at, so of two requests racing to end one game
only one commits, its ratings with it; and each rating is written only if the player's count
of rated games is still the one it was computed from, so two games ending at once for one
player cannot overwrite each other (the loser's transaction is tried again)."""

from __future__ import annotations

from typing import Any

from openskill.models import PlackettLuce

from app.engine.bots import BOT_NAMES
from app.services.model import FINISHED, GameRecord
from app.services.player_store import Outcome, PlayerRecord, bot_level_of
from app.services.unit_of_work import AbstractUnitOfWork

MODEL = PlackettLuce()
PROVISIONAL_GAMES = 5  # a rating is provisional until this many rated games


def is_provisional(player: PlayerRecord) -> bool:
    return player.rated_games < PROVISIONAL_GAMES


def rating_point(mu: float, sigma: float) -> dict[str, float]:
    """A rating as every answer shows it (docs/ratings.md)."""
    return {"value": round(mu, 3), "deviation": round(sigma, 3)}


def rating_of(player: PlayerRecord) -> dict[str, Any]:
    return {**rating_point(player.mu, player.sigma), "provisional": is_provisional(player)}


def result_of(winner: int | None, side: int) -> str:
    if winner is None:
        return "drawn"
    return "won" if winner == side else "lost"


def settle_end(uow: AbstractUnitOfWork, game: GameRecord) -> None:
    """If this save ends the match: count each player's result, and rate a rated game."""
    if game.status != FINISHED or game.loaded_status == FINISHED:
        return
    sides: dict[str, set[int]] = {}
    for seat in game.seats:
        if seat.player_id is not None:
            sides.setdefault(seat.player_id, set()).add(seat.seat % 2)
    # A bot level on both sides (greedy against greedy) neither wins nor loses.
    one_side = {player: side.pop() for player, side in sides.items() if len(side) == 1}
    # Locked in one order (by id) by every game's end, so that two cannot wait for each other.
    players = {pid: player for pid in sorted(one_side) if (player := _player(uow, pid))}
    ratings = _rated(players, one_side, game.winner) if game.rated else {}
    for pid, player in players.items():
        rating = ratings.get(pid)
        result = result_of(game.winner, one_side[pid])
        uow.players.record(Outcome(pid, result, rating, player.rated_games))
    if ratings:
        held = [(seat.seat, seat.player_id) for seat in game.seats if seat.player_id in ratings]
        game.ratings = [_change(seat, pid, players[pid], ratings[pid]) for seat, pid in held]


def _player(uow: AbstractUnitOfWork, player_id: str) -> PlayerRecord | None:
    """The player, held until commit (its update checks it was not rated meanwhile all the
    same); a bot level's is made on its first game's end."""
    player = uow.players.get(player_id, for_update=True)
    level = bot_level_of(player_id)
    if player is None and level in BOT_NAMES:
        player = PlayerRecord(player_id, BOT_NAMES[level], bot=level)
        uow.players.add(player, None, None)
    return player


def _rated(
    players: dict[str, PlayerRecord], sides: dict[str, int], winner: int | None
) -> dict[str, tuple[float, float]]:
    """Each player's (mu, sigma) after the match: side 0 against side 1."""
    teams: list[list[str]] = [[pid for pid in players if sides[pid] == side] for side in (0, 1)]
    if not all(teams):
        return {}
    ranks = [1.0, 1.0] if winner is None else [1.0 if side == winner else 2.0 for side in (0, 1)]
    rating = {pid: MODEL.rating(player.mu, player.sigma, pid) for pid, player in players.items()}
    rated = MODEL.rate([[rating[pid] for pid in team] for team in teams], ranks=ranks)
    return {str(r.name): (r.mu, r.sigma) for team in rated for r in team}


def _change(
    seat: int, player_id: str, before: PlayerRecord, after: tuple[float, float]
) -> dict[str, Any]:
    return {"seat": seat, "player": player_id, "before": rating_point(before.mu, before.sigma),
            "after": rating_point(*after)}  # fmt: skip
