"""A slow, obvious reading of RULES.md section 3, written apart from app.engine.capture.

It enumerates every subset of the floor and every way to split it into groups, so it is
only fit for small floors; the exhaustive tests compare the engine's search against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from app.engine import Card, Rules

NUMBER_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
VALUE = {rank: number for number, rank in enumerate(NUMBER_RANKS, start=1)}


def value(card: Card) -> int:
    return VALUE.get(card.rank, 0)


def is_seven_of_diamonds(card: Card) -> bool:
    return card.rank == "7" and card.suit == "D"


def most_groups(cards: Sequence[Card], target: int) -> int | None:
    """The most groups summing to ``target`` that ``cards`` split into, all of them used."""
    if not cards:
        return 0
    first, rest = cards[0], list(cards[1:])
    best: int | None = None
    for size in range(len(rest) + 1):
        for partners in combinations(rest, size):
            if value(first) + sum(value(c) for c in partners) != target:
                continue
            left = [c for c in rest if c not in partners]
            groups = most_groups(left, target)
            if groups is not None and (best is None or groups + 1 > best):
                best = groups + 1
    return best


def most_groups_with_joker(cards: Sequence[Card], target: int) -> int | None:
    """As ``most_groups``, plus one wild card worth 1..target that must join some group."""
    best: int | None = None
    for size in range(len(cards) + 1):
        for partners in combinations(cards, size):
            if sum(value(c) for c in partners) > target - 1:
                continue  # the wild card is worth at least 1
            left = [c for c in cards if c not in partners]
            groups = most_groups(left, target)
            if groups is not None and (best is None or groups + 1 > best):
                best = groups + 1
    return best


def number_capture(floor: Sequence[Card], v: int, wild: bool) -> list[Card]:
    """Floor cards a number card worth ``v`` takes (3.2), by brute force."""
    joker = [c for c in floor if wild and is_seven_of_diamonds(c)]
    same_rank = [c for c in floor if value(c) == v and c not in joker]
    usable = [c for c in floor if 0 < value(c) < v and c not in joker]
    best_key: tuple[int, int, list[int]] | None = None
    for size in range(len(usable) + 1):
        for chosen in combinations(usable, size):
            groups = most_groups_with_joker(chosen, v) if joker else most_groups(chosen, v)
            if groups is None:
                continue
            key = (size, groups, sorted((value(c) for c in chosen), reverse=True))
            if best_key is None or key > best_key:
                best_key = key
    assert best_key is not None  # the empty choice always works
    wanted = list(best_key[2])
    taken = set(joker) | set(same_rank)
    # Suits among equal values: spades, hearts, diamonds, clubs.
    for c in sorted(usable, key=lambda c: "SHDC".index(c.suit)):
        if value(c) in wanted:
            wanted.remove(value(c))
            taken.add(c)
    return [c for c in floor if c in taken]


def face_capture(floor: Sequence[Card], rank: str, wild: bool) -> list[Card]:
    """What a Queen or King takes (3.3)."""
    return [c for c in floor if c.rank == rank or (wild and is_seven_of_diamonds(c))]


def clears_with_one_rank(floor: Sequence[Card]) -> bool:
    for rank in (*NUMBER_RANKS, "Q", "K"):
        if rank in VALUE:
            taken = number_capture(floor, VALUE[rank], wild=False)
        else:
            taken = face_capture(floor, rank, wild=False)
        if len(taken) == len(floor):
            return True
    return False


def reference_capture(
    floor: Sequence[Card], card: Card, rules: Rules
) -> tuple[list[Card], str | None]:
    """(floor cards taken, basra kind) for ``card`` played onto ``floor``."""
    wild_floor = rules.seven_on_floor == "wild"
    lone = floor[0] if len(floor) == 1 else None
    if not floor:
        return [], None
    if is_seven_of_diamonds(card) and rules.seven_diamonds != "plain":
        everything = list(floor)
        if rules.seven_diamonds == "jack":
            return everything, None
        if rules.seven_diamonds == "sum_le_10":
            small = all(value(c) for c in floor) and sum(value(c) for c in floor) <= 10
            return everything, "basra" if small else None
        if lone is not None and lone.rank == "J" and rules.jack_basra == "lone_jack":
            return everything, "jack_basra"
        return everything, "basra" if clears_with_one_rank(floor) else None
    if card.rank == "J":
        lone_jack = lone is not None and lone.rank == "J"
        lone_wild_seven = lone is not None and wild_floor and is_seven_of_diamonds(lone)
        jack_basra = rules.jack_basra == "lone_jack" and (lone_jack or lone_wild_seven)
        return list(floor), "jack_basra" if jack_basra else None
    if card.rank in ("Q", "K"):
        taken = face_capture(floor, card.rank, wild_floor)
    else:
        taken = number_capture(floor, value(card), wild_floor)
    return taken, "basra" if len(taken) == len(floor) else None
