"""The rules as a state machine: ``decide(state, command) -> events`` here, and
``apply(state, event)`` in evolution.py. Playing and replaying a log run the same ``apply``.
A card played is decided in plays.py, a turn whose time ran out in turn_clock.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from itertools import repeat

from app.engine.cards import FULL_DECK, Card
from app.engine.commands import Command, Deal, Play, Resign, TimeOut
from app.engine.errors import GameNotActive, InvalidDeck, NotDealing, NotYourTurn
from app.engine.events import CardPlayed, Event, MatchEnded, Resigned, RoundDealt
from app.engine.evolution import apply, apply_card_played
from app.engine.plays import decide_play
from app.engine.rules import Rules
from app.engine.state import DEALING, OVER, GameState, dealer_of_round, side_of
from app.engine.turn_clock import decide_time_out


def decide(state: GameState, command: Command) -> list[Event]:
    """The events ``command`` causes, or an ``EngineError``; ``state`` is not changed."""
    if isinstance(command, Play):  # first: by far the most common command
        return decide_play(state, command.seat, command.card)
    if isinstance(command, Deal):
        return [_deal(state, command)]
    if isinstance(command, TimeOut):
        return decide_time_out(state, command)
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


def _resign(state: GameState, seat: int) -> list[Event]:
    if state.phase == OVER or state.round == 0:
        raise GameNotActive("the match is not being played")
    if not 0 <= seat < state.players:
        raise NotYourTurn(f"there is no seat {seat}")
    side = side_of(seat)
    return [Resigned(seat, side), MatchEnded(winner=1 - side)]


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
        # the same ``decide_play`` and ``apply``, on the engine's hottest path.
        # The first event is always the CardPlayed: applied without apply's dispatch.
        state = self.state
        events = decide_play(state, seat, card)
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
