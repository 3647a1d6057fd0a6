"""What a caller may ask of a match: the commands ``decide`` (game.py) takes, as events.py
holds what the match says happened. Apart so that the modules that decide them (game.py,
turn_clock.py) share them without importing one another."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.engine.cards import Card


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
