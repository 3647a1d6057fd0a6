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
from app.engine.bots.ratings import PLAYER_RATINGS
from app.engine.state import HAND_SIZE, side_of
from app.services.model import FINISHED, GameRecord, Outcome, PlayerRecord, bot_level_of
from app.services.ports import AbstractUnitOfWork

MODEL = PlackettLuce()
PROVISIONAL_GAMES = 5  # a rating is provisional until this many rated games
# A bot level's deviation: its rating is fitted from thousands of matches, and never moves.
BOT_DEVIATION = 1.0
# The entries of a game's log that end it by one seat's doing (its side loses).
SEAT_ENDINGS = ("Resigned", "Forfeited")


def is_provisional(player: PlayerRecord) -> bool:
    return player.bot is None and player.rated_games < PROVISIONAL_GAMES


def skill_of(player: PlayerRecord) -> tuple[float, float]:
    """The player's (mu, sigma); a bot level's is its fixed rating (app/engine/bots/ratings.py),
    whatever its row holds."""
    if player.bot in PLAYER_RATINGS:
        return PLAYER_RATINGS[player.bot], BOT_DEVIATION
    return player.mu, player.sigma


def rating_point(mu: float, sigma: float) -> dict[str, float]:
    """A rating as every answer shows it (docs/ratings.md)."""
    return {"value": round(mu, 3), "deviation": round(sigma, 3)}


def rating_of(player: PlayerRecord) -> dict[str, Any]:
    return {**rating_point(*skill_of(player)), "provisional": is_provisional(player)}


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
    players = {pid: player for pid in sorted(one_side)
               if (player := _player(uow, pid, game.rated))}  # fmt: skip
    ratings = _rated(players, one_side, game.winner) if game.rated else {}
    kept = _kept(game, players, one_side) if ratings else set()
    after: dict[str, tuple[float, float]] = {}
    for pid, player in players.items():
        moved = pid in ratings and pid not in kept and player.bot is None
        after[pid] = ratings[pid] if moved else skill_of(player)
        result = result_of(game.winner, one_side[pid])
        uow.players.record(Outcome(pid, result, after[pid] if moved else None,
                                   player.rated_games))  # fmt: skip
    if ratings:
        held = [(seat.seat, seat.player_id) for seat in game.seats if seat.player_id in ratings]
        game.ratings = [_change(seat, pid, players[pid], after[pid]) for seat, pid in held]


def _kept(game: GameRecord, players: dict[str, PlayerRecord], sides: dict[str, int]) -> set[str]:
    """The players whose rating this rated game leaves as it was (docs/ratings.md):

    - everyone's, when the match ended (resigned, forfeited) before every seat played the
      four cards of its first hand: a game nobody played rates nobody, or two accounts of one
      person could trade rating by resigning at once;
    - in a game of two teams ended by one seat's resignation or forfeit, its partner's: its
      side loses the match, but the partner did not resign it (matchmaking seats strangers as
      partners). The seat that ended it, and the other side, are rated as the result says."""
    if game.state.moves < HAND_SIZE * game.players:
        return set(players)
    ended = next((entry.data for entry in game.new_events if entry.type in SEAT_ENDINGS), None)
    if ended is None or game.players < 4:
        return set()
    by_seat = {seat.seat: seat.player_id for seat in game.seats}
    quitter = by_seat.get(int(ended["seat"]))
    side = side_of(int(ended["seat"]))
    return {pid for pid in players if sides[pid] == side and pid != quitter}


def _player(uow: AbstractUnitOfWork, player_id: str, rated: bool) -> PlayerRecord | None:
    """The player, held until commit when its rating changes (its update checks it was not
    rated meanwhile all the same; an unrated game, or a bot, whose rating never changes, only
    adds to its counts, in place); a bot level's is made on its first game's end."""
    level = bot_level_of(player_id)
    player = uow.players.get(player_id, for_update=rated and level is None)
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
    rating = {pid: MODEL.rating(*skill_of(player), pid) for pid, player in players.items()}
    rated = MODEL.rate([[rating[pid] for pid in team] for team in teams], ranks=ranks)
    return {str(r.name): (r.mu, r.sigma) for team in rated for r in team}


def _change(
    seat: int, player_id: str, before: PlayerRecord, after: tuple[float, float]
) -> dict[str, Any]:
    return {"seat": seat, "player": player_id, "before": rating_point(*skill_of(before)),
            "after": rating_point(*after)}  # fmt: skip
