"""A lean round simulator for the bots' searches.

It plays one round exactly as ``game.py`` does (tests hold it to that), on the masks of
``table.py``; only the hidden cards are invented, by the sampler in ``knowledge.py``.
"""

from __future__ import annotations

from app.engine.bots.table import (
    CARD_BITS,
    HAND_SIZE,
    JACK_KIND,
    KIND_SHIFT,
    CaptureTable,
)


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
        points = self.round_points()
        return points[side] - points[1 - side]

    def round_points(self) -> list[int]:
        """Each side's points this round as it stands: basras, jack basras, the majority."""
        cards = list(self.cards)
        if self.last_side >= 0:
            cards[self.last_side] += self.floor.bit_count()
        points = list(self.points)
        if cards[0] != cards[1]:
            points[0 if cards[0] > cards[1] else 1] += self.majority
        return points
