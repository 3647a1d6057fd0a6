"""The use cases that change a game: create, join, play. Each is load, decide, append,
commit; bots to move and rounds to deal are played out inside the same transaction."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app import metrics
from app.engine import (
    DEALING,
    OVER,
    PLAYING,
    Card,
    CardPlayed,
    Deal,
    GameState,
    InvalidDeck,
    MatchEnded,
    Play,
    Rules,
    apply,
    decide,
    observe,
    parse_cards,
)
from app.engine.bots import BOT_NAMES, choose_card
from app.engine.fairness import ALGORITHM, client_seed, commitment, new_server_seed, shuffled_deck
from app.engine.game import check_deck, check_turn
from app.engine.rules import check_can_score
from app.persistence import Database, GameRepository, GameRow, IdempotentResponseRow, SeatRow
from app.services import transactions
from app.services.errors import GameFull, IdempotencyConflict, InvalidRequest, VersionMismatch
from app.services.loading import (
    ACTIVE,
    FINISHED,
    WAITING,
    LoadedGame,
    find_seat,
    game_view,
    is_open,
    load,
)
from app.services.log import GAME_CREATED, GENESIS_HASH, SEAT_JOINED, SEED_REVEALED
from app.services.tokens import hash_token, new_token

# The longest an expert bot searches for one move, and all the bots' replies to one request
# together (past it each searches its minimum): on a busy server a move answered by three
# expert bots stays well under 5 seconds. Idle, a decision takes 0.04 s (at most 0.2).
BOT_DECISION_SECONDS = 1.0
BOT_REPLIES_SECONDS = 1.5


@dataclass(frozen=True)
class Created:
    game_id: str
    body: dict[str, Any]
    bots_only: bool = False  # to be played in the background (app.bot_runner)


def create_game(db: Database, spec: dict[str, Any]) -> Created:
    """``spec`` is the validated body of ``POST /games``."""
    try:
        rules = Rules.from_dict(spec.get("rules"))
        check_can_score(rules)
    except Exception as error:  # InvalidRules: report every bad key at once
        raise InvalidRequest(str(error), errors={"rules": getattr(error, "errors", {})}) from error
    deck = _custom_deck(spec.get("deck"))
    players = spec["players"]
    if len(players) not in (2, 4):
        raise InvalidRequest("a game has 2 or 4 players", errors={"players": "2 or 4 entries"})
    bots_only = all(player.get("bot") for player in players)
    seed = new_server_seed()
    now = datetime.now(UTC)
    game_id = secrets.token_hex(8)
    tokens: dict[int, str] = {}
    seats = []
    for number, player in enumerate(players):
        seat = SeatRow(game_id=game_id, seat=number, seed=player.get("seed"))
        if player.get("bot"):
            seat.bot = player["bot"]
            seat.name = player.get("name") or BOT_NAMES[player["bot"]]
        elif not player.get("open"):
            tokens[number] = new_token()
            seat.name = player["name"]
            seat.token_hash = hash_token(tokens[number])
        seats.append(seat)
    state = GameState.new(rules, len(players))
    row = GameRow(
        id=game_id,
        status=WAITING,
        version=0,
        players=len(players),
        rules=rules.to_dict(),
        snapshot={},
        server_seed=seed.hex(),
        commitment=commitment(seed),
        client_seed=None,
        custom_deck=[str(c) for c in deck] if deck else None,
        winner=None,
        last_hash=GENESIS_HASH,
        created_at=now,
        updated_at=now,
    )
    game = LoadedGame(row, seats, state)
    game.writer.append(
        GAME_CREATED,
        {
            "players": [_seat_public(s) for s in seats],
            "rules": rules.to_dict(),
            "algorithm": ALGORITHM,
            "commitment": row.commitment,
            "custom_deck": deck is not None,
        },
    )
    moves: list[dict[str, Any]] = []
    if not any(is_open(s) for s in seats):
        # A game of bots alone is dealt here and played by app.bot_runner, outside this
        # request: a whole match may take minutes of an expert bot's time.
        _start(game, moves, play_bots=not bots_only)

    def insert(repo: GameRepository) -> None:
        _stamp(game)
        repo.add_game(game.row, seats)
        repo.append_events(game.new_events)
        repo.commit()

    transactions.run(db, insert, attempts=1)
    metrics.game_created()
    metrics.moves_applied(len(moves))
    viewer = min(tokens) if tokens else None
    body = {
        "id": game_id,
        "status": row.status,
        "seats": [
            {
                "seat": s.seat,
                "name": s.name,
                "bot": s.bot,
                "open": is_open(s),
                **({"token": tokens[s.seat]} if s.seat in tokens else {}),
            }
            for s in seats
        ],
        "rules": rules.to_dict(),
        "fairness": {
            "algorithm": ALGORITHM,
            "commitment": row.commitment,
            "custom_deck": deck is not None,
        },
        "moves": moves,
        "state": game_view(game, viewer),
    }
    return Created(game_id, body, bots_only)


def join_game(
    db: Database, game_id: str, read_body: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    replies_by = time.monotonic() + BOT_REPLIES_SECONDS  # for every retry together

    def use_case(repo: GameRepository) -> dict[str, Any]:
        game = load(repo, game_id, for_update=True)
        body = read_body()
        open_seats = [s for s in game.seats if is_open(s)]
        if game.row.status != WAITING or not open_seats:
            raise GameFull("every seat of this game is taken")
        seat = open_seats[0]
        token = new_token()
        seat.name, seat.seed, seat.token_hash = body["name"], body.get("seed"), hash_token(token)
        repo.save_seat(seat)
        game.writer.append(SEAT_JOINED, {"seat": seat.seat, "name": seat.name, "seed": seat.seed})
        moves: list[dict[str, Any]] = []
        if len(open_seats) == 1:
            _start(game, moves, replies_by=replies_by)
        _save(repo, game)
        return {
            "seat": seat.seat,
            "token": token,
            "moves": moves,
            "state": game_view(game, seat.seat),
        }

    joined = transactions.run(db, use_case)
    metrics.moves_applied(len(joined["moves"]))
    return joined


@dataclass(frozen=True)
class MoveRequest:
    game_id: str
    token: str | None
    read_body: Callable[[], dict[str, Any]]
    if_match: int | None = None
    idempotency_key: str | None = None


def play_move(db: Database, request: MoveRequest) -> tuple[int, dict[str, Any]]:
    """Play the caller's card, then any bot replies; (status, body) as API.md says."""
    applied: list[int] = [0]  # moves of the attempt that committed (none for a replay)

    replies_by = time.monotonic() + BOT_REPLIES_SECONDS  # for every retry together

    def use_case(repo: GameRepository) -> tuple[int, dict[str, Any]]:
        applied[0] = 0
        game = load(repo, request.game_id, for_update=True)
        seat = find_seat(repo, game.row.id, game.seats, request.token, required=True)
        assert seat is not None
        body = request.read_body()
        card = Card.parse(body["card"])
        fingerprint = _fingerprint(body)
        if request.idempotency_key is not None:
            stored = repo.idempotent_response(game.row.id, seat, request.idempotency_key)
            if stored is not None:
                if stored.request_hash != fingerprint:
                    raise IdempotencyConflict("this Idempotency-Key was used with another body")
                return stored.status, stored.body
        check_turn(game.state, seat)  # API.md's order: 409, then 412, then card_not_in_hand
        if request.if_match is not None and request.if_match != game.row.version:
            raise VersionMismatch(
                f"the game is at version {game.row.version}", version=game.row.version
            )
        moves: list[dict[str, Any]] = []
        _execute(game, Play(seat, card), moves)
        _advance(game, moves, replies_by=replies_by)
        _write(repo, game)  # before the view, which answers the version this move makes
        result = {"moves": moves, "state": game_view(game, seat)}
        if request.idempotency_key is not None:
            repo.add_idempotent_response(
                IdempotentResponseRow(
                    game_id=game.row.id,
                    seat=seat,
                    key=request.idempotency_key,
                    request_hash=fingerprint,
                    status=201,
                    body=result,
                    created_at=datetime.now(UTC),
                )
            )
        repo.commit()
        applied[0] = len(moves)
        return 201, result

    answer = transactions.run(db, use_case)
    metrics.moves_applied(applied[0])
    return answer


def _fingerprint(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _custom_deck(codes: list[str] | None) -> tuple[Card, ...] | None:
    if codes is None:
        return None
    deck = parse_cards(codes)
    try:
        check_deck(deck)
    except InvalidDeck as error:
        raise InvalidRequest(error.detail, errors={"deck": error.detail}) from error
    return deck


def _seat_public(seat: SeatRow) -> dict[str, Any]:
    return {
        "seat": seat.seat,
        "name": seat.name,
        "bot": seat.bot,
        "open": is_open(seat),
        "seed": seat.seed,
    }


def _start(
    game: LoadedGame,
    moves: list[dict[str, Any]],
    play_bots: bool = True,
    replies_by: float | None = None,
) -> None:
    """Every seat is filled: fix the client seed, deal round 1, let bots move."""
    game.row.client_seed = client_seed([None if s.bot else s.seed for s in game.seats])
    game.row.status = ACTIVE
    if play_bots:
        _advance(game, moves, replies_by=replies_by)
    else:
        _execute(game, Deal(*_deck_for(game, 1)), moves)


def _advance(
    game: LoadedGame,
    moves: list[dict[str, Any]],
    deadline: float | None = None,
    replies_by: float | None = None,
) -> None:
    """Deal every round that is due and play every bot whose turn it is (until ``deadline``,
    a ``time.monotonic()`` value, if one is given: the rest is played later). Expert bots
    search until ``replies_by`` at the latest (BOT_REPLIES_SECONDS from now if not given)."""
    state = game.state
    if replies_by is None:
        replies_by = time.monotonic() + BOT_REPLIES_SECONDS
    while deadline is None or time.monotonic() < deadline:
        if state.phase == DEALING:
            _execute(game, Deal(*_deck_for(game, state.round + 1)), moves)
        elif state.phase == PLAYING and state.turn is not None and game.seats[state.turn].bot:
            level = game.seats[state.turn].bot or "random"
            started = time.perf_counter()
            decide_by = min(time.monotonic() + BOT_DECISION_SECONDS, replies_by)
            card = choose_card(level, observe(state, state.turn), _bot_random(game), decide_by)
            metrics.bot_decided(level, time.perf_counter() - started)
            _execute(game, Play(state.turn, card), moves)
        else:
            return


def _execute(game: LoadedGame, command: Deal | Play, moves: list[dict[str, Any]]) -> None:
    for event in decide(game.state, command):
        apply(game.state, event)
        game.writer.append_engine(event)
        if isinstance(event, CardPlayed):
            moves.append(event.to_dict())
        elif isinstance(event, MatchEnded):
            game.row.status = FINISHED
            game.row.winner = event.winner
            game.writer.append(
                SEED_REVEALED,
                {
                    "algorithm": ALGORITHM,
                    "server_seed": game.row.server_seed,
                    "client_seed": game.row.client_seed,
                },
            )
    assert game.state.phase != OVER or game.row.status == FINISHED


def _deck_for(game: LoadedGame, round_number: int) -> tuple[tuple[Card, ...], bool]:
    if round_number == 1 and game.row.custom_deck:
        return parse_cards(game.row.custom_deck), True
    seed = bytes.fromhex(game.row.server_seed)
    return shuffled_deck(seed, game.row.client_seed or "", round_number), False


def _bot_random(game: LoadedGame) -> random.Random:
    """Bots' randomness: secret while the game is on, reproducible from the seed after."""
    seed = bytes.fromhex(game.row.server_seed)
    digest = hmac.new(seed, f"bot|{game.state.moves}".encode(), hashlib.sha256).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _stamp(game: LoadedGame) -> None:
    game.row.snapshot = game.state.to_dict()
    game.row.version = game.writer.seq
    game.row.last_hash = game.writer.last_hash
    game.row.updated_at = datetime.now(UTC)


def _write(repo: GameRepository, game: LoadedGame) -> None:
    """Write the game's new state and events into the open transaction (no commit)."""
    _stamp(game)
    repo.save_game(game.row, game.loaded_version)
    repo.append_events(game.new_events)


def _save(repo: GameRepository, game: LoadedGame) -> None:
    _write(repo, game)
    repo.commit()
