"""What the live stream (``GET /games/{id}/stream``) makes of each event of the log.

This table is the one place that decides it: a log event type maps to one public record
(``joined``, ``dealt``, ``move``, ``round``, ``timeout``, ``resigned``, ``over``,
``rematch``) or to
nothing. A type that is not in the table (``GameCreated``, ``HandsDealt``, ``SeedRevealed``,
and any type added later until someone maps it) streams nothing, so a new event can never
leak through the stream by accident. A record repeats only public fields, each mapper picking
them one by one (a move is the engine's public dict of ``CardPlayed``, as ``/moves`` answers
it): never a hand, a dealt deck, a seed or a legal move.

To stream a new event type, add a function ``(data, game) -> data or None`` to ``MAPPERS``
under the record's name in ``RECORD_OF``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import orjson

from app.engine import CardPlayed, side_of

# The record names of API.md item 12, in the order a game usually produces them.
RECORD_NAMES = ("joined", "dealt", "move", "round", "timeout", "resigned", "over", "rematch")


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What a few records need besides their own event: the game's row as last read."""

    status: str
    scores: tuple[int, ...]  # match totals per side (final once the game is over)


@dataclass(frozen=True)
class Record:
    """One record of the stream: ``id`` is the version (log seq) of the event it shows."""

    id: int
    event: str
    data: dict[str, Any]

    @cached_property
    def json(self) -> str:
        """The data as compact JSON, made once however many streams send it: orjson, as
        ``json.dumps(data, separators=(",", ":"), ensure_ascii=False)`` writes it, in a fifth of
        the time (it was a tenth of the hub's thread with 1,000 streams, docs/performance.md)."""
        return orjson.dumps(self.data).decode()


Mapper = Callable[[dict[str, Any], GameFacts], dict[str, Any] | None]


def _pick(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: data[key] for key in keys}


def _joined(data: dict[str, Any], _game: GameFacts) -> dict[str, Any]:
    # Not the seat's client seed; a log from before players has no player.
    return {**_pick(data, "seat", "name"), "player": data.get("player")}


def _dealt(data: dict[str, Any], _game: GameFacts) -> dict[str, Any]:
    return _pick(data, "round", "dealer")  # never the deck


def _move(data: dict[str, Any], _game: GameFacts) -> dict[str, Any]:
    # API.md's move, as /moves answers it (log.move_of): the engine's own dict of the event,
    # public through and through; from_dict reads its fields only, so nothing else gets by.
    return CardPlayed.from_dict(data).to_dict()


def _round(data: dict[str, Any], _game: GameFacts) -> dict[str, Any]:
    # A `rounds` entry of the view.
    return _pick(data, "round", "points", "cards", "majority", "basras", "jack_basras")


def _over(data: dict[str, Any], game: GameFacts) -> dict[str, Any]:
    return {"winner": data["winner"], "scores": list(game.scores)}


def _cancelled(_data: dict[str, Any], game: GameFacts) -> dict[str, Any]:
    return {"winner": None, "scores": list(game.scores)}  # nobody joined in time


def _timeout(data: dict[str, Any], _game: GameFacts) -> dict[str, Any]:
    return _pick(data, "seat", "card")


def _resigned(data: dict[str, Any], _game: GameFacts) -> dict[str, Any]:
    return {"side": data["side"] if "side" in data else side_of(data["seat"])}


def _forfeited(data: dict[str, Any], _game: GameFacts) -> dict[str, Any]:
    return _pick(data, "side", "reason")  # streamed as a resignation is: the side lost


def _rematch(data: dict[str, Any], _game: GameFacts) -> dict[str, Any]:
    return _pick(data, "game_id")  # the game over has a rematch: its seats are offered it


# log event type -> (record name, mapper)
MAPPERS: dict[str, tuple[str, Mapper]] = {
    "SeatJoined": ("joined", _joined),
    "RoundDealt": ("dealt", _dealt),
    "CardPlayed": ("move", _move),
    "RoundScored": ("round", _round),
    "TurnTimedOut": ("timeout", _timeout),
    "Resigned": ("resigned", _resigned),
    "Forfeited": ("resigned", _forfeited),
    "MatchEnded": ("over", _over),
    "GameCancelled": ("over", _cancelled),
    "RematchOffered": ("rematch", _rematch),
}


def record_of(seq: int, kind: str, data: dict[str, Any], game: GameFacts) -> Record | None:
    """The stream record of log event ``seq`` (of type ``kind``), or None: not streamed."""
    mapped = MAPPERS.get(kind)
    if mapped is None:
        return None
    name, mapper = mapped
    public = mapper(data, game)
    if public is None:
        return None
    if name == "move":
        public["version"] = seq
    return Record(seq, name, public)
