"""A turn's rules: whose turn it is, what each card in the hand to move would take, and the
events a card played causes (with the end of a hand or of the round it brings). Apart from
game.py because the turn clock (turn_clock.py) plays a card by these same rules."""

from __future__ import annotations

from app.engine.capture import BASRA, Capture, find_capture
from app.engine.cards import Card
from app.engine.errors import CardNotInHand, GameNotActive, NotYourTurn
from app.engine.events import CardPlayed, Event, HandsDealt
from app.engine.scoring import match_end, score_round
from app.engine.state import PLAYING, GameState


def legal_captures(state: GameState) -> list[Capture]:
    """What each card in the hand of the seat to move would do now."""
    if state.phase != PLAYING or state.turn is None:
        return []
    final = _is_final_play(state)
    return [
        _scored(state, find_capture(state.floor, card, state.rules), final)
        for card in state.hands[state.turn]
    ]


def _is_final_play(state: GameState) -> bool:
    return not state.stock and sum(map(len, state.hands)) == 1


def _scored(state: GameState, capture: Capture, final: bool) -> Capture:
    if final and capture.basra == BASRA and not state.rules.basra_on_final_play:
        return Capture(capture.card, capture.captured, None)
    return capture


def check_turn(state: GameState, seat: int) -> None:
    """Refuse a move by ``seat`` now, whatever the card: the match is off or not its turn."""
    if state.phase != PLAYING:
        raise GameNotActive("the match is not being played")
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn")


def decide_play(state: GameState, seat: int, card: Card) -> list[Event]:
    """The events of ``seat`` playing ``card``, or an ``EngineError``; ``state`` is not changed."""
    if state.phase != PLAYING or seat != state.turn:
        check_turn(state, seat)  # raises the error that says which
    hands = state.hands
    hand = hands[seat]
    if card not in hand:
        raise CardNotInHand(f"{card} is not in seat {seat}'s hand")
    # The card is in ``hand``, so the hands hold one card in all only if ``hand`` holds
    # just it; testing that first skips the sum on three plays in four.
    last_in_hands = len(hand) == 1 and sum(map(len, hands)) == 1
    capture = find_capture(state.floor, card, state.rules)
    if last_in_hands and not state.stock:  # the final play: a basra may not count
        capture = _scored(state, capture, True)
    events: list[Event] = [
        CardPlayed(state.moves + 1, state.round, seat, card, capture.captured, capture.basra)
    ]
    if last_in_hands:
        if state.stock:
            events.append(HandsDealt(state.round))
        else:
            scored = score_round(state, seat, capture)
            events.append(scored)
            ended = match_end(state, scored)
            if ended is not None:
                events.append(ended)
    return events
