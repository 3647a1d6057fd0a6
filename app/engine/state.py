"""The complete state of a match: everything, hidden cards included.

Only the engine reads it directly; what a seat may see comes from ``views.observe``.
It is changed only by ``evolution.apply`` (one event at a time), so live play and replay of
the log run the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.engine.cards import Card, codes, parse_cards
from app.engine.events import CardPlayed
from app.engine.rounds import RoundMoves, RoundResults
from app.engine.rules import Rules

DEALING = "dealing"  # waiting for the next round's deck
PLAYING = "playing"
OVER = "over"
HAND_SIZE = 4
SIDES = 2
PLAYER_COUNTS = (2, 4)  # seats at the table: two alone, or four in two sides


def side_of(seat: int) -> int:
    """Seats 0 and 2 are side 0, seats 1 and 3 side 1 (a 2-player seat is its own side)."""
    return seat % SIDES


def dealer_of_round(round_number: int, players: int) -> int:
    return (players - 1 + round_number - 1) % players


@dataclass(slots=True)
class GameState:
    rules: Rules
    players: int
    phase: str = DEALING
    round: int = 0
    dealer: int = 0
    turn: int | None = None
    hands: list[list[Card]] = field(default_factory=list)
    stock: list[Card] = field(default_factory=list)
    floor: list[Card] = field(default_factory=list)
    piles: list[list[Card]] = field(default_factory=list)
    basras: list[int] = field(default_factory=lambda: [0, 0])
    jack_basras: list[int] = field(default_factory=lambda: [0, 0])
    scores: list[int] = field(default_factory=lambda: [0, 0])
    last_capturer: int | None = None
    majority_carry: int = 0  # a tied majority award carried to the next round
    moves: int = 0
    round_moves: RoundMoves = field(default_factory=RoundMoves)
    rounds: RoundResults = field(default_factory=RoundResults)
    discarded: list[Card] = field(default_factory=list)
    fixed_round: bool = False
    winner: int | None = None
    # The turn clock (API.md item 13): each seat's timeouts in a row, the seats a bot took
    # over, and the seat whose timed-out card is being played (between the two events).
    timeouts: list[int] = field(default_factory=list)
    taken_by_bot: list[int] = field(default_factory=list)
    timed_out: int | None = None
    resigned: int | None = None  # the side that resigned or forfeited, if the match ended so

    @classmethod
    def new(cls, rules: Rules, players: int) -> GameState:
        if players not in PLAYER_COUNTS:
            raise ValueError("a match has 2 or 4 players")
        return cls(
            rules=rules,
            players=players,
            hands=[[] for _ in range(players)],
            piles=[[] for _ in range(SIDES)],
            timeouts=[0] * players,
        )

    @property
    def last_move(self) -> CardPlayed | None:
        return self.round_moves[-1] if self.round_moves else None

    def copy(self) -> GameState:
        return GameState(
            rules=self.rules,
            players=self.players,
            phase=self.phase,
            round=self.round,
            dealer=self.dealer,
            turn=self.turn,
            hands=[list(hand) for hand in self.hands],
            stock=list(self.stock),
            floor=list(self.floor),
            piles=[list(pile) for pile in self.piles],
            basras=list(self.basras),
            jack_basras=list(self.jack_basras),
            scores=list(self.scores),
            last_capturer=self.last_capturer,
            majority_carry=self.majority_carry,
            moves=self.moves,
            round_moves=self.round_moves.copy(),
            rounds=self.rounds.copy(),
            discarded=list(self.discarded),
            fixed_round=self.fixed_round,
            winner=self.winner,
            timeouts=list(self.timeouts),
            taken_by_bot=list(self.taken_by_bot),
            timed_out=self.timed_out,
            resigned=self.resigned,
        )

    def to_dict(self, with_rounds: bool = True) -> dict[str, Any]:
        """A JSON-ready snapshot of everything, for storage (never for a client). Without
        its rounds (``with_rounds=False``) it stays the same size however long the match:
        the games table keeps the rounds apart, written only when one is added."""
        snapshot = {
            "rules": self.rules.to_dict(),
            "players": self.players,
            "phase": self.phase,
            "round": self.round,
            "dealer": self.dealer,
            "turn": self.turn,
            "hands": [codes(hand) for hand in self.hands],
            "stock": codes(self.stock),
            "floor": codes(self.floor),
            "piles": [codes(pile) for pile in self.piles],
            "basras": list(self.basras),
            "jack_basras": list(self.jack_basras),
            "scores": list(self.scores),
            "last_capturer": self.last_capturer,
            "majority_carry": self.majority_carry,
            "moves": self.moves,
            "round_moves": self.round_moves.rows(),
            "discarded": codes(self.discarded),
            "fixed_round": self.fixed_round,
            "winner": self.winner,
            "timeouts": list(self.timeouts),
            "taken_by_bot": list(self.taken_by_bot),
            "timed_out": self.timed_out,
            "resigned": self.resigned,
        }
        if with_rounds:
            snapshot["rounds"] = self.rounds.rows()
        return snapshot

    @classmethod
    def from_dict(cls, data: dict[str, Any], rounds: RoundResults | None = None) -> GameState:
        """The state of a snapshot; ``rounds`` when they are kept apart from it. A snapshot
        that holds its rounds (one written before they were kept apart) is read with them."""
        if "rounds" in data or rounds is None:
            rounds = RoundResults(data.get("rounds", ()))
        return cls(
            rules=Rules.from_dict(data["rules"]),
            players=data["players"],
            phase=data["phase"],
            round=data["round"],
            dealer=data["dealer"],
            turn=data["turn"],
            hands=[list(parse_cards(hand)) for hand in data["hands"]],
            stock=list(parse_cards(data["stock"])),
            floor=list(parse_cards(data["floor"])),
            piles=[list(parse_cards(pile)) for pile in data["piles"]],
            basras=list(data["basras"]),
            jack_basras=list(data["jack_basras"]),
            scores=list(data["scores"]),
            last_capturer=data["last_capturer"],
            majority_carry=data["majority_carry"],
            moves=data["moves"],
            round_moves=RoundMoves(data["round_moves"]),
            rounds=rounds,
            discarded=list(parse_cards(data["discarded"])),
            fixed_round=data["fixed_round"],
            winner=data["winner"],
            # Snapshots written before the turn clock existed lack these four.
            timeouts=list(data.get("timeouts") or [0] * data["players"]),
            taken_by_bot=list(data.get("taken_by_bot", [])),
            timed_out=data.get("timed_out"),
            resigned=data.get("resigned"),
        )
