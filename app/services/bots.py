"""Games of bots alone, played outside any request: a slice of moves at a time, and a claim on
games nobody is playing any more (their process died, the server restarted)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from app.services.access import load
from app.services.errors import Busy
from app.services.model import ACTIVE
from app.services.ports import AbstractUnitOfWork, retrying
from app.services.progress import advance, save

# A game of bots alone that has not changed for this long is nobody's: any process may claim it.
STALE_SECONDS = 10.0


def is_bots_only(bots: list[str | None]) -> bool:
    return all(bots)


def play_bots(uow: AbstractUnitOfWork, game_id: str, seconds: float) -> bool:
    """Play moves of a game of bots alone for about ``seconds`` and commit them; True while
    the match goes on. A game someone else moved meanwhile is left to them (False)."""

    def attempt() -> bool:
        with uow:
            game = load(uow, game_id, for_update=True)
            if game.status != ACTIVE or not is_bots_only([s.bot for s in game.seats]):
                return False
            advance(game, [], deadline=time.monotonic() + seconds)
            save(uow, game)
            uow.commit()
            return game.status == ACTIVE

    try:
        return retrying(attempt, attempts=1)
    except Busy:
        return False


def claim_stale_bot_games(
    uow: AbstractUnitOfWork, stale_seconds: float = STALE_SECONDS, limit: int = 20
) -> list[str]:
    """Active games of bots alone untouched for ``stale_seconds``, now claimed by the caller:
    a version-checked update of ``updated_at`` that only one process can win."""
    cutoff = datetime.now(UTC) - timedelta(seconds=stale_seconds)
    with uow:
        claimed = [
            game_id
            for game_id, updated_at in uow.games.stale_bots_only_games(cutoff, limit)
            if uow.games.touch(game_id, updated_at, datetime.now(UTC))
        ]
        uow.commit()
    return claimed
