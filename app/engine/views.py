"""What one seat (or a spectator) may see of a match: RULES.md section 7.

This is the only place that decides it. The HTTP views and the bots both start from
``observe``; a ``SeatView`` has no field for another seat's hand or for the stock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.engine.capture import Capture
from app.engine.cards import Card, codes
from app.engine.events import CardPlayed
from app.engine.plays import legal_captures
from app.engine.rounds import RoundResults
from app.engine.rules import Rules
from app.engine.state import PLAYING, SIDES, GameState, side_of


@dataclass(frozen=True, slots=True)
class SideView:
    side: int
    seats: tuple[int, ...]
    captured: int  # cards in the pile this round
    basras: int
    jack_basras: int
    score: int  # match total


@dataclass(frozen=True, slots=True)
class SeatView:
    rules: Rules
    players: int
    phase: str
    round: int
    dealer: int
    turn: int | None
    floor: tuple[Card, ...]
    stock_size: int
    hand_sizes: tuple[int, ...]
    sides: tuple[SideView, ...]
    last_capturer: int | None
    round_moves: Sequence[CardPlayed]  # every card played this round and what it took
    rounds: RoundResults  # a copy: later rounds of the match do not change a view
    winner: int | None
    seat: int | None  # None for a spectator
    hand: tuple[Card, ...]  # the seat's own hand; empty for a spectator
    legal_moves: tuple[Capture, ...]  # on the seat's turn: what each of its cards would do
    taken_by_bot: tuple[int, ...] = ()  # seats the bot plays after max_timeouts timeouts
    resigned: int | None = None  # the side that resigned or forfeited, if the match ended so

    @property
    def last_move(self) -> CardPlayed | None:
        return self.round_moves[-1] if self.round_moves else None

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready game part of an API view (the service adds names and ids). Rounds
        loaded from storage are there as the store encoded them (``RoundResults.encoded``)."""
        rounds = self.rounds.encoded
        view: dict[str, Any] = {
            "round": self.round,
            "dealer": self.dealer,
            "turn": self.turn,
            "floor": codes(self.floor),
            "stock": self.stock_size,
            "target_score": self.rules.target_score,
            "seats": [
                {"seat": seat, "side": side_of(seat), "hand_size": size}
                for seat, size in enumerate(self.hand_sizes)
            ],
            "sides": [
                {
                    "side": side.side,
                    "seats": list(side.seats),
                    "captured": side.captured,
                    "basras": side.basras,
                    "jack_basras": side.jack_basras,
                    "score": side.score,
                }
                for side in self.sides
            ],
            "last_capturer": self.last_capturer,
            "last_move": self.last_move.to_dict() if self.last_move else None,
            # Each round's basras and jack basras travel with its points: they made them.
            # Rounds as stored are handed on as stored (already the JSON of their summaries).
            "rounds": self.rounds.summaries() if rounds is None else rounds,
            "winner": self.winner,
            "resigned": self.resigned,
        }
        if self.seat is not None:
            view["you"] = self.seat
            view["hand"] = codes(self.hand)
            if self.turn == self.seat:
                view["legal_moves"] = [
                    {"card": str(c.card), "captured": codes(c.captured), "basra": c.basra}
                    for c in self.legal_moves
                ]
        return view


def observe(state: GameState, seat: int | None) -> SeatView:
    own_turn = seat is not None and state.phase == PLAYING and state.turn == seat
    return SeatView(
        rules=state.rules,
        players=state.players,
        phase=state.phase,
        round=state.round,
        dealer=state.dealer,
        turn=state.turn,
        floor=tuple(state.floor),
        stock_size=len(state.stock),
        hand_sizes=tuple(len(hand) for hand in state.hands),
        sides=tuple(
            SideView(
                side=side,
                seats=tuple(s for s in range(state.players) if side_of(s) == side),
                captured=len(state.piles[side]),
                basras=state.basras[side],
                jack_basras=state.jack_basras[side],
                score=state.scores[side],
            )
            for side in range(SIDES)
        ),
        last_capturer=state.last_capturer,
        round_moves=state.round_moves.copy(),
        rounds=state.rounds.copy(),
        winner=state.winner,
        seat=seat,
        hand=tuple(state.hands[seat]) if seat is not None else (),
        legal_moves=tuple(legal_captures(state)) if own_turn else (),
        taken_by_bot=tuple(state.taken_by_bot),
        resigned=state.resigned,
    )
