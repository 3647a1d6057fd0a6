"""How an event changes a game's state: ``apply(state, event)``, facts only (no rule is
checked here: game.py's ``decide`` did that). Live play and the replay of a log run this same
code, one event at a time."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from app.engine.capture import BASRA, JACK_BASRA
from app.engine.cards import SEVEN_OF_DIAMONDS, Card
from app.engine.events import (
    CardPlayed,
    Event,
    Forfeited,
    HandsDealt,
    MatchEnded,
    Resigned,
    RoundDealt,
    RoundScored,
    SeatTakenByBot,
    TurnTimedOut,
)
from app.engine.rounds import RoundMoves, RoundResult
from app.engine.rules import Rules
from app.engine.state import DEALING, HAND_SIZE, OVER, PLAYING, SIDES, GameState

FLOOR_SIZE = 4


def evolve(state: GameState, event: Event) -> GameState:
    """A new state: ``state`` after ``event``. ``apply`` is the in-place form."""
    following = state.copy()
    apply(following, event)
    return following


def replay(rules: Rules, players: int, events: Iterable[Event]) -> GameState:
    state = GameState.new(rules, players)
    for event in events:
        apply(state, event)
    return state


def apply(state: GameState, event: Event) -> None:
    """Change ``state`` by one event (facts only: no rule is checked here)."""
    # One dict look-up instead of a chain of isinstance tests: this runs for every card.
    handler = _APPLY.get(type(event))
    if handler is None:  # pragma: no cover - the Event union is closed
        raise TypeError(f"not an event: {event!r}")
    handler(state, event)


def apply_card_played(state: GameState, move: CardPlayed) -> None:
    # Each field read once into a local: this runs for every card.
    seat = move.seat
    card = move.card
    taken = move.captured
    state.hands[seat].remove(card)
    if taken:  # a handful of cards, compared by identity
        state.floor = [c for c in state.floor if c not in taken]
        side = seat % SIDES  # side_of, inlined
        pile = state.piles[side]
        pile.extend(taken)
        pile.append(card)
        state.last_capturer = seat
        basra = move.basra
        if basra == BASRA:
            state.basras[side] += 1
        elif basra == JACK_BASRA:
            state.jack_basras[side] += 1
    else:
        state.floor.append(card)
    if state.timed_out == seat:
        state.timed_out = None  # the card played for a timed-out seat
    else:
        state.timeouts[seat] = 0  # a card of its own ends a run of timeouts
    state.moves = move.n
    state.round_moves.append(move)
    state.turn = (seat + 1) % state.players


def _deal_hands(state: GameState) -> None:
    """Four cards to each seat from the top of the stock, starting after the dealer."""
    players = state.players
    for offset in range(1, players + 1):
        seat = (state.dealer + offset) % players
        state.hands[seat] = state.stock[:HAND_SIZE]
        del state.stock[:HAND_SIZE]


def _apply_round_dealt(state: GameState, dealt: RoundDealt) -> None:
    players = state.players
    state.phase = PLAYING
    state.round = dealt.round
    state.dealer = dealt.dealer
    state.turn = (dealt.dealer + 1) % players
    state.fixed_round = dealt.fixed
    state.stock = list(dealt.deck)
    state.piles = [[] for _ in range(SIDES)]
    state.basras = [0] * SIDES
    state.jack_basras = [0] * SIDES
    state.last_capturer = None
    state.round_moves = RoundMoves()
    state.discarded = []
    _deal_hands(state)
    floor = state.stock[:FLOOR_SIZE]
    del state.stock[:FLOOR_SIZE]
    if state.rules.initial_floor == "bury":
        for position in range(FLOOR_SIZE):
            while _buried_at_start(floor[position]):
                state.stock.append(floor[position])
                floor[position] = state.stock.pop(0)
    state.floor = floor


def _buried_at_start(card: Card) -> bool:
    return card.rank == "J" or card is SEVEN_OF_DIAMONDS


def _apply_round_scored(state: GameState, scored: RoundScored) -> None:
    if scored.leftover_side is None:
        state.discarded = list(scored.leftover)
    else:
        state.piles[scored.leftover_side].extend(scored.leftover)
    state.floor = []
    state.scores = [
        total + points for total, points in zip(state.scores, scored.points, strict=True)
    ]
    if scored.majority is None and state.rules.majority_tie == "carry_over":
        state.majority_carry += state.rules.majority_points
    else:
        state.majority_carry = 0
    state.rounds.append(
        RoundResult(scored.round, scored.points, scored.cards, scored.majority,
                    scored.basras, scored.jack_basras)
    )  # fmt: skip
    state.phase = DEALING
    state.turn = None


def _apply_hands_dealt(state: GameState, _event: HandsDealt) -> None:
    _deal_hands(state)


def _apply_match_ended(state: GameState, ended: MatchEnded) -> None:
    state.phase = OVER
    state.turn = None
    state.winner = ended.winner


def _apply_turn_timed_out(state: GameState, event: TurnTimedOut) -> None:
    state.timeouts[event.seat] = event.in_a_row
    state.timed_out = event.seat


def _apply_seat_taken_by_bot(state: GameState, event: SeatTakenByBot) -> None:
    state.taken_by_bot = sorted({*state.taken_by_bot, event.seat})


def _apply_resigned(state: GameState, event: Resigned | Forfeited) -> None:
    state.resigned = event.side


_APPLY: dict[type[Any], Callable[[GameState, Any], None]] = {
    CardPlayed: apply_card_played,
    HandsDealt: _apply_hands_dealt,
    RoundDealt: _apply_round_dealt,
    RoundScored: _apply_round_scored,
    MatchEnded: _apply_match_ended,
    TurnTimedOut: _apply_turn_timed_out,
    SeatTakenByBot: _apply_seat_taken_by_bot,
    Resigned: _apply_resigned,
    Forfeited: _apply_resigned,  # a forfeit ends the match as a resignation does
}
