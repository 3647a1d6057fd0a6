"""Small helpers for driving the use cases in tests."""

from __future__ import annotations

from app.engine.cards import FULL_DECK
from app.persistence.memory import MemoryUnitOfWork
from app.services import audit, bots, games, playing
from app.services.creation import Player

HANDS = [["9S", "2C", "3D", "4H"], ["KC", "KD", "QC", "QD"]]
FLOOR = ["AH", "5S", "9D", "3C"]


def stacked_deck(hands: list[list[str]], floor: list[str]) -> list[str]:
    """Round 1 deals ``hands[seat]`` to each seat (seat 0 first) and ``floor`` to the floor."""
    top = [card for hand in hands for card in hand] + floor
    return top + [str(card) for card in FULL_DECK if str(card) not in top]


def finished_bot_game(uow: MemoryUnitOfWork, target: int = 1) -> str:
    """A game of two bots, played to its end as the background runner would, in slices."""
    players = [Player(bot="random", name="Rami"), Player(bot="greedy")]
    game_id = games.create_game(uow, players, rules={"target_score": target}).game_id
    for _ in range(1000):
        if not bots.play_bots(uow, game_id, seconds=5.0):
            return game_id
    raise AssertionError("the bots' match did not end")


def two_humans(uow: MemoryUnitOfWork) -> tuple[str, list[str]]:
    """A game of two humans; seat 0 holds 9S 2C 3D 4H and leads onto AH 5S 9D 3C."""
    created = games.create_game(
        uow, [Player(name="Amira"), Player(name="Badr")], deck=stacked_deck(HANDS, FLOOR)
    )
    return created.game_id, [seat["token"] for seat in created.seats]


def play(uow: MemoryUnitOfWork, game_id: str, token: str | None, card: str,
         **options: object) -> playing.Played:  # fmt: skip
    return playing.play_card(uow, playing.PlayCard(game_id, token, card, **options))  # type: ignore[arg-type]


def hand(uow: MemoryUnitOfWork, game_id: str, token: str) -> list[str]:
    cards: list[str] = audit.view(uow, game_id, token)["hand"]
    return cards
