"""The fairness facts as the log states them, not as the ``games`` row does.

The row is a cache an operator (or an attacker with the database) can change without touching
the hash chain; the log is what the chain protects. So the audit reads from the log:

- the client seed, rebuilt from the seeds in ``GameCreated`` (seats seated at creation) and
  ``SeatJoined`` (seats joined later), in seat order, a bot's and a missing seed being "";
- the commitment, as ``GameCreated`` published it;
- the server seed, as ``SeedRevealed`` revealed it;
- whether the creator fixed a deck (``GameCreated.custom_deck``): only then may round 1, and
  only round 1, be dealt unshuffled (``RoundDealt.fixed``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from app.engine.fairness import client_seed
from app.services.log import GAME_CREATED, SEAT_JOINED, SEED_REVEALED


class LoggedEvent(Protocol):
    @property
    def type(self) -> str: ...

    @property
    def data(self) -> Any: ...


@dataclass(frozen=True)
class LoggedFairness:
    commitment: str | None
    client_seed: str | None  # None until every seat is filled
    server_seed: str | None  # None until revealed
    custom_deck: bool


def from_log(events: Iterable[LoggedEvent]) -> LoggedFairness:
    commitment: str | None = None
    custom = False
    seeds: dict[int, str | None] = {}
    bots: set[int] = set()
    open_seats: set[int] = set()
    revealed: str | None = None
    for event in events:
        data = event.data if isinstance(event.data, dict) else {}
        if event.type == GAME_CREATED:
            commitment = data.get("commitment")
            custom = data.get("custom_deck") is True
            for player in data.get("players") or []:
                seat = player.get("seat")
                if not isinstance(seat, int):
                    continue
                seeds[seat] = player.get("seed")
                if player.get("bot"):
                    bots.add(seat)
                if player.get("open"):
                    open_seats.add(seat)
        elif event.type == SEAT_JOINED and isinstance(data.get("seat"), int):
            seeds[data["seat"]] = data.get("seed")
            open_seats.discard(data["seat"])
        elif event.type == SEED_REVEALED:
            revealed = data.get("server_seed")
    filled = bool(seeds) and not open_seats
    ordered = [None if seat in bots else seeds[seat] for seat in sorted(seeds)]
    return LoggedFairness(commitment, client_seed(ordered) if filled else None, revealed, custom)


def fixed_round_allowed(round_number: Any, logged: LoggedFairness) -> bool:
    """A deal marked ``fixed`` is accepted only as round 1 of a game created with ``deck``."""
    return logged.custom_deck and round_number == 1
