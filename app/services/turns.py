"""Moving a game on: a command through the engine into the log, then every deal that is
due and every bot whose turn it is, inside the same transaction."""

from __future__ import annotations

import hmac
import random
import time
from dataclasses import dataclass
from typing import Any

from app.engine import (
    DEALING,
    OVER,
    PLAYING,
    TAKEOVER_BOT,
    Card,
    CardPlayed,
    Deal,
    MatchEnded,
    Play,
    Resign,
    TimeOut,
    apply,
    decide,
    observe,
    parse_cards,
)
from app.engine.bots import choose_card
from app.engine.fairness import ALGORITHM, client_seed, shuffled_deck
from app.observability import metrics
from app.services.log import SEED_REVEALED
from app.services.model import ACTIVE, FINISHED, GameRecord

Moves = list[dict[str, Any]]  # API.md's *moves*, in the order they were applied
# The longest an expert bot searches for one move, and all the bots' replies to one request
# together. The search has a fixed size (the same card on any machine at any load); these are
# only a last guard, logged when they cut a search short. Idle, a decision takes 0.03 s.
BOT_DECISION_SECONDS = 1.0
BOT_REPLIES_SECONDS = 1.5
# Levels whose thinking time could say something of their hand: padded at a human's table.
PADDED_LEVELS = frozenset({"expert"})


@dataclass(slots=True)
class Thinking:
    """The least time a padded bot's decision takes while a human sits at the table, so that
    how long it thought tells nobody what it holds (``BOT_THINKING_SECONDS``, set by
    ``create_app``; none by default, so tools and games of bots alone are not slowed)."""

    floor: float = 0.0


THINKING = Thinking()


def replies_deadline() -> float:
    """When the bots' replies to a request must be decided (for every retry of it together)."""
    return time.monotonic() + BOT_REPLIES_SECONDS


def start(
    game: GameRecord, moves: Moves, play_bots: bool = True, replies_by: float | None = None
) -> None:
    """Every seat is filled: fix the client seed, deal round 1, let bots move (unless
    ``play_bots`` is off: a game of bots alone is played in the background by
    app.background.bot_runner)."""
    game.client_seed = client_seed([None if s.bot else s.seed for s in game.seats])
    game.status = ACTIVE
    if play_bots:
        advance(game, moves, replies_by=replies_by)
    else:
        execute(game, Deal(*_deck_for(game, 1)), moves)


def advance(
    game: GameRecord, moves: Moves, deadline: float | None = None, replies_by: float | None = None
) -> None:
    """Deal every round that is due and play every bot whose turn it is (until ``deadline``,
    a ``time.monotonic()`` value, if one is given: the rest is played later). Expert bots
    search until ``replies_by`` at the latest (BOT_REPLIES_SECONDS from now if not given)."""
    state = game.state
    replies_by = replies_deadline() if replies_by is None else replies_by
    while deadline is None or time.monotonic() < deadline:
        if state.phase == DEALING:
            execute(game, Deal(*_deck_for(game, state.round + 1)), moves)
            continue
        bot = bot_of(game, state.turn) if state.turn is not None else None
        if state.phase != PLAYING or state.turn is None or bot is None:
            return
        started = time.perf_counter()
        decide_by = min(time.monotonic() + BOT_DECISION_SECONDS, replies_by)
        card = choose_card(bot, observe(state, state.turn), _bot_random(game), decide_by)
        metrics.bot_decided(bot, time.perf_counter() - started)
        if bot in PADDED_LEVELS and THINKING.floor > 0 and has_human(game):
            time.sleep(max(0.0, started + THINKING.floor - time.perf_counter()))
        execute(game, Play(state.turn, card), moves)


def has_human(game: GameRecord) -> bool:
    return any(seat.bot is None for seat in game.seats)


def bot_of(game: GameRecord, seat: int) -> str | None:
    """The bot that plays ``seat``: its own, or the one that took it after its timeouts."""
    own = game.seats[seat].bot
    if own is None and seat in game.state.taken_by_bot:
        return TAKEOVER_BOT
    return own


def execute(game: GameRecord, command: Deal | Play | TimeOut | Resign, moves: Moves) -> None:
    """Decide, apply and log ``command``'s events; the engine refuses bad ones."""
    for event in decide(game.state, command):
        apply(game.state, event)
        game.record_engine(event)
        if isinstance(event, CardPlayed):
            moves.append(event.to_dict())
        elif isinstance(event, MatchEnded):
            _finish(game, event.winner)
    if game.state.phase == OVER and game.status != FINISHED:
        raise RuntimeError(f"game {game.id} ended in the engine but not in its record")


def _finish(game: GameRecord, winner: int | None) -> None:
    """The match is over: record the winner and reveal the seed that made the decks."""
    game.status = FINISHED
    game.winner = winner
    reveal_seed(game)


def reveal_seed(game: GameRecord) -> None:
    game.record(
        SEED_REVEALED,
        {"algorithm": ALGORITHM, "server_seed": game.server_seed, "client_seed": game.client_seed},
    )


def _deck_for(game: GameRecord, round_number: int) -> tuple[tuple[Card, ...], bool]:
    if round_number == 1 and game.custom_deck:
        return parse_cards(game.custom_deck), True
    seed = bytes.fromhex(game.server_seed)
    return shuffled_deck(seed, game.client_seed or "", round_number), False


def _bot_random(game: GameRecord) -> random.Random:
    """Bots' randomness: secret while the game is on, reproducible from the seed after."""
    seed = bytes.fromhex(game.server_seed)
    digest = hmac.digest(seed, f"bot|{game.state.moves}".encode(), "sha256")  # one call, in C
    return random.Random(int.from_bytes(digest[:8], "big"))
