"""Card codes: rank then suit, one shared object per card."""

from __future__ import annotations

import pickle

import pytest

from app.engine import FULL_DECK, Card, InvalidCard, parse_cards
from app.engine.cards import RANKS, SUITS

ALL_CODES = [rank + suit for suit in SUITS for rank in RANKS]


def test_the_deck_has_52_distinct_cards_in_canonical_order() -> None:
    assert [str(card) for card in FULL_DECK] == ALL_CODES
    assert len(set(FULL_DECK)) == 52
    assert [card.index for card in FULL_DECK] == list(range(52))
    assert str(FULL_DECK[0]) == "AS"
    assert str(FULL_DECK[51]) == "KC"


@pytest.mark.parametrize("code", ALL_CODES)
def test_every_code_round_trips_through_parse_str_and_repr(code: str) -> None:
    card = Card.parse(code)
    assert str(card) == code
    assert card.code == code
    assert eval(repr(card), {"Card": Card}) is card
    assert pickle.loads(pickle.dumps(card)) is card


@pytest.mark.parametrize("code", ["7d", "10h", "as", "kC", "jS", "Qh"])
def test_lower_case_codes_parse_to_the_same_card(code: str) -> None:
    assert Card.parse(code) is Card.parse(code.upper())


@pytest.mark.parametrize(
    "code",
    ["", "7", "D", "1S", "11H", "0C", "7X", "T5", "10", "JJ", " 7D", "7D ", "7 D", "AS,", "ten"],
)
def test_a_bad_code_raises_invalid_card(code: str) -> None:
    with pytest.raises(InvalidCard):
        Card.parse(code)


@pytest.mark.parametrize("thing", [None, 7, 7.0, b"7D", ("7", "D")])
def test_something_that_is_not_a_string_raises_invalid_card(thing: object) -> None:
    with pytest.raises(InvalidCard):
        Card.parse(thing)  # type: ignore[arg-type]


def test_invalid_card_carries_a_code_for_the_http_layer() -> None:
    with pytest.raises(InvalidCard) as raised:
        Card.parse("ZZ")
    assert raised.value.code == "invalid_card"
    assert "ZZ" in raised.value.detail


@pytest.mark.parametrize(
    ("code", "value"),
    [("AS", 1), ("2H", 2), ("7D", 7), ("9C", 9), ("10S", 10), ("JH", 0), ("QD", 0), ("KC", 0)],
)
def test_number_cards_are_worth_their_face_and_faces_nothing(code: str, value: int) -> None:
    card = Card.parse(code)
    assert card.value == value
    assert card.is_number is (value > 0)


def test_cards_compare_and_hash_by_identity_of_the_card() -> None:
    assert Card.parse("7D") == Card.parse("7d")
    assert Card.parse("7D") != Card.parse("7H")
    assert Card.parse("7D") != "7D"
    assert len({Card.parse("7D"), Card.parse("7d"), Card.parse("7H")}) == 2
    assert sorted(parse_cards(["KC", "AS", "10H"])) == list(parse_cards(["AS", "10H", "KC"]))


def test_cards_are_frozen() -> None:
    card = Card.parse("7D")
    with pytest.raises(AttributeError):
        card.rank = "8"  # type: ignore[misc]


def test_parse_cards_reads_a_list_of_codes_in_order() -> None:
    assert [str(card) for card in parse_cards(["5C", "2h", "10D"])] == ["5C", "2H", "10D"]
    with pytest.raises(InvalidCard):
        parse_cards(["5C", "nope"])


def test_a_card_has_a_readable_name() -> None:
    assert Card.parse("7D").name == "7 of diamonds"
    assert Card.parse("QS").name == "queen of spades"
    assert Card.parse("AH").name == "ace of hearts"
