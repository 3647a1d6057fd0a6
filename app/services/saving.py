"""How the use cases write a game: a new one added in a transaction of its own, a changed
one saved with its end settled. Apart so that every use case that changes a game, and the
background play of bots (bots.py), saves it the same way."""

from __future__ import annotations

from datetime import UTC, datetime

from app.services.model import GameRecord
from app.services.ratings import settle_end
from app.services.unit_of_work import AbstractUnitOfWork


def add(uow: AbstractUnitOfWork, game: GameRecord) -> None:
    with uow:
        uow.games.add(game)
        uow.commit()


def save(uow: AbstractUnitOfWork, game: GameRecord) -> None:
    game.updated_at = datetime.now(UTC)
    settle_end(uow, game)  # the save that ends a match changes its players' ratings with it
    uow.games.save(game)
