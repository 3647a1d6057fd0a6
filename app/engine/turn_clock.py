"""The turn clock (API.md item 13): when the seat to move runs out of time, the card played
for it when it does, and the bot that takes over a seat after too many timeouts in a row (or
the match's end, with no clock, when the idle limit passes). The engine never reads a clock:
the caller says what time it is. Apart from game.py as a rule set of its own over a turn's
rules (plays.py)."""

from __future__ import annotations

import math
from collections.abc import Collection
from datetime import datetime, timedelta

from app.engine.cards import Card
from app.engine.commands import TimeOut
from app.engine.errors import TurnNotOver
from app.engine.events import (
    ABANDONED,
    IDLE,
    Event,
    Forfeited,
    MatchEnded,
    SeatTakenByBot,
    TurnTimedOut,
)
from app.engine.plays import check_turn, decide_play, legal_captures
from app.engine.state import PLAYING, GameState, side_of

TAKEOVER_BOT = "greedy"  # who plays a seat after max_timeouts timeouts in a row


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


def decide_time_out(state: GameState, command: TimeOut) -> list[Event]:
    """The events of a ``TimeOut``, or an ``EngineError``; ``state`` is not changed."""
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
    events.extend(decide_play(state, seat, card))
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
