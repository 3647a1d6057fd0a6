"""Small builders shared by the engine tests: card lists, fixed decks, hand-made
positions and random matches played through the public API."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence

from app.engine import FULL_DECK, PLAYING, Card, Game, GameState, Rules, parse_cards
from app.engine.fairness import shuffled_deck


def cards(text: str) -> list[Card]:
    """``"5C 2H 3S"`` as cards; ``""`` or ``"-"`` is no card at all."""
    return list(parse_cards(text.split())) if text.strip("- ") else []


def codes(items: Iterable[Card]) -> list[str]:
    return [str(card) for card in items]


def deck_starting_with(text: str) -> list[Card]:
    """A full deck whose top cards are ``text``; the rest follow in canonical order."""
    top = cards(text)
    assert len(set(top)) == len(top), "a card may appear once in a deck"
    return top + [card for card in FULL_DECK if card not in top]


def position(
    *,
    hands: Sequence[str],
    floor: str = "",
    stock: str = "",
    pile: str = "",
    rules: Rules | None = None,
    turn: int = 0,
    last_capturer: int | None = None,
    basras: tuple[int, int] = (0, 0),
    jack_basras: tuple[int, int] = (0, 0),
    scores: tuple[int, int] = (0, 0),
    pile_sizes: tuple[int, int] | None = None,
    majority_carry: int = 0,
) -> GameState:
    """A state in the middle of a round, built by hand.

    Every card not named goes to the piles: ``pile`` names side 0's pile cards,
    ``pile_sizes`` splits the rest (side 0 first); without it they all go to side 0.
    """
    players = len(hands)
    state = GameState.new(rules or Rules(), players)
    state.phase = PLAYING
    state.round = 1
    state.dealer = players - 1
    state.turn = turn
    state.hands = [cards(hand) for hand in hands]
    state.floor = cards(floor)
    state.stock = cards(stock)
    named = [*state.floor, *state.stock, *(c for hand in state.hands for c in hand), *cards(pile)]
    assert len(set(named)) == len(named), "a card may appear once in a position"
    rest = [*cards(pile), *(c for c in FULL_DECK if c not in named)]
    sizes = pile_sizes if pile_sizes is not None else (len(rest), 0)
    assert sum(sizes) == len(rest), f"{len(rest)} cards are left for piles of {sizes}"
    state.piles = [rest[: sizes[0]], rest[sizes[0] :]]
    state.last_capturer = last_capturer
    state.basras = list(basras)
    state.jack_basras = list(jack_basras)
    state.scores = list(scores)
    state.majority_carry = majority_carry
    return state


def all_cards(state: GameState) -> Counter[Card]:
    """Every card the state holds anywhere, with how often it holds it."""
    held: Counter[Card] = Counter(state.stock)
    held.update(state.floor)
    held.update(state.discarded)
    for hand in state.hands:
        held.update(hand)
    for pile in state.piles:
        held.update(pile)
    return held


def play_round(game: Game, rng: random.Random) -> None:
    """Play random cards from the hand of the seat to move until the round is scored."""
    while game.state.phase == PLAYING:
        state = game.state
        assert state.turn is not None
        hand = state.hands[state.turn]
        game.play(state.turn, hand[rng.randrange(len(hand))])


def play_match(
    rules: Rules,
    players: int,
    server_seed: bytes,
    choices: int,
    max_rounds: int = 60,
) -> Game:
    """A whole match (or ``max_rounds`` of it) of random moves from ``choices``."""
    game = Game(rules, players)
    rng = random.Random(choices)
    while game.needs_deal and game.state.round < max_rounds:
        round_number = game.state.round + 1
        game.deal(shuffled_deck(server_seed, "", round_number))
        play_round(game, rng)
    return game
