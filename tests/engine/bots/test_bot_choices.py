"""What the greedy bot and the expert play in positions with one clear answer."""

from __future__ import annotations

import random

import pytest
from bot_helpers import position

from app.engine import Card, observe
from app.engine.bots import choose_card


def choice(level: str, hand: list[str], floor: list[str], seed: int = 0, **kwargs: object) -> str:
    state = position(hand, floor, **kwargs)  # type: ignore[arg-type]
    return str(choose_card(level, observe(state, 0), random.Random(seed)))


@pytest.mark.parametrize("seed", range(5))
def test_greedy_takes_a_jack_basra_over_a_basra(seed: int) -> None:
    assert choice("greedy", ["5D", "JS", "KC", "2H"], ["JH"], seed) == "JS"


@pytest.mark.parametrize("seed", range(5))
def test_greedy_takes_a_basra_over_more_cards(seed: int) -> None:
    # The Jack would sweep the same three cards, but only the 9 (2 + 3 + 4) is a basra.
    assert choice("greedy", ["9S", "JS", "KC", "AH"], ["2H", "3S", "4C"], seed) == "9S"


@pytest.mark.parametrize("seed", range(5))
def test_greedy_takes_the_most_cards_without_a_basra(seed: int) -> None:
    assert choice("greedy", ["5D", "10C", "KC", "AH"], ["5C", "2H", "8S", "QS"], seed) == "10C"


def test_greedy_keeps_its_jack_when_it_has_nothing_to_take() -> None:
    for seed in range(10):
        assert choice("greedy", ["JS", "7D", "4C", "9H"], [], seed) in {"4C", "9H"}


@pytest.mark.parametrize("seed", range(3))
def test_the_expert_makes_the_jack_basra(seed: int) -> None:
    assert choice("expert", ["5D", "JS", "KC", "2H"], ["JH"], seed) == "JS"


@pytest.mark.parametrize("seed", range(3))
def test_the_expert_does_not_trail_a_jack_or_the_seven_on_an_empty_floor(seed: int) -> None:
    assert choice("expert", ["JS", "7D", "4C", "9H"], [], seed) in {"4C", "9H"}


@pytest.mark.parametrize("seed", range(3))
def test_the_expert_makes_a_basra_with_a_five_rather_than_sweep_with_a_jack(seed: int) -> None:
    assert choice("expert", ["JS", "5D", "8H", "KC"], ["5C"], seed) == "5D"


@pytest.mark.parametrize("seed", range(3))
def test_the_expert_keeps_the_seven_of_diamonds_when_a_nine_makes_the_same_basra(
    seed: int,
) -> None:
    assert choice("expert", ["7D", "9D", "KC", "QH"], ["2C", "3H", "4S"], seed) == "9D"


def test_the_expert_plays_the_last_deal_exactly() -> None:
    # Stock empty, so the opponent's KS 2D are known. Taking the 5C first leaves a lone
    # KH for the KS: a basra. Trailing the QC first, the 5 still takes the 5C later.
    state = position(["5D", "QC"], ["5C", "KH"], others=[["KS", "2D"]], stock=0)
    card = choose_card("expert", observe(state, 0), random.Random(0))
    assert card != Card.parse("5D")


@pytest.mark.parametrize("seed", range(5))
def test_skilled_trails_the_card_that_leaves_no_basra_to_the_next_seat(seed: int) -> None:
    # Trailing the ace or the two leaves a floor a six or a seven clears; a King or a Queen
    # next to the five can be taken by nothing that empties the floor.
    assert choice("skilled", ["KC", "2H", "AH", "QS"], ["5C"], seed) in {"KC", "QS"}


@pytest.mark.parametrize("seed", range(3))
def test_skilled_takes_a_basra(seed: int) -> None:
    assert choice("skilled", ["9S", "JS", "KC", "AH"], ["2H", "3S", "4C"], seed) == "9S"
