"""The use cases that change a game: create, join, play. Each is load, decide, append,
commit; deals that are due and bots whose turn it is play out in the same transaction."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from app.engine import Card, GameNotActive, Play, Resign
from app.engine.fairness import ALGORITHM
from app.engine.plays import check_turn
from app.observability import metrics
from app.services.access import Bearer, seat_of, seated
from app.services.creation import (
    Player,
    check_rated,
    checked_deck,
    checked_rules,
    new_game,
    seat_players,
)
from app.services.deadlines import (
    DEFAULT_WAITING_SECONDS,
    load_settled,
    restamp,
    utc_now,
)
from app.services.errors import (
    AlreadySeated,
    Backlogged,
    Forbidden,
    GameFull,
    IdempotencyConflict,
    PlayerRequired,
    VersionMismatch,
)
from app.services.log import SEAT_JOINED
from app.services.model import ACTIVE, WAITING, GameRecord
from app.services.ratings import settle_end
from app.services.tokens import hash_token, new_token, same_hash
from app.services.turns import Moves, advance, execute, replies_deadline, start
from app.services.unit_of_work import (
    AbstractUnitOfWork,
    StoredResult,
    retrying,
    retrying_locked,
)
from app.services.views import game_view


@dataclass(frozen=True, slots=True)
class Created:
    game_id: str
    status: str
    seats: list[dict[str, Any]]  # each seat, with the token of each human seated now
    rules: dict[str, Any]
    fairness: dict[str, Any]
    moves: Moves  # what bots played inside this request
    state: dict[str, Any]  # the creator's view
    bots_only: bool = False  # to be played in the background (app.background.bot_runner)
    invite: str | None = None  # a game with open seats: what a joiner needs, shown once


@dataclass(frozen=True, slots=True)
class Joined:
    seat: int
    token: str
    moves: Moves
    state: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Played:
    moves: Moves  # the caller's move, then the bots' replies
    state: dict[str, Any]
    replayed: bool = False  # the stored answer to an earlier request with the same key

    def to_dict(self) -> dict[str, Any]:
        return {"moves": self.moves, "state": self.state}


@dataclass(frozen=True, slots=True)
class Access:
    """Who a caller is in a game, and the game's version (a cheap ETag check)."""

    seat: int | None
    version: int


def check_access(
    uow: AbstractUnitOfWork,
    game_id: str,
    token: Bearer,
    seated_only: bool = False,
    now: datetime | None = None,
) -> Access:
    """Refuse an unknown game, then a bad token; one query on the way of every poll (and
    a write first when a deadline has passed: it is settled)."""
    with uow:
        game = load_settled(uow, game_id, now or utc_now())
        seat = seated(uow, game, token) if seated_only else seat_of(uow, game, token)
        return Access(seat, game.version)


def _refuse_past_backlog(uow: AbstractUnitOfWork, backlog: int) -> None:
    """The background runner plays at most half a core's worth of bots a machine: past this
    many active games of bots alone, a new one would only wait behind them."""
    with uow:
        playing = uow.games.count_bots_only_games(up_to=backlog)
    if playing >= backlog:
        raise Backlogged(
            f"the server is already playing {backlog} games of bots alone; try again later"
        )


def create_game(
    uow: AbstractUnitOfWork,
    players: Sequence[Player],
    rules: Mapping[str, Any] | None = None,
    deck: Sequence[str] | None = None,
    public: bool = False,
    waiting_seconds: int = DEFAULT_WAITING_SECONDS,
    now: datetime | None = None,
    bot_backlog: int | None = None,
    rated: bool = False,
) -> Created:
    """A new game; one with no open seat deals at once and its bots play their turns (but a
    game of bots alone, played in the background, refused past ``bot_backlog`` of them). One
    with open seats answers an invite that joining needs, unless it is ``public``; it waits
    ``waiting_seconds`` for its players before it ends cancelled. A ``rated`` one changes its
    players' ratings when it ends (ratings.py)."""
    now = now or utc_now()
    checked = checked_rules(rules, players)
    check_rated(rated, players, deck)
    seats, tokens = seat_players(players)
    game = new_game(checked, seats, checked_deck(deck, players), rated)
    game.public = public
    bots_only = all(seat.bot for seat in seats)
    if bots_only and bot_backlog:  # 0 or None: no limit
        _refuse_past_backlog(uow, bot_backlog)
    invite = None
    moves: Moves = []
    if any(seat.is_open for seat in seats):
        invite = new_token()
        game.invite_hash = hash_token(invite)
    else:
        start(game, moves, play_bots=not bots_only)
    restamp(game, now, waiting_seconds)
    retrying(lambda: _add(uow, game), attempts=1)  # a clash of new ids is a Busy, not a 500
    metrics.game_created()
    metrics.moves_applied(len(moves))
    return _created(game, tokens, moves, invite)


def _created(game: GameRecord, tokens: dict[int, str], moves: Moves, invite: str | None) -> Created:
    return Created(
        game_id=game.id,
        status=game.status,
        seats=[{**s.public(), **_token_of(tokens, s.seat)} for s in game.seats],
        rules=game.state.rules.to_dict(),
        fairness={
            "algorithm": ALGORITHM,
            "commitment": game.commitment,
            "custom_deck": game.custom_deck is not None,
        },
        moves=moves,
        state=game_view(game, min(tokens) if tokens else None),
        bots_only=all(seat.bot for seat in game.seats),
        invite=invite,
    )


def _token_of(tokens: dict[int, str], seat: int) -> dict[str, str]:
    return {"token": tokens[seat]} if seat in tokens else {}


def join_game(
    uow: AbstractUnitOfWork,
    game_id: str,
    name: str,
    seed: str | None = None,
    invite: str | None = None,
    waiting_seconds: int = DEFAULT_WAITING_SECONDS,
    now: datetime | None = None,
    player_id: str | None = None,
) -> Joined:
    """Take the lowest open seat with the game's invite (a public game needs none), for
    ``player_id`` if a player's bearer asks (a rated game's seats are players' only); the
    game deals once the last one is taken, else waits ``waiting_seconds`` more."""
    moment = now or utc_now()
    replies_by = replies_deadline()  # for every retry together

    def attempt() -> Joined:
        with uow:
            game = load_settled(uow, game_id, moment, for_update=True)
            open_seats = [s for s in game.seats if s.is_open]
            if game.status != WAITING or not open_seats:  # public facts: no secret needed
                raise GameFull("every seat of this game is taken")
            if not game.public and not _invited(game, invite):
                raise Forbidden("joining this game needs its invite")
            _check_joiner(game, player_id)
            token = new_token()
            game.seat_player(open_seats[0], name, seed, hash_token(token), player_id)
            joined = {"seat": open_seats[0].seat, "name": name, "seed": seed}
            if player_id is not None:  # logs from before players had none: they still verify
                joined["player"] = player_id
            game.record(SEAT_JOINED, joined)
            moves: Moves = []
            if len(open_seats) == 1:
                start(game, moves, replies_by=replies_by)
            restamp(game, moment, waiting_seconds)
            _save(uow, game)
            uow.commit()
            return Joined(open_seats[0].seat, token, moves, game_view(game, open_seats[0].seat))

    joined = retrying(attempt)
    metrics.moves_applied(len(joined.moves))
    return joined


@dataclass(frozen=True, slots=True)
class PlayCard:
    game_id: str
    token: Bearer
    card: str  # as the client wrote it; checked after the game and the token
    if_match: int | None = None  # the version the client saw, if it insists on it
    idempotency_key: str | None = None


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
        _save(uow, game)
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
            _save(uow, game)
            uow.commit()
            return ResignedGame(game_view(game, seat))

    return retrying(attempt)


def _check_joiner(game: GameRecord, player_id: str | None) -> None:
    if player_id is None:
        if game.rated:
            raise PlayerRequired("a seat of a rated game is taken with a player's bearer")
        return
    if any(seat.player_id == player_id for seat in game.seats):
        raise AlreadySeated("this player already holds a seat of this game")


def _invited(game: GameRecord, invite: str | None) -> bool:
    return invite is not None and same_hash(game.invite_hash, hash_token(invite))


def _fingerprint(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _add(uow: AbstractUnitOfWork, game: GameRecord) -> None:
    with uow:
        uow.games.add(game)
        uow.commit()


def _save(uow: AbstractUnitOfWork, game: GameRecord) -> None:
    game.updated_at = datetime.now(UTC)
    settle_end(uow, game)  # the save that ends a match changes its players' ratings with it
    uow.games.save(game)
