"""What happened in a match, in the past tense. A match is the fold of its events.

Chance is data here: ``RoundDealt`` carries the whole deck it dealt, so replaying a log
never needs a random generator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.engine.cards import Card, codes, parse_cards


@dataclass(frozen=True, slots=True)
class RoundDealt:
    round: int
    dealer: int
    deck: tuple[Card, ...]  # top first, as shuffled (or fixed by the creator)
    fixed: bool = False


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """A move: ``captured`` lists floor cards only; empty means the card was trailed."""

    n: int
    round: int
    seat: int
    card: Card
    captured: tuple[Card, ...]
    basra: str | None

    # One of these is made for every card played. The __init__ a frozen dataclass is
    # given sets each field through object.__setattr__; the slots' own setters (bound
    # below the class) do the same a third faster. Setting a field later still raises.
    def __init__(
        self, n: int, round: int, seat: int, card: Card, captured: tuple[Card, ...],
        basra: str | None,
    ) -> None:  # fmt: skip
        _set_n(self, n)
        _set_round(self, round)
        _set_seat(self, seat)
        _set_card(self, card)
        _set_captured(self, captured)
        _set_basra(self, basra)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "round": self.round,
            "seat": self.seat,
            "card": str(self.card),
            "captured": codes(self.captured),
            "basra": self.basra,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CardPlayed:
        return cls(data["n"], data["round"], data["seat"], Card.parse(data["card"]),
                   parse_cards(data["captured"]), data["basra"])  # fmt: skip


def _slot_setter(cls: type, name: str) -> Callable[[object, Any], None]:
    setter: Callable[[object, Any], None] = cls.__dict__[name].__set__
    return setter


_set_n, _set_round, _set_seat, _set_card, _set_captured, _set_basra = (
    _slot_setter(CardPlayed, name) for name in CardPlayed.__slots__
)


@dataclass(frozen=True, slots=True)
class HandsDealt:
    """Every hand was empty and the stock was not: four more cards to each seat."""

    round: int


@dataclass(frozen=True, slots=True)
class RoundScored:
    round: int
    leftover: tuple[Card, ...]  # the floor at the end, to the last capturer's side
    leftover_side: int | None  # None: nobody captured all round, the leftover is discarded
    cards: tuple[int, ...]  # pile sizes per side, leftover included
    basras: tuple[int, ...]
    jack_basras: tuple[int, ...]
    majority: int | None  # the side given the majority points, if any
    points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchEnded:
    winner: int | None  # None: a draw (end_tie=draw)


@dataclass(frozen=True, slots=True)
class TurnTimedOut:
    """The seat to move let its turn clock run out; ``card`` is played for it next
    (the ``CardPlayed`` that follows). ``in_a_row`` counts this seat's timeouts with no
    card of its own between them."""

    seat: int
    card: Card
    in_a_row: int
    deadline: str  # ISO 8601 UTC: when the turn ran out


@dataclass(frozen=True, slots=True)
class SeatTakenByBot:
    """After ``max_timeouts`` timeouts in a row, a bot plays the seat to the match's end."""

    seat: int
    bot: str


@dataclass(frozen=True, slots=True)
class Resigned:
    """``seat`` resigned for its side, which loses now (a ``MatchEnded`` follows)."""

    seat: int
    side: int


ABANDONED = "abandoned"  # Forfeited.reason: no seat was left to a human (after timeouts)
IDLE = "idle"  # Forfeited.reason: no clock, and the seat to move let the idle limit pass


@dataclass(frozen=True, slots=True)
class Forfeited:
    """Nobody plays for ``seat`` any more, and its side loses as if it had resigned (a
    ``MatchEnded`` follows). ``reason``: `abandoned`, the bot took the last seat a human
    played, after its timeouts (the other side wins, or nobody if its humans left too);
    `idle`, a game with no turn clock whose seat to move let `idle_seconds` pass (the other
    side wins)."""

    seat: int
    side: int
    reason: str


Event = (
    RoundDealt | CardPlayed | HandsDealt | RoundScored | MatchEnded | TurnTimedOut
    | SeatTakenByBot | Resigned | Forfeited
)  # fmt: skip
EVENT_TYPES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (RoundDealt, CardPlayed, HandsDealt, RoundScored, MatchEnded, TurnTimedOut,
                SeatTakenByBot, Resigned, Forfeited)
}  # fmt: skip
_CARD_LISTS = ("deck", "captured", "leftover")
_INT_LISTS = ("cards", "basras", "jack_basras", "points")


def event_to_dict(event: Event) -> dict[str, Any]:
    """The event's fields as JSON-ready data (cards as codes)."""
    data: dict[str, Any] = {}
    for name in event.__slots__:
        value = getattr(event, name)
        if name == "card":
            value = str(value)
        elif name in _CARD_LISTS:
            value = codes(value)
        elif name in _INT_LISTS:
            value = list(value)
        data[name] = value
    return data


def event_from_dict(kind: str, data: dict[str, Any]) -> Event:
    cls = EVENT_TYPES[kind]
    fields: dict[str, Any] = dict(data)
    for name in _CARD_LISTS:
        if name in fields:
            fields[name] = parse_cards(fields[name])
    for name in _INT_LISTS:
        if name in fields:
            fields[name] = tuple(fields[name])
    if "card" in fields:
        fields["card"] = Card.parse(fields["card"])
    event: Event = cls(**fields)
    return event
