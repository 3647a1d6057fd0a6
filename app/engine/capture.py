"""What a played card takes from the floor (RULES.md sections 3 and 4).

The hard part is a number card: besides every floor card of its rank it takes the
largest set of the other number cards that splits into disjoint groups each summing to
its value. That search runs on the *counts* of each value, not on the 2^n subsets of
the floor, and is memoised on those counts, so the 36-card floor stays exact and quick.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from app.engine.cards import SEVEN_OF_DIAMONDS, Card
from app.engine.rules import Rules

BASRA = "basra"
JACK_BASRA = "jack_basra"

# A score ranks candidate captures exactly as RULES.md 3.2 says: more cards, then more
# groups, then the captured values sorted high to low compared lexicographically. For
# equal card counts that last test is the same as comparing how many cards of each
# value are taken, highest value first, so a score is (cards, groups, count of value
# v-1, ..., count of value 1), packed into one int below, and the best is max().
# That order is kept by adding the same group to both sides, so the search can add the
# score of a group to the best score of what remains.


@dataclass(frozen=True, slots=True)
class Capture:
    """What ``card`` does on a given floor: the floor cards it takes and any basra."""

    card: Card
    captured: tuple[Card, ...]
    basra: str | None

    @property
    def is_trail(self) -> bool:
        return not self.captured


def find_capture(floor: Sequence[Card], card: Card, rules: Rules) -> Capture:
    """The capture RULES.md makes compulsory for ``card`` played onto ``floor``."""
    # Cards are singletons hashed by identity (cards.py), so the floor itself is the key.
    key = (tuple(floor), card, rules.seven_diamonds, rules.seven_on_floor, rules.jack_basra)
    cached = _CAPTURES.get(key)
    if cached is None:
        if len(_CAPTURES) >= _CAPTURE_CACHE_SIZE:
            _CAPTURES.clear()
        cached = _CAPTURES[key] = _capture(tuple(floor), card, rules)
    return cached


_CAPTURES: dict[tuple[object, ...], Capture] = {}
_CAPTURE_CACHE_SIZE = 200_000


def _capture(floor: tuple[Card, ...], card: Card, rules: Rules) -> Capture:
    if not floor:
        return Capture(card, (), None)
    if card is SEVEN_OF_DIAMONDS and rules.seven_diamonds != "plain":
        return _seven_of_diamonds(floor, rules)
    if card.rank == "J":
        return Capture(card, floor, JACK_BASRA if _jack_basra_floor(floor, rules) else None)
    wild = rules.wild_floor_seven
    if card.is_number:
        taken = _number_capture(floor, card.value, wild)
    else:  # a Queen or King takes its own rank, and a wild 7D
        taken = tuple(c for c in floor if c.rank == card.rank or (wild and c is SEVEN_OF_DIAMONDS))
    return Capture(card, taken, BASRA if taken and len(taken) == len(floor) else None)


def _jack_basra_floor(floor: tuple[Card, ...], rules: Rules) -> bool:
    if rules.jack_basra == "off" or len(floor) != 1:
        return False
    lone = floor[0]
    return lone.rank == "J" or (lone is SEVEN_OF_DIAMONDS and rules.wild_floor_seven)


def _seven_of_diamonds(floor: tuple[Card, ...], rules: Rules) -> Capture:
    """The 7D played from hand under ``wild``, ``sum_le_10`` or ``jack`` (RULES.md 3.5)."""
    seven = SEVEN_OF_DIAMONDS
    if rules.seven_diamonds == "jack":
        return Capture(seven, floor, None)
    if rules.seven_diamonds == "sum_le_10":
        numbers_only = all(c.is_number for c in floor)
        small = numbers_only and sum(c.value for c in floor) <= 10
        return Capture(seven, floor, BASRA if small else None)
    if rules.jack_basra != "off" and len(floor) == 1 and floor[0].rank == "J":
        return Capture(seven, floor, JACK_BASRA)
    return Capture(seven, floor, BASRA if some_rank_clears(floor) else None)


def some_rank_clears(floor: tuple[Card, ...]) -> bool:
    """Whether one rank among A..10, Q, K would take every card of ``floor`` (3.5 b)."""
    first = floor[0].rank
    if first in ("Q", "K"):
        return all(c.rank == first for c in floor)
    if not all(c.is_number for c in floor):
        return False
    for value in range(max(c.value for c in floor), 11):
        rest = sum(c.value for c in floor if c.value != value)
        if rest % value == 0 and len(_number_capture(floor, value, False)) == len(floor):
            return True
    return False


def _number_capture(floor: Sequence[Card], value: int, wild: bool) -> tuple[Card, ...]:
    """Floor cards a number card of ``value`` takes, in floor order."""
    counts = [0] * value  # counts[w - 1] for each other value w < value
    joker = False
    smaller = 0  # the total of the cards worth less than ``value``
    for c in floor:
        if wild and c is SEVEN_OF_DIAMONDS:
            joker = True
        elif 0 < c.value < value:
            counts[c.value - 1] += 1
            smaller += c.value
    if not joker and smaller < value:
        # No group can reach ``value``: only the rank is taken. This is most plays in
        # a real round, so it skips the search (speed only; the answer is the same).
        return tuple(c for c in floor if c.value == value)
    wanted = list(best_value_counts(value, tuple(counts[:-1]), joker))
    wanted.append(len(floor))  # every card of the played value itself
    taken: set[Card] = set()
    # Among cards of one value, take them in canonical suit order S, H, D, C.
    for c in sorted(floor, key=_canonical):
        if wild and c is SEVEN_OF_DIAMONDS:
            taken.add(c)
        elif 0 < c.value <= value and wanted[c.value - 1] > 0:
            wanted[c.value - 1] -= 1
            taken.add(c)
    return tuple(c for c in floor if c in taken)


def _canonical(card: Card) -> int:
    return card.index


# Counts of values are packed four bits a value into one int (value w at bits
# 4(w-1)..4w-1), so taking a group away is one subtraction and the memo key is one int.
# A score packs (cards, groups, taken counts) the same way, most significant first, so
# comparing two scores is comparing two ints and combining them is adding.
_FIELD = 4
_GUARD_BIT = 8  # counts never exceed 4, so bit 3 of a field is free to catch a borrow
_MAX_OF_A_VALUE = 4


def best_value_counts(value: int, counts: tuple[int, ...], joker: bool) -> tuple[int, ...]:
    """How many cards of each value 1..value-1 the best capture takes.

    ``counts[w - 1]`` is how many floor cards of value w (< value) there are. With a
    ``joker`` (a wild 7D on the floor) one group may be short by 1..value, which the
    joker fills; the joker is always taken, so it does not change the ranking.
    """
    packed = 0
    for position, count in enumerate(counts):
        packed |= count << (_FIELD * position)
    best = _best_with_joker(value, packed) if joker else _best(value, packed)
    return tuple((best >> (_FIELD * w)) & 0xF for w in range(len(counts)))


@lru_cache(maxsize=65_536)
def _best_with_joker(value: int, counts: int) -> int:
    best = _best(value, counts)
    for total in range(value):
        for part, score in _groups(value, total, value - 1, 0):
            if _fits(counts, part, value):
                best = max(best, _best(value, counts - part) + score)
    return best


@lru_cache(maxsize=1_000_000)
def _best(value: int, counts: int) -> int:
    """The best packed score of disjoint groups summing to ``value`` drawn from ``counts``.

    Groups are found in order of their highest card: the highest value h left is
    either never used again, or it heads a group whose other cards are <= h.
    """
    if not counts:
        return 0
    top = (counts.bit_length() - 1) // _FIELD + 1  # the highest value present
    shift = _FIELD * (top - 1)
    best = _best(value, counts & ((1 << shift) - 1))
    rest = counts - (1 << shift)
    for part, score in _groups(value, value - top, top, top):
        if _fits(rest, part, value):
            candidate = _best(value, rest - part) + score
            if candidate > best:
                best = candidate
    return best


def _fits(counts: int, part: int, value: int) -> bool:
    guards = _guards(value)
    return ((counts | guards) - part) & guards == guards


@lru_cache(maxsize=64)
def _guards(value: int) -> int:
    return sum(_GUARD_BIT << (_FIELD * w) for w in range(value))


@lru_cache(maxsize=4096)
def _groups(value: int, total: int, largest: int, head: int) -> tuple[tuple[int, int], ...]:
    """Every multiset of values <= ``largest`` summing to ``total``, as (packed counts,
    packed score of the group it makes together with one card of value ``head``, if any)."""
    groups_shift = _FIELD * (value - 1)
    cards_shift = groups_shift + 8
    found = []
    for multiset in _partitions(total, largest):
        if any(multiset.count(w) > _MAX_OF_A_VALUE for w in set(multiset)):
            continue  # one pack holds four of a value; more would also defeat the guard bit
        packed = sum(1 << (_FIELD * (w - 1)) for w in multiset)
        cards = len(multiset) + (1 if head else 0)
        score = (cards << cards_shift) | (1 << groups_shift) if head else cards << cards_shift
        score += packed + ((1 << (_FIELD * (head - 1))) if head else 0)
        found.append((packed, score))
    return tuple(found)


@lru_cache(maxsize=4096)
def _partitions(total: int, largest: int) -> tuple[tuple[int, ...], ...]:
    """The partitions of ``total`` into parts <= ``largest``, each as a tuple of parts."""
    if total == 0:
        return ((),)
    return tuple(
        (part, *smaller)
        for part in range(min(total, largest), 0, -1)
        for smaller in _partitions(total - part, part)
    )
