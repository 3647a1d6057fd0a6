"""The one function that builds API.md's *view* of a game: the engine's ``observe`` (what
a seat may see) plus the game's id, status, version, deadline and the seats' names."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.engine import TAKEOVER_BOT, GameState, observe
from app.engine.cards import codes
from app.services.model import ACTIVE, GameRecord


def build_view(
    game: GameRecord,
    seat: int | None,
    state: GameState | None = None,
    status: str | None = None,
    version: int | None = None,
) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) may see of ``game``: now, or (for a replay) at an
    earlier ``state`` with its ``status`` and ``version``."""
    now = state is None
    state = game.state if state is None else state
    seen = observe(state, seat).to_dict()
    for entry in seen["seats"]:
        entry.update(game.seats[entry["seat"]].public())
        if entry["seat"] in state.taken_by_bot:  # after max_timeouts timeouts in a row
            entry["bot"] = TAKEOVER_BOT
    # A turn's clock runs only in a game being played, and only now (not in a replay).
    deadline = game.deadline if now and game.status == ACTIVE else None
    return {
        "id": game.id,
        "status": game.status if status is None else status,
        "version": game.version if version is None else version,
        "custom_deck": game.custom_deck is not None,
        **seen,
        "deadline": utc_text(deadline),
        "rated": game.rated,
        # Once a rated match is over: each seat's player's rating before and after it.
        "ratings": game.ratings,
    }


def game_view(game: GameRecord, seat: int | None) -> dict[str, Any]:
    """The game now, as ``seat`` sees it."""
    return build_view(game, seat)


def complete_view(game: GameRecord, state: GameState, status: str, version: int) -> dict[str, Any]:
    """The view of a replay: a spectator's, plus every hidden card (``hands``, ``stock`` as
    codes, ``piles``), for a finished game only."""
    view = build_view(game, None, state, status, version)
    view["hands"] = [codes(hand) for hand in state.hands]
    view["stock"] = codes(state.stock)
    view["stock_size"] = len(state.stock)
    view["piles"] = [codes(pile) for pile in state.piles]
    return view


def utc_text(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC with a Z, as every time the API writes."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
