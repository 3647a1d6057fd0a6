"""The expert's review of a finished game: each card a seat played, judged from what that seat
knew when it played it.

A judged move is the seat's view before its card (``observe``: its hand, the floor, every card
played this round and what it took, the hand and stock sizes, the score), never the other hands
or the stock's order, which the finished game's log would reveal. Each card of the hand is given
the value the expert's search finds for it: the round's expected point margin for the seat's
side (its points less the other side's, this round's points so far included, the majority's 30
reckoned), by the expert's own search (``expert.py``: worlds sampled from the view, play-outs
one deal ahead, the majority race reckoned past them, the last deal searched exactly) with a
fixed amount of work and the match left out of it (``match=False``): points, not the odds of
the match.

The search draws its worlds from a ``random.Random`` seeded with a digest of the seat's
knowledge (``knowledge_seed``), and the view is put in a canonical order first (its hand by
card), so the same knowledge gets the same values in any game, however the hidden cards lay,
on any machine.

The whole review is plain data in and out (``judge_log``: the rules, the log's engine events as
dicts, the seats to judge, a range of their moves), so a pool of processes can share it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from app.engine.bots.expert import Expert
from app.engine.bots.knowledge import majority_award
from app.engine.cards import SEVEN_OF_DIAMONDS, Card
from app.engine.events import CardPlayed, Event, TurnTimedOut, event_from_dict
from app.engine.evolution import apply
from app.engine.rules import Rules
from app.engine.state import GameState
from app.engine.views import SeatView, observe

# Card plays one judged move's search may make, all its worlds together (the expert bot's is
# 8,000): a deal's first card gets about 266 worlds, a later one 400.
DEFAULT_WORK = 16_000
PLAYS_PER_WORLD = 40  # the worlds' cap is the work over this: 400 at the default work
DIGITS = 2  # values are kept and shown to the hundredth of a point


def analyst(work: int = DEFAULT_WORK) -> Expert:
    """The expert bot's search, valued in round points, with ``work`` card plays a move."""
    return Expert(
        samples=max(8, work // PLAYS_PER_WORLD),
        budget=work,
        horizon=1,
        wise_defend=1.0,
        match=False,
    )


def canonical(view: SeatView) -> SeatView:
    """The view with its hand and legal moves in card order: the play-outs break ties by the
    hand's order, which is the deal's, not something the seat knows."""
    return dataclasses.replace(
        view,
        hand=tuple(sorted(view.hand, key=_index)),
        floor=tuple(sorted(view.floor, key=_index)),
        legal_moves=tuple(sorted(view.legal_moves, key=lambda move: move.card.index)),
    )


def knowledge_seed(view: SeatView) -> int:
    """A digest of everything the seat knew, and nothing else: the search's seed."""
    facts: dict[str, Any] = {
        "rules": view.rules.to_dict(),
        "players": view.players,
        "seat": view.seat,
        "round": view.round,
        "dealer": view.dealer,
        "turn": view.turn,
        "hand": sorted(card.index for card in view.hand),
        "floor": sorted(card.index for card in view.floor),
        "played": [
            [m.seat, m.card.index, sorted(c.index for c in m.captured)] for m in view.round_moves
        ],
        "sides": [[s.captured, s.basras, s.jack_basras, s.score] for s in view.sides],
        "hand_sizes": list(view.hand_sizes),
        "stock": view.stock_size,
        "last_capturer": view.last_capturer,
        "majority": majority_award(view),
    }
    text = json.dumps(facts, sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def appraise(view: SeatView, work: int = DEFAULT_WORK) -> dict[Card, float]:
    """Each card of the seat's hand (the seat to move) and its value, rounded to ``DIGITS``:
    two cards of one kind (rank, the 7D apart) do the same and get the same value."""
    fair = canonical(view)
    found = analyst(work).appraise(fair, random.Random(knowledge_seed(fair)))
    by_kind = {_kind(card): round(value, DIGITS) for card, value in found}
    return {card: by_kind[_kind(card)] for card in fair.hand}


@dataclass(frozen=True, slots=True)
class Position:
    """A card a judged seat played, and its view just before."""

    n: int  # the move's number in the game, from 1
    seat: int
    card: Card
    view: SeatView


def positions(
    rules: Rules, players: int, events: Iterable[Event], seats: frozenset[int]
) -> Iterator[Position]:
    """Each card a seat of ``seats`` chose itself, in order: a card the server played for it
    (its turn clock ran out, or the bot took its seat after too many) is not the seat's."""
    state = GameState.new(rules, players)
    timed_out: int | None = None
    for event in events:
        if isinstance(event, CardPlayed):
            own = event.seat != timed_out and event.seat not in state.taken_by_bot
            if event.seat in seats and own:
                yield Position(event.n, event.seat, event.card, observe(state, event.seat))
            timed_out = None
        elif isinstance(event, TurnTimedOut):
            timed_out = event.seat
        apply(state, event)


def judge_log(
    rules: dict[str, Any],
    players: int,
    events: Sequence[tuple[str, dict[str, Any]]],
    seats: Sequence[int],
    start: int = 0,
    stop: int | None = None,
    work: int = DEFAULT_WORK,
) -> list[list[Any]]:
    """The judged moves ``start`` to ``stop`` (by their order among every judged move) of a
    log: ``[n, seat, card, [[card, value], ...]]`` each, cards as codes, values in card order.
    Plain data in and out, for a process pool."""
    parsed = (event_from_dict(kind, data) for kind, data in events)
    judged = []
    found = positions(Rules.from_dict(rules), players, parsed, frozenset(seats))
    for index, position in enumerate(found):
        if stop is not None and index >= stop:
            break
        if index < start:
            continue
        values = appraise(position.view, work)
        pairs = [[str(card), value] for card, value in values.items()]
        judged.append([position.n, position.seat, str(position.card), pairs])
    return judged


def count_positions(
    rules: dict[str, Any], players: int, events: Sequence[tuple[str, dict[str, Any]]],
    seats: Sequence[int],
) -> int:  # fmt: skip
    """How many moves ``judge_log`` judges in all."""
    parsed = (event_from_dict(kind, data) for kind, data in events)
    return sum(1 for _ in positions(Rules.from_dict(rules), players, parsed, frozenset(seats)))


def _index(card: Card) -> int:
    return card.index


def _kind(card: Card) -> tuple[str, bool]:
    return card.rank, card is SEVEN_OF_DIAMONDS
