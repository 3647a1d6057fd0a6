"""The use cases of a match under way: a card played (with the bots' replies), and a
resignation. Each is load, decide, append, commit; deals that are due and bots whose turn it
is play out in the same transaction."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.engine import Card, GameNotActive, Play, Resign
from app.engine.plays import check_turn
from app.observability import metrics
from app.services.access import Bearer, seated
from app.services.errors import IdempotencyConflict, VersionMismatch
from app.services.model import ACTIVE, StoredResult
from app.services.ports import AbstractUnitOfWork, retrying, retrying_locked
from app.services.progress import (
    Moves,
    advance,
    execute,
    load_settled,
    replies_deadline,
    restamp,
    save,
    utc_now,
)
from app.services.views import game_view


@dataclass(frozen=True, slots=True)
class PlayCard:
    game_id: str
    token: Bearer
    card: str  # as the client wrote it; checked after the game and the token
    if_match: int | None = None  # the version the client saw, if it insists on it
    idempotency_key: str | None = None


@dataclass(frozen=True, slots=True)
class Played:
    moves: Moves  # the caller's move, then the bots' replies
    state: dict[str, Any]
    replayed: bool = False  # the stored answer to an earlier request with the same key

    def to_dict(self) -> dict[str, Any]:
        return {"moves": self.moves, "state": self.state}


def play_card(uow: AbstractUnitOfWork, command: PlayCard, now: datetime | None = None) -> Played:
    """Play the caller's card, then any bot replies. API.md's order of checks: game,
    token, card code, stored idempotent answer, then turn, version and hand. A turn whose
    clock ran out was played for its seat before this card is looked at. The first attempt
    holds no lock while it decides (a lost race is retried with one: ``retrying_locked``)."""
    moment = now or utc_now()
    begun = time.monotonic()
    replies_by = replies_deadline()  # for every retry together
    played = retrying_locked(
        lambda locked: _play_card_once(uow, command, moment, begun, replies_by, locked)
    )
    if not played.replayed:
        metrics.moves_applied(len(played.moves))
    return played


def _play_card_once(
    uow: AbstractUnitOfWork,
    command: PlayCard,
    now: datetime,
    begun: float,
    replies_by: float,
    locked: bool,
) -> Played:
    key = command.idempotency_key
    with uow:
        game = load_settled(uow, command.game_id, now, for_update=locked, idempotency_key=key)
        seat = seated(uow, game, command.token)
        card = Card.parse(command.card)
        # A move's fingerprint is needed only to keep or compare its answer under a key.
        fingerprint = _fingerprint({"card": command.card}) if key is not None else ""
        stored = uow.games.stored_result(game.id, seat, key) if key is not None else None
        if stored is not None:
            if stored.request_hash != fingerprint:
                raise IdempotencyConflict("this Idempotency-Key was used with another body")
            return Played(**stored.result, replayed=True)
        check_turn(game.state, seat)
        if command.if_match is not None and command.if_match != game.version:
            raise VersionMismatch(f"the game is at version {game.version}", version=game.version)
        moves: Moves = []
        execute(game, Play(seat, card), moves)
        advance(game, moves, replies_by=replies_by)
        # The next seat's clock starts once the answer is ready, bots' replies included, not
        # when the request came in: ``now`` moved on by the time this request has taken.
        restamp(game, now + timedelta(seconds=time.monotonic() - begun))
        save(uow, game)
        played = Played(moves, game_view(game, seat))
        if key is not None:
            uow.games.store_result(game.id, seat, key, StoredResult(fingerprint, played.to_dict()))
        uow.commit()
    return played


@dataclass(frozen=True, slots=True)
class ResignedGame:
    state: dict[str, Any]  # the caller's view of the finished match


def resign_game(
    uow: AbstractUnitOfWork,
    game_id: str,
    token: Bearer,
    now: datetime | None = None,
) -> ResignedGame:
    """The caller's side loses now: the match is over and its seed revealed."""
    moment = now or utc_now()

    def attempt() -> ResignedGame:
        with uow:
            game = load_settled(uow, game_id, moment, for_update=True)
            seat = seated(uow, game, token)
            if game.status != ACTIVE:
                raise GameNotActive("only a match being played can be resigned")
            execute(game, Resign(seat), [])
            restamp(game, moment)
            save(uow, game)
            uow.commit()
            return ResignedGame(game_view(game, seat))

    return retrying(attempt)


def _fingerprint(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()
