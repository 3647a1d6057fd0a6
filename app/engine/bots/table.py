"""What a card takes, on bit masks, memoised: the heart of the bots' play-outs.

Cards are their canonical indices 0..51 and the floor is a 52-bit mask, so taking cards
is one ``&`` and counting them one ``bit_count``. What a card takes never depends on
the order of the floor (equal values are taken in canonical suit order), so each
(floor mask, card) is worked out once, with the engine's own group search, and kept.
"""

from __future__ import annotations

from app.engine.capture import BASRA, JACK_BASRA, best_value_counts, find_capture
from app.engine.cards import FULL_DECK
from app.engine.rules import Rules

HAND_SIZE = 4
CARD_BITS = (1 << 52) - 1
KIND_SHIFT = 52  # a table entry is captured mask | kind << 52; kind 1 basra, 2 jack basra
NO_BASRA, BASRA_KIND, JACK_KIND = 0, 1, 2
RANK = tuple(card.index % 13 for card in FULL_DECK)  # 0 = A .. 9 = 10, 10 J, 11 Q, 12 K
JACK_RANK = 10
SEVEN_D = 2 * 13 + 6
_MAX_ENTRIES = 250_000  # per memo; a full memo is emptied and refilled


RANK_MASKS = tuple(sum(1 << (suit * 13 + rank) for suit in range(4)) for rank in range(13))
# For a number card of rank r: the cards of value <= its own, and the 7D.
LOW_MASKS = tuple(
    sum(RANK_MASKS[lower] for lower in range(rank + 1)) | (1 << SEVEN_D) for rank in range(10)
)
# The kinds of card a threat is counted in: the 13 ranks (the 7D left out of the
# sevens) and the 7D alone, each as the mask of its cards.
KIND_MASKS = (*(RANK_MASKS[rank] & ~(1 << SEVEN_D) for rank in range(13)), 1 << SEVEN_D)
SEVEN_KIND = 13


class CaptureTable:
    """The capture of every (floor mask, card) met so far under one set of options."""

    __slots__ = ("groups", "memo", "rules", "threat_memo")

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.memo: dict[int, int] = {}
        self.groups: dict[int, int] = {}
        self.threat_memo: dict[int, tuple[tuple[int, int], ...]] = {}

    def capture(self, floor: int, card: int) -> int:
        key = (floor << 6) | card
        result = self.memo.get(key)
        if result is None:
            result = self._compute(floor, card)
            if len(self.memo) >= _MAX_ENTRIES:
                self.memo.clear()
            self.memo[key] = result
        return result

    def _compute(self, floor: int, card: int) -> int:
        """RULES.md 3 on masks; the engine's own ``best_value_counts`` picks the groups.
        The 7D from hand (rare, and the rule with most options) asks ``find_capture``."""
        if not floor:
            return 0
        rank = RANK[card]
        wild = self.rules.seven_on_floor == "wild"
        if card == SEVEN_D and self.rules.seven_diamonds != "plain":
            return self._from_engine(floor, card)
        if rank == JACK_RANK:
            taken = floor
            lone = floor.bit_count() == 1 and (
                bool(floor & RANK_MASKS[JACK_RANK]) or (wild and floor == 1 << SEVEN_D)
            )
            kind = JACK_KIND if lone and self.rules.jack_basra != "off" else NO_BASRA
            return taken | (kind << KIND_SHIFT)
        joker = floor & (1 << SEVEN_D) if wild else 0
        if rank > JACK_RANK:
            taken = (floor & RANK_MASKS[rank]) | joker
        else:
            taken = self._number(floor & LOW_MASKS[rank], rank + 1, joker)
        return taken | ((BASRA_KIND if taken == floor else NO_BASRA) << KIND_SHIFT)

    def _number(self, relevant: int, value: int, joker: int) -> int:
        """Only the floor cards a number card may take matter, and not its suit: this
        second memo is hit far more often than the first."""
        key = (relevant << 4) | value
        taken = self.groups.get(key)
        if taken is None:
            taken = _number_capture(relevant, value, joker)
            if len(self.groups) >= _MAX_ENTRIES:
                self.groups.clear()
            self.groups[key] = taken
        return taken

    def _from_engine(self, floor: int, card: int) -> int:
        cards = [FULL_DECK[i] for i in iter_bits(floor)]
        found = find_capture(cards, FULL_DECK[card], self.rules)
        mask = 0
        for taken in found.captured:
            mask |= 1 << taken.index
        kind = {BASRA: BASRA_KIND, JACK_BASRA: JACK_KIND}.get(found.basra or "", NO_BASRA)
        return mask | (kind << KIND_SHIFT)

    def threats(self, floor: int) -> tuple[tuple[int, int], ...]:
        """(mask of a kind of card, what it scores) for each kind that would clear
        ``floor`` with a basra or jack basra: what an opponent holding one would gain."""
        found = self.threat_memo.get(floor)
        if found is None:
            found = self._threats(floor) if floor else ()
            if len(self.threat_memo) >= _MAX_ENTRIES:
                self.threat_memo.clear()
            self.threat_memo[floor] = found
        return found

    def _threats(self, floor: int) -> tuple[tuple[int, int], ...]:
        found = []
        for kind in self._could_clear(floor):
            free = KIND_MASKS[kind] & ~floor
            if not free:
                continue
            card = (free & -free).bit_length() - 1
            basra = self.capture(floor, card) >> KIND_SHIFT
            if basra == BASRA_KIND:
                found.append((KIND_MASKS[kind], self.rules.basra_points))
            elif basra == JACK_KIND:
                found.append((KIND_MASKS[kind], self.rules.jack_basra_points))
        return tuple(found)

    def _could_clear(self, floor: int) -> list[int]:
        """Kinds that pass the cheap necessary tests for clearing ``floor`` (RULES.md 3):
        a number card needs every floor card a number no higher than itself, with the
        rest of the sum a multiple of it unless a wild 7D fills a group; a Q or K needs
        its own rank only; a Jack needs a lone Jack. The 7D may clear whatever another
        kind clears, or a lone Jack. Each candidate is then checked exactly."""
        cards = iter_bits(floor)
        joker = self.rules.seven_on_floor == "wild" and bool(floor >> SEVEN_D & 1)
        ranks = {RANK[card] for card in cards if not (joker and card == SEVEN_D)}
        if not ranks:
            return list(range(len(KIND_MASKS)))
        kinds = []
        if len(ranks) == 1 and min(ranks) >= JACK_RANK:
            kinds.append(min(ranks))
        elif max(ranks) < JACK_RANK:
            values = [RANK[c] + 1 for c in cards if not (joker and c == SEVEN_D)]
            for value in range(max(values), 11):
                rest = sum(v for v in values if v != value)
                if joker or rest % value == 0:
                    kinds.append(value - 1)
        if kinds:
            kinds.append(SEVEN_KIND)
        return kinds


_TABLES: dict[tuple[str, str, str], CaptureTable] = {}


def table_for(rules: Rules) -> CaptureTable:
    """One shared table per combination of the options a capture depends on."""
    key = (rules.seven_diamonds, rules.seven_on_floor, rules.jack_basra)
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = CaptureTable(rules)
    return table


def _number_capture(floor: int, value: int, joker: int) -> int:
    """What a number card of ``value`` takes: its rank, the best disjoint groups of
    lower values, and a wild 7D (``joker``, its bit or 0). Among cards of one value the
    canonical suit order decides, which is the order of the bits."""
    counts = [0] * (value - 1)
    cards = iter_bits(floor & ~joker)
    for card in cards:
        rank = RANK[card]
        if rank < value - 1:
            counts[rank] += 1
    if not any(counts) and not joker:
        return floor & RANK_MASKS[value - 1]
    wanted = list(best_value_counts(value, tuple(counts), bool(joker)))
    taken = joker
    for card in cards:
        rank = RANK[card]
        if rank == value - 1:
            taken |= 1 << card
        elif rank < value - 1 and wanted[rank]:
            wanted[rank] -= 1
            taken |= 1 << card
    return taken


def iter_bits(mask: int) -> list[int]:
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found
