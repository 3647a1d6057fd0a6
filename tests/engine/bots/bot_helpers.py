"""Positions for the bot tests: real games advanced by random play, and hand-made ones."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from app.engine import FULL_DECK, Card, CardPlayed, Game, GameState, Rules, parse_cards
from app.engine.fairness import shuffled_deck
from app.engine.state import PLAYING


def random_positions(
    count: int, players: int, seed: int, rules: Rules | None = None
) -> Iterator[GameState]:
    """``count`` positions, each a fresh match advanced by random play to some turn."""
    rng = random.Random(seed)
    for index in range(count):
        game = Game(rules or Rules(), players)
        game.deal(shuffled_deck(f"{seed}-{index}".encode(), "", 1))
        for _ in range(rng.randrange(12 * players)):
            seat = game.state.turn
            assert seat is not None
            game.play(seat, rng.choice(game.state.hands[seat]))
        yield game.state


def position(
    hand: Sequence[str],
    floor: Sequence[str],
    *,
    players: int = 2,
    others: Sequence[Sequence[str]] = (),
    stock: int | None = None,
    seed: int = 0,
) -> GameState:
    """Seat 0 to move in round 1 with ``hand`` and ``floor``; the other seats hold
    ``others`` (or random cards of the same count as ``hand``); ``stock`` cards (by
    default as many as whole deals allow) are left to deal, and the rest is recorded
    as one capture seat 1 made earlier this round, so the view adds up."""
    state = GameState.new(Rules(), players)
    state.phase, state.round, state.dealer, state.turn = PLAYING, 1, players - 1, 0
    state.hands[0] = list(parse_cards(hand))
    state.floor = list(parse_cards(floor))
    fixed = [list(parse_cards(cards)) for cards in others]
    used = set(state.hands[0]) | set(state.floor) | {c for cards in fixed for c in cards}
    rest = [card for card in FULL_DECK if card not in used]
    random.Random(seed).shuffle(rest)
    for seat in range(1, players):
        state.hands[seat] = fixed[seat - 1] if seat - 1 < len(fixed) else _take(rest, len(hand))
    deal = 4 * players
    keep = (len(rest) // deal) * deal if stock is None else stock
    state.stock, spare = rest[:keep], rest[keep:]
    if spare:
        move = CardPlayed(1, 1, 1, spare[0], tuple(spare[1:]), None)
        state.round_moves.append(move)
        state.piles[1] = list(spare)
        state.moves = 1
        state.last_capturer = 1
    return state


def _take(cards: list[Card], count: int) -> list[Card]:
    taken = cards[:count]
    del cards[:count]
    return taken
