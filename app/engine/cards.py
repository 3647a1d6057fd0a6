"""Cards and their text codes: rank then suit, e.g. ``7D``, ``10H``, ``JS``.

There are exactly 52 card objects, made once at import. ``Card.parse`` hands back
the shared instance, so two cards are equal exactly when they are the same object, which
keeps the capture search and the hot play loop cheap; they sort by their canonical index.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.engine.errors import InvalidCard

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAMES = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}
_VALUES = {rank: index + 1 for index, rank in enumerate(RANKS[:10])}


# eq=False and no __eq__/__hash__ of our own: there are exactly 52 instances, so identity
# is equality, and object's C-level comparison and hash keep `in`, `remove` and sets of
# cards cheap in the hot play loop (a Python __eq__ was the most called function there).
@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One of the 52 cards. Build it with ``Card.parse``; never directly."""

    rank: str
    suit: str
    index: int  # position in the canonical order of FAIRNESS.md: AS=0 ... KC=51
    value: int  # A=1 .. 10=10; 0 for J, Q, K, which have no value

    @staticmethod
    def parse(code: str) -> Card:
        """The card for a code such as ``"7D"`` or ``"10h"`` (lower case accepted)."""
        card = _BY_CODE.get(code.upper()) if isinstance(code, str) else None
        if card is None:
            raise InvalidCard(code)
        return card

    @property
    def code(self) -> str:
        return self.rank + self.suit

    @property
    def is_number(self) -> bool:
        return self.value > 0

    @property
    def name(self) -> str:
        return f"{RANK_NAMES.get(self.rank, self.rank)} of {SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (str(self),))


FULL_DECK: tuple[Card, ...] = tuple(
    Card(rank, suit, suit_index * 13 + rank_index, _VALUES.get(rank, 0))
    for suit_index, suit in enumerate(SUITS)
    for rank_index, rank in enumerate(RANKS)
)
_BY_CODE = {str(card): card for card in FULL_DECK}
SEVEN_OF_DIAMONDS = Card.parse("7D")


_CODE_OF = {card: str(card) for card in FULL_DECK}


def parse_cards(codes: Iterable[str]) -> tuple[Card, ...]:
    # Every stored snapshot and log entry is parsed card by card on each move: look the
    # canonical codes up in C first, and take the careful way only for what is not one.
    if not isinstance(codes, list | tuple):
        codes = list(codes)  # a second pass may be needed
    try:
        return tuple(map(_BY_CODE.__getitem__, codes))
    except (KeyError, TypeError):
        return tuple(Card.parse(code) for code in codes)


def codes(cards: Iterable[Card]) -> list[str]:
    return list(map(_CODE_OF.__getitem__, cards))
