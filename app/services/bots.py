"""Games of bots alone, played outside any request: a slice of moves at a time, and a claim on
games nobody is playing any more (their process died, the server restarted)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from app.persistence import Database, GameRepository
from app.services import transactions
from app.services.errors import Busy
from app.services.games import _advance, _save
from app.services.loading import ACTIVE, load

# A game of bots alone that has not changed for this long is nobody's: any process may claim it.
STALE_SECONDS = 10.0


def is_bots_only(bots: list[str | None]) -> bool:
    return all(bots)


def play_bots(db: Database, game_id: str, seconds: float) -> bool:
    """Play moves of a game of bots alone for about ``seconds`` and commit them; True while
    the match goes on. A game someone else moved meanwhile is left to them (False)."""

    def use_case(repo: GameRepository) -> bool:
        game = load(repo, game_id, for_update=True)
        if game.row.status != ACTIVE or not is_bots_only([s.bot for s in game.seats]):
            return False
        _advance(game, [], deadline=time.monotonic() + seconds)
        _save(repo, game)
        return game.row.status == ACTIVE

    try:
        return transactions.run(db, use_case, attempts=1)
    except Busy:
        return False


def claim_stale_bot_games(db: Database, stale_seconds: float = STALE_SECONDS,
                          limit: int = 20) -> list[str]:  # fmt: skip
    """Active games of bots alone untouched for ``stale_seconds``, now claimed by the caller:
    a version-checked update of ``updated_at`` that only one process can win."""
    cutoff = datetime.now(UTC) - timedelta(seconds=stale_seconds)
    with db.session() as session:
        repo = GameRepository(session)
        claimed = []
        for game_id, updated_at in repo.stale_bots_only_games(cutoff, limit):
            if repo.touch(game_id, updated_at, datetime.now(UTC)):
                claimed.append(game_id)
        session.commit()
    return claimed
