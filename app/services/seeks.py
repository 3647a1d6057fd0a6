"""A player's seek and its use cases: make it, read it, cancel it (API.md item 21). The
pairing itself is matchmaking.py's; the record is model.py's ``SeekRecord``.

A seek is one player's wish to play: the table's size, ``rated``, the effective rules, and
when it may sit with bots. It is ``waiting`` until a pairing pass seats it (``matched``, with
its game and seat), its player cancels it, or ten minutes pass (``expired``); it changes once,
and never again after. Its player's name and rating are copied in when it is made, so that a
pass reads nothing but the waiting seeks.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.services.creation import Player, checked_rules, with_default_clock
from app.services.errors import (
    ConcurrentUpdate,
    Forbidden,
    NotFound,
    ServiceError,
    Unauthorized,
)
from app.services.model import CANCELLED, EXPIRED, WAITING, SeekRecord
from app.services.ports import AbstractUnitOfWork, retrying
from app.services.progress import utc_now

SEEK_SECONDS = 600  # a seek nobody matched expires after ten minutes


def kind_of(players: int, rated: bool, rules: Mapping[str, Any]) -> str:
    """What seeks must share to sit together: the table's size, ``rated`` and the effective
    rules (as a digest of their canonical JSON, so that the column stays short)."""
    canonical = json.dumps(dict(rules), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    return f"{players}:{'rated' if rated else 'casual'}:{digest}"


class AlreadySeeking(ServiceError):
    """A player has one waiting seek at most; the problem names it (``seek_id``)."""

    code = "already_seeking"


class SeekNotWaiting(ServiceError):
    code = "seek_not_waiting"


@dataclass(frozen=True, slots=True)
class Seeking:
    """The player a seek is made for: who holds the bearer, as the players' records say."""

    player_id: str
    name: str
    rating: float


def open_seek(
    uow: AbstractUnitOfWork,
    player: Seeking,
    players: int,
    rated: bool = False,
    rules: Mapping[str, Any] | None = None,
    bot_after: int | None = None,
    now: datetime | None = None,
) -> SeekRecord:
    """A waiting seek; refused while the player has another waiting (``AlreadySeeking``).
    Its game has the default turn clock unless its rules say otherwise."""
    moment = now or utc_now()
    effective = checked_rules(with_default_clock(rules), [Player()] * players).to_dict()
    seek = _waiting_seek(player, players, rated, effective, bot_after, moment)
    # Most players have no seek waiting: the insert alone, which the database's one waiting
    # seek a player (a partial unique index) refuses otherwise. On PostgreSQL that is one
    # message to the server, where a read of the player's seeks first made it three.
    try:
        with uow:
            uow.seeks.add(seek)
            uow.commit()
        return seek
    except ConcurrentUpdate:  # one is waiting: say which, or expire it if out of time
        pass

    def attempt() -> SeekRecord:
        with uow:
            first = uow.seeks.waiting_of(player.player_id)
            if first is not None and first.expires_at > moment:
                raise AlreadySeeking(
                    f"player {player.player_id} is already seeking a game: seek {first.id}",
                    seek_id=first.id,
                )
            if first is not None:  # out of time, and no pass has said so yet
                uow.seeks.settle(first.id, EXPIRED, moment)
            uow.seeks.add(seek)  # a second seek made at once: a lost race, and a 409 after
            uow.commit()
            return seek

    return retrying(attempt)


def _waiting_seek(
    player: Seeking,
    players: int,
    rated: bool,
    rules: dict[str, Any],
    bot_after: int | None,
    now: datetime,
) -> SeekRecord:
    return SeekRecord(
        id=secrets.token_hex(8),
        player_id=player.player_id,
        name=player.name,
        rating=player.rating,
        players=players,
        rated=rated,
        rules=rules,
        kind=kind_of(players, rated, rules),
        bot_after=bot_after,
        status=WAITING,
        created_at=now,
        expires_at=now + timedelta(seconds=SEEK_SECONDS),
        bots_at=None if bot_after is None else now + timedelta(seconds=bot_after),
    )


def seek_of(
    uow: AbstractUnitOfWork, seek_id: str, player_id: str | None, now: datetime | None = None
) -> SeekRecord:
    """The player's seek as it is now (one out of time reads as ``expired``, and is so)."""
    moment = now or utc_now()
    with uow:
        seek = _owned(uow, seek_id, player_id)
        if seek.status != WAITING or seek.expires_at > moment:
            return seek
    retrying(lambda: _settled(uow, seek_id, EXPIRED, moment, quietly=True))
    with uow:
        return _owned(uow, seek_id, player_id)


def cancel_seek(
    uow: AbstractUnitOfWork, seek_id: str, player_id: str | None, now: datetime | None = None
) -> None:
    """End the player's waiting seek (``SeekNotWaiting`` once it is matched, cancelled or
    expired)."""
    moment = now or utc_now()
    with uow:
        seek = _owned(uow, seek_id, player_id)
    if seek.status == WAITING and seek.expires_at <= moment:
        seek_of(uow, seek_id, player_id, moment)  # it expired first
        seek.status = EXPIRED
    if seek.status != WAITING:
        raise SeekNotWaiting(f"seek {seek_id} is {seek.status}: only a waiting seek is cancelled")
    retrying(lambda: _settled(uow, seek_id, CANCELLED, moment))


def _settled(
    uow: AbstractUnitOfWork, seek_id: str, status: str, now: datetime, quietly: bool = False
) -> None:
    """Settle a waiting seek in a transaction of its own; one that stopped waiting meanwhile
    (a pass matched it first) refuses a cancellation, and is left as it is by an expiry."""
    with uow:
        seek = uow.seeks.get(seek_id)
        if seek is None or seek.status != WAITING:
            if quietly:
                return
            found = seek.status if seek is not None else "gone"
            raise SeekNotWaiting(f"seek {seek_id} is {found}: only a waiting seek is cancelled")
        uow.seeks.settle(seek_id, status, now)
        uow.commit()


def _owned(uow: AbstractUnitOfWork, seek_id: str, player_id: str | None) -> SeekRecord:
    """The seek (404), for its own player only (401 with no player, 403 for another)."""
    seek = uow.seeks.get(seek_id)
    if seek is None:
        raise NotFound(f"no seek {seek_id!r}")
    if player_id is None:
        raise Unauthorized("this needs its player's bearer: Authorization: Bearer <token>")
    if seek.player_id != player_id:
        raise Forbidden("this seek is another player's")
    return seek
