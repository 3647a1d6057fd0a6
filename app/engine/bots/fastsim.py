"""A lean round simulator for the bots' play-outs.

Cards are their canonical indices 0..51 and the floor is a 52-bit mask, so taking cards
is one ``&`` and counting them one ``bit_count``. What a card takes never depends on
the order of the floor (equal values are taken in canonical suit order), so the
engine's ``find_capture`` is asked once per (floor mask, card) and the answer kept.
It plays one round exactly as ``game.py`` does; only the hidden cards are invented.
"""

from __future__ import annotations

from app.engine.capture import BASRA, JACK_BASRA, find_capture
from app.engine.cards import FULL_DECK
from app.engine.rules import Rules

HAND_SIZE = 4
CARD_BITS = (1 << 52) - 1
KIND_SHIFT = 52  # a table entry is captured mask | kind << 52; kind 1 basra, 2 jack basra
NO_BASRA, BASRA_KIND, JACK_KIND = 0, 1, 2
RANK = tuple(card.index % 13 for card in FULL_DECK)  # 0 = A .. 9 = 10, 10 J, 11 Q, 12 K
JACK_RANK = 10
SEVEN_D = 2 * 13 + 6
_MAX_ENTRIES = 400_000


# The kinds of card a threat is counted in: the 13 ranks (the 7D left out of the
# sevens) and the 7D alone, each as the mask of its cards.
KIND_MASKS = tuple(
    sum(1 << (suit * 13 + rank) for suit in range(4) if suit * 13 + rank != SEVEN_D)
    for rank in range(13)
) + (1 << SEVEN_D,)
SEVEN_KIND = 13


class CaptureTable:
    """The capture of every (floor mask, card) met so far under one set of options."""

    __slots__ = ("memo", "rules", "threat_memo")

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.memo: dict[int, int] = {}
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


def iter_bits(mask: int) -> list[int]:
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


class Round:
    """One round in play: every hand known (sampled), the stock in order, top first."""

    __slots__ = (
        "table", "players", "hands", "stock", "floor", "cards", "points", "last_side",
        "turn", "dealer", "in_hands", "final_basra", "basra_points", "jack_points",
        "majority", "out",
    )  # fmt: skip

    table: CaptureTable
    players: int
    hands: list[list[int]]
    stock: list[int]
    floor: int
    cards: list[int]  # pile sizes per side
    points: list[int]  # basra and jack basra points per side so far
    last_side: int  # side of the last capturer, -1 for nobody yet
    turn: int
    dealer: int
    in_hands: int
    final_basra: bool
    basra_points: int
    jack_points: int
    majority: int  # the majority award this round, any carried tie included
    out: int  # mask of the cards no longer hidden anywhere: the floor and the piles

    def copy(self) -> Round:
        other = Round.__new__(Round)
        other.table = self.table
        other.players = self.players
        other.hands = [list(hand) for hand in self.hands]
        other.stock = list(self.stock)
        other.floor = self.floor
        other.cards = list(self.cards)
        other.points = list(self.points)
        other.last_side = self.last_side
        other.turn = self.turn
        other.dealer = self.dealer
        other.in_hands = self.in_hands
        other.final_basra = self.final_basra
        other.basra_points = self.basra_points
        other.jack_points = self.jack_points
        other.majority = self.majority
        other.out = self.out
        return other

    @property
    def over(self) -> bool:
        return self.in_hands == 0

    def play(self, card: int) -> None:
        seat = self.turn
        self.hands[seat].remove(card)
        final = self.in_hands == 1 and not self.stock
        self.in_hands -= 1
        floor = self.floor
        result = self.table.capture(floor, card)
        captured = result & CARD_BITS
        if captured:
            side = seat & 1
            self.floor = floor ^ captured
            self.cards[side] += captured.bit_count() + 1
            self.last_side = side
            kind = result >> KIND_SHIFT
            if kind == JACK_KIND:
                self.points[side] += self.jack_points
            elif kind and (self.final_basra or not final):
                self.points[side] += self.basra_points
        else:
            self.floor = floor | (1 << card)
        self.out |= 1 << card
        self.turn = (seat + 1) % self.players
        if not self.in_hands and self.stock:
            self.deal()

    def deal(self) -> None:
        players = self.players
        for offset in range(1, players + 1):
            seat = (self.dealer + offset) % players
            self.hands[seat] = self.stock[:HAND_SIZE]
            del self.stock[:HAND_SIZE]
        self.in_hands = HAND_SIZE * players

    def outcome(self, side: int) -> float:
        """Points of ``side`` minus the other side's for the round as it stands
        (scored exactly once the last card is played)."""
        cards = list(self.cards)
        if self.last_side >= 0:
            cards[self.last_side] += self.floor.bit_count()
        margin = self.points[side] - self.points[1 - side]
        if cards[side] != cards[1 - side]:
            margin += self.majority if cards[side] > cards[1 - side] else -self.majority
        return margin
