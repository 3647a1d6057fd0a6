"""The rules as a state machine: ``decide(state, command) -> events`` here, and
``apply(state, event)`` in evolution.py. Playing and replaying a log run the same ``apply``.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import repeat

from app.engine.capture import BASRA, Capture, find_capture
from app.engine.cards import FULL_DECK, Card
from app.engine.errors import (
    CardNotInHand,
    GameNotActive,
    InvalidDeck,
    NotDealing,
    NotYourTurn,
    TurnNotOver,
)
from app.engine.events import (
    ABANDONED,
    IDLE,
    CardPlayed,
    Event,
    Forfeited,
    HandsDealt,
    MatchEnded,
    Resigned,
    RoundDealt,
    SeatTakenByBot,
    TurnTimedOut,
)
from app.engine.evolution import apply, apply_card_played
from app.engine.rules import Rules
from app.engine.scoring import match_end, score_round
from app.engine.state import (
    DEALING,
    OVER,
    PLAYING,
    GameState,
    dealer_of_round,
    side_of,
)


@dataclass(frozen=True, slots=True)
class Deal:
    """Deal the next round from ``deck`` (top first)."""

    deck: tuple[Card, ...]
    fixed: bool = False


@dataclass(frozen=True, slots=True)
class Play:
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class TimeOut:
    """The turn clock of ``seat`` ran out at ``deadline`` (with no clock: its idle limit);
    it is ``now`` (the caller's clock: the engine never reads one). ``bots``: the seats bots
    play by design (the engine knows only the seats it handed to a bot itself)."""

    seat: int
    deadline: datetime
    now: datetime
    bots: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Resign:
    seat: int


Command = Deal | Play | TimeOut | Resign
TAKEOVER_BOT = "greedy"  # who plays a seat after max_timeouts timeouts in a row


def decide(state: GameState, command: Command) -> list[Event]:
    """The events ``command`` causes, or an ``EngineError``; ``state`` is not changed."""
    if isinstance(command, Play):  # first: by far the most common command
        return _play(state, command.seat, command.card)
    if isinstance(command, Deal):
        return [_deal(state, command)]
    if isinstance(command, TimeOut):
        return _time_out(state, command)
    return _resign(state, command.seat)


def _deal(state: GameState, command: Deal) -> RoundDealt:
    if state.phase != DEALING:
        raise NotDealing("no round is waiting to be dealt")
    check_deck(command.deck)
    next_round = state.round + 1
    return RoundDealt(
        next_round, dealer_of_round(next_round, state.players), command.deck, command.fixed
    )


def check_deck(deck: Sequence[Card]) -> None:
    # Card objects only: 52 distinct codes (or anything else hashable) used to pass the
    # count check and then fail half-way through apply, leaving a half-dealt round.
    # map runs the isinstance tests in C: this runs for every round dealt.
    if (
        len(deck) != len(FULL_DECK)
        or not all(map(isinstance, deck, repeat(Card)))
        or len(set(deck)) != len(FULL_DECK)
    ):
        raise InvalidDeck("a deck is the 52 distinct cards, top first")


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


def timeout_card(state: GameState) -> Card:
    """The card played for a seat whose time ran out: the one that takes the fewest floor
    cards (a trail if it has one), then the lowest rank (A, 2 .. 10, J, Q, K), then the
    first suit (S, H, D, C). Never better than a choice the player could have made, so
    letting the clock run out is no strategy; and fixed, so anyone can check it."""
    return min(
        legal_captures(state),
        key=lambda move: (len(move.captured), move.card.index % 13, move.card.index // 13),
    ).card


def turn_deadline(state: GameState, now: datetime, bots: Collection[int]) -> datetime | None:
    """When the seat to move runs out of time, counted from ``now``: ``turn_seconds``, or
    ``idle_seconds`` with no clock; None when no turn is to be made or a bot makes it
    (``bots`` or a seat taken over)."""
    seat = state.turn
    if state.phase != PLAYING or seat is None:
        return None
    if seat in bots or seat in state.taken_by_bot:
        return None
    seconds = state.rules.turn_seconds
    if seconds is None:
        return idle_deadline(now, state.rules.idle_seconds)
    return now + timedelta(seconds=seconds)


def idle_deadline(now: datetime, seconds: int) -> datetime:
    """``seconds`` from ``now``, rounded up to a whole 96th of them (15 minutes of the default
    day; whole seconds at least): the moves of a game that comes soon after one another leave
    its deadline as it was, so their saves do not rewrite the deadline's index each time."""
    step = max(1, seconds // 96)
    due = (now + timedelta(seconds=seconds)).timestamp()
    return datetime.fromtimestamp(math.ceil(due / step) * step, now.tzinfo)


def _time_out(state: GameState, command: TimeOut) -> list[Event]:
    check_turn(state, command.seat)
    if command.now < command.deadline:
        raise TurnNotOver(f"seat {command.seat} has until {command.deadline.isoformat()}")
    seat = command.seat
    if state.rules.turn_seconds is None:  # no clock: the idle limit passed
        side = side_of(seat)
        return [Forfeited(seat, side, IDLE), MatchEnded(winner=1 - side)]
    card = timeout_card(state)
    in_a_row = state.timeouts[seat] + 1
    deadline = command.deadline.isoformat().replace("+00:00", "Z")
    events: list[Event] = [TurnTimedOut(seat, card, in_a_row, deadline)]
    events.extend(_play(state, seat, card))
    over = any(isinstance(event, MatchEnded) for event in events)
    if in_a_row >= state.rules.max_timeouts and not over:
        events.append(SeatTakenByBot(seat, TAKEOVER_BOT))
        bots = {*command.bots, *state.taken_by_bot, seat}
        if len(bots) == state.players:
            events.extend(_abandoned(state, seat))
    return events


def _abandoned(state: GameState, seat: int) -> list[Event]:
    """The bot took the last seat a human played: the match ends there, the seat's side
    losing (nobody wins if a human of the other side was taken over too). Played on by bots
    alone, a match to a high target was a long run of work nobody asked for."""
    side = side_of(seat)
    left_too = any(side_of(other) != side for other in state.taken_by_bot)
    return [Forfeited(seat, side, ABANDONED), MatchEnded(winner=None if left_too else 1 - side)]


def _resign(state: GameState, seat: int) -> list[Event]:
    if state.phase == OVER or state.round == 0:
        raise GameNotActive("the match is not being played")
    if not 0 <= seat < state.players:
        raise NotYourTurn(f"there is no seat {seat}")
    side = side_of(seat)
    return [Resigned(seat, side), MatchEnded(winner=1 - side)]


def _play(state: GameState, seat: int, card: Card) -> list[Event]:
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


class Game:
    """A match and the log of events that made it: the engine's public entry point."""

    __slots__ = ("state", "events")

    def __init__(self, rules: Rules | None = None, players: int = 2) -> None:
        self.state = GameState.new(rules or Rules(), players)
        self.events: list[Event] = []

    @classmethod
    def from_events(cls, rules: Rules, players: int, events: Iterable[Event]) -> Game:
        game = cls(rules, players)
        for event in events:
            game._record(event)
        return game

    @property
    def needs_deal(self) -> bool:
        return self.state.phase == DEALING

    @property
    def is_over(self) -> bool:
        return self.state.phase == OVER

    def deal(self, deck: Sequence[Card], fixed: bool = False) -> list[Event]:
        return self.execute(Deal(tuple(deck), fixed))

    def play(self, seat: int, card: Card) -> list[Event]:
        # ``execute(Play(seat, card))`` without building the command and dispatching on it:
        # the same ``_play`` and ``apply``, on the engine's hottest path.
        # The first event is always the CardPlayed: applied without apply's dispatch.
        state = self.state
        events = _play(state, seat, card)
        move: CardPlayed = events[0]  # type: ignore[assignment]  # (cast costs a call)
        apply_card_played(state, move)
        if len(events) > 1:  # at the end of a hand or a round only
            for event in events[1:]:
                apply(state, event)
        self.events.extend(events)
        return events

    def time_out(
        self, seat: int, deadline: datetime, now: datetime, bots: frozenset[int] = frozenset()
    ) -> list[Event]:
        return self.execute(TimeOut(seat, deadline, now, bots))

    def resign(self, seat: int) -> list[Event]:
        return self.execute(Resign(seat))

    def execute(self, command: Command) -> list[Event]:
        events = decide(self.state, command)
        for event in events:  # _record, inlined: this runs for every card
            apply(self.state, event)
            self.events.append(event)
        return events

    def _record(self, event: Event) -> None:
        apply(self.state, event)
        self.events.append(event)
