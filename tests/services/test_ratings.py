"""What a rated game's end does to its players' ratings (docs/ratings.md), on the in-memory
unit of work: games nobody played rate nobody, bots' ratings are fixed, and a partner's
resignation costs only the partner who resigned."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.engine.bots.ratings import PLAYER_RATINGS
from app.persistence.memory import MemoryUnitOfWork
from app.services import audit, games, players, playing
from app.services.creation import Player
from app.services.model import DEFAULT_MU, PlayerRecord
from app.services.progress import sweep

from .support import play


def new_players(uow: MemoryUnitOfWork, count: int) -> list[PlayerRecord]:
    return [players.create_player(uow, f"P{n}").player for n in range(count)]


def rated_game(uow: MemoryUnitOfWork, seats: list[Player]) -> tuple[str, list[str | None]]:
    created = games.create_game(uow, seats, rated=True)
    tokens = {seat["seat"]: seat.get("token") for seat in created.seats}
    return created.game_id, [tokens.get(n) for n in range(len(seats))]


def humans(held: list[PlayerRecord]) -> list[Player]:
    return [Player(name=p.name, player_id=p.id) for p in held]


def play_cards(uow: MemoryUnitOfWork, game_id: str, tokens: list[str | None], count: int) -> None:
    """``count`` cards played by the humans, each its hand's first (bots answer by themselves)."""
    for _ in range(count):
        view = audit.view(uow, game_id, next(t for t in tokens if t))
        token = tokens[view["turn"]]
        assert token is not None
        play(uow, game_id, token, audit.view(uow, game_id, token)["hand"][0])


def player(uow: MemoryUnitOfWork, player_id: str) -> PlayerRecord:
    return players.find_player(uow, player_id)


def rating(uow: MemoryUnitOfWork, player_id: str) -> float:
    value: float = players.profile(player(uow, player_id))["rating"]["value"]
    return value


def history(uow: MemoryUnitOfWork, player_id: str) -> dict[str, Any]:
    entry: dict[str, Any] = players.player_games(uow, player_id, None, 1, None)["games"][0]
    return entry


@pytest.mark.parametrize("cards", [0, 1, 7])
def test_a_rated_game_resigned_before_every_seat_played_its_first_hand_rates_nobody(
    uow: MemoryUnitOfWork, cards: int
) -> None:
    amira, badr = new_players(uow, 2)
    game_id, tokens = rated_game(uow, humans([amira, badr]))
    play_cards(uow, game_id, tokens, cards)
    playing.resign_game(uow, game_id, tokens[1])
    for held in (amira, badr):
        assert rating(uow, held.id) == DEFAULT_MU
        assert player(uow, held.id).rated_games == 0
        entry = history(uow, held.id)
        assert entry["rated"] and entry["rating_after"] == entry["rating_before"] == DEFAULT_MU
    assert player(uow, badr.id).lost == 1  # the result counts all the same


def test_a_rated_game_resigned_once_every_seat_played_its_first_hand_is_rated(
    uow: MemoryUnitOfWork,
) -> None:
    amira, badr = new_players(uow, 2)
    game_id, tokens = rated_game(uow, humans([amira, badr]))
    play_cards(uow, game_id, tokens, 8)
    playing.resign_game(uow, game_id, tokens[1])
    assert rating(uow, amira.id) > DEFAULT_MU > rating(uow, badr.id)
    assert history(uow, badr.id)["rating_after"] < history(uow, badr.id)["rating_before"]


def test_a_bots_rating_is_fixed_whatever_its_games(uow: MemoryUnitOfWork) -> None:
    losers = new_players(uow, 6)
    for held in losers:
        game_id, tokens = rated_game(uow, [*humans([held]), Player(bot="random")])
        play_cards(uow, game_id, tokens, 4)
        playing.resign_game(uow, game_id, tokens[0])
        assert rating(uow, held.id) < DEFAULT_MU
    bot = players.profile(player(uow, "bot-random"))
    assert bot["rating"] == {"value": PLAYER_RATINGS["random"], "deviation": 1.0,
                             "provisional": False}  # fmt: skip
    assert bot["stats"]["won"] == 6
    change = games_ratings(uow, game_id)["bot-random"]
    assert change["before"] == change["after"]


def games_ratings(uow: MemoryUnitOfWork, game_id: str) -> dict[str, dict[str, Any]]:
    with uow:
        game = uow.games.get(game_id)
    assert game is not None and game.ratings is not None
    return {change["player"]: change for change in game.ratings}


def test_a_bot_is_never_on_the_leaderboard(uow: MemoryUnitOfWork) -> None:
    with uow:  # a bot's row as a rating that moved left it: high, and settled
        uow.players.add(PlayerRecord("bot-greedy", "Greedy bot", bot="greedy", mu=48.2,
                                     rated_games=25), None, None)  # fmt: skip
        uow.players.add(PlayerRecord("steady", "Steady", mu=30.0, rated_games=5), None, None)
        uow.commit()
    board = [entry["id"] for entry in players.leaderboard(uow, 100)["players"]]
    assert board == ["steady"]
    assert rating(uow, "bot-greedy") == PLAYER_RATINGS["greedy"]


def test_a_partners_resignation_costs_only_the_partner_who_resigned(
    uow: MemoryUnitOfWork,
) -> None:
    four = new_players(uow, 4)
    game_id, tokens = rated_game(uow, humans(four))
    play_cards(uow, game_id, tokens, 16)
    playing.resign_game(uow, game_id, tokens[2])  # seat 2 resigns for side 0: seats 0 and 2
    assert rating(uow, four[0].id) == DEFAULT_MU  # its partner keeps its rating
    assert rating(uow, four[2].id) < DEFAULT_MU
    assert rating(uow, four[1].id) > DEFAULT_MU and rating(uow, four[3].id) > DEFAULT_MU
    partner = history(uow, four[0].id)
    assert partner["result"] == "lost" and partner["rating_after"] == partner["rating_before"]


def test_a_rated_game_forfeited_by_an_idle_seat_rates_its_seat_a_loss(
    uow: MemoryUnitOfWork,
) -> None:
    two = new_players(uow, 2)
    rules = {"idle_seconds": 60, "turn_seconds": None}  # no clock: the idle limit applies
    created = games.create_game(uow, humans(two), rules=rules, rated=True)
    tokens: list[str | None] = [seat["token"] for seat in created.seats]
    play_cards(uow, created.game_id, tokens, 8)  # every seat's first hand: the end is rated
    sweep(uow, datetime.now(UTC) + timedelta(seconds=95))  # seat 0, to move, lets it pass
    final = audit.view(uow, created.game_id, None)
    assert final["status"] == "finished" and final["winner"] == 1 and final["resigned"] == 0
    assert rating(uow, two[1].id) > DEFAULT_MU > rating(uow, two[0].id)
    assert players.profile(player(uow, two[0].id))["stats"] == {
        "played": 1, "won": 0, "lost": 1, "drawn": 0}  # fmt: skip
