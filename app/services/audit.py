"""Read-only use cases: views, the move list, the event feed, replay, fairness, verify."""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any

from app.engine import EVENT_TYPES_BY_NAME, Event, GameState, Rules, apply, event_from_dict
from app.engine.cards import codes
from app.engine.fairness import ALGORITHM, seed_matches, shuffled_deck
from app.persistence import Database, EventRow, GameRepository
from app.services import audit_cache
from app.services.errors import GameNotFinished, InvalidRequest, NotFound
from app.services.loading import FINISHED, LoadedGame, find_seat, game_view, load
from app.services.log import CARD_PLAYED, GENESIS_HASH, ROUND_DEALT, event_hash, event_json
from app.services.logged_fairness import (
    GAME_CREATED,
    SEAT_JOINED,
    SEED_REVEALED,
    LoggedFairness,
    fixed_round_allowed,
    from_log,
)

MAX_PAGE = 100
EVENTS_PAGE = 200  # events per page of /events unless ?limit= says fewer (at most EVENTS_MAX)
EVENTS_MAX = 1000


def view(db: Database, game_id: str, token: str | None) -> dict[str, Any]:
    with db.session() as session:
        repo = GameRepository(session)
        game = load(repo, game_id)
        seat = find_seat(repo, game_id, game.seats, token, required=False)
        return game_view(game, seat)


def version(db: Database, game_id: str, token: str | None) -> int:
    """Just the version, for a cheap ``If-None-Match`` answer."""
    with db.session() as session:
        repo = GameRepository(session)
        found = repo.get_with_seats(game_id)  # one query: this answers every poll
        if found is None:
            raise NotFound(f"no game {game_id!r}")
        row, seats = found
        find_seat(repo, game_id, seats, token, required=False)
        return row.version


def moves(db: Database, game_id: str) -> list[dict[str, Any]]:
    with db.session() as session:
        repo = GameRepository(session)
        load(repo, game_id)
        return [_move(row) for row in repo.events_of_type(game_id, CARD_PLAYED)]


def _move(row: EventRow) -> dict[str, Any]:
    data = row.data
    return {key: data[key] for key in ("n", "round", "seat", "card", "captured", "basra")}


def events(
    db: Database, game_id: str, token: str | None, after: int, limit: int = EVENTS_PAGE
) -> dict[str, Any]:
    """A page of the log after ``after``: at most ``limit`` events, and ``next_after`` (the
    ``after`` of the next page) while more follow, else None."""
    with db.session() as session:
        repo = GameRepository(session)
        game = load(repo, game_id)
        find_seat(repo, game_id, game.seats, token, required=False)
        redact = not game.is_over
        rows = repo.events(game_id, after, limit + 1)
    page = [event_json(row, redact) for row in rows[:limit]]
    more = len(rows) > limit
    return {"events": page, "next_after": page[-1]["seq"] if more else None}


def fairness(db: Database, game_id: str) -> dict[str, Any]:
    """The shuffle's inputs as the log states them (see logged_fairness), not the row."""
    with db.session() as session:
        repo = GameRepository(session)
        game = load(repo, game_id)
        kinds = (GAME_CREATED, SEAT_JOINED, SEED_REVEALED)
        logged = from_log([row for kind in kinds for row in repo.events_of_type(game_id, kind)])
        return {
            "algorithm": ALGORITHM,
            "commitment": logged.commitment,
            "custom_deck": logged.custom_deck,
            "client_seed": logged.client_seed,
            "server_seed": logged.server_seed if game.is_over else None,
        }


def engine_events(rows: list[EventRow]) -> list[Event]:
    return [event_from_dict(row.type, row.data) for row in rows if row.type in EVENT_TYPES_BY_NAME]


def replay_step(db: Database, game_id: str, step: int) -> dict[str, Any]:
    """The complete state after the first ``step`` moves (0: right after the first deal).
    After the first call for a game, a call replays at most the round that holds the move."""
    with db.session() as session:
        repo = GameRepository(session)
        game = load(repo, game_id)
        if not game.is_over:
            raise GameNotFinished("replay opens once the game is over")
        raw = repo.raw_events(game_id)
    total = sum(1 for row in raw if row.type == CARD_PLAYED)
    if not 0 <= step <= total:
        raise InvalidRequest(f"step must be from 0 to {total}", errors={"step": f"0..{total}"})
    start = GameState.new(Rules.from_dict(game.row.rules), game.row.players)
    checked = audit_cache.verified(game_id, start, raw)
    if checked is not None and checked.checkpoints:
        state, last_seq = audit_cache.replay_from(game_id, checked, raw, step)
    else:  # a log that does not verify: replay it as it stands, from the start
        state, last_seq = _replay_whole(start, _parsed(raw), step)
    snapshot = LoadedGame(game.row, game.seats, state)
    result = game_view(snapshot, None)
    result["version"] = last_seq
    result["status"] = FINISHED if state.phase == "over" else "active"
    result["hands"] = [codes(hand) for hand in state.hands]
    result["stock"] = codes(state.stock)
    result["piles"] = [codes(pile) for pile in state.piles]
    result["stock_size"] = len(state.stock)
    return {"step": step, "moves": total, "state": result}


def _replay_whole(state: GameState, rows: list[EventRow], step: int) -> tuple[GameState, int]:
    played = 0
    last_seq = 0
    for row in rows:
        if row.type == CARD_PLAYED:
            if played == step:
                break
            played += 1
        if row.type in EVENT_TYPES_BY_NAME:
            apply(state, event_from_dict(row.type, row.data))
        last_seq = row.seq
    return state, last_seq


def _parsed(raw: list[Any]) -> list[EventRow]:
    """Raw rows decoded (a row whose data is not JSON keeps its text: the checks report it)."""
    rows = []
    for row in raw:
        try:
            data = json.loads(row.data)
        except ValueError:
            data = row.data
        rows.append(EventRow(seq=row.seq, type=row.type, data=data, at=row.at, hash=row.hash))
    return rows


def verify(db: Database, game_id: str) -> dict[str, Any]:
    with db.session() as session:
        repo = GameRepository(session)
        game = load(repo, game_id)
        raw = repo.raw_events(game_id)
    start = GameState.new(Rules.from_dict(game.row.rules), game.row.players)
    checked = audit_cache.verified(game_id, start, raw)
    same = checked is not None and checked.state.to_dict() == game.state.to_dict()
    ends = checked is not None and checked.events == game.row.version
    if checked is not None and same and ends and raw and raw[-1].hash == game.row.last_hash:
        # Chain and replay hold (only rows after the last unchanged checkpoint were re-checked);
        # the fairness checks below read just the few rows they need.
        needed = (GAME_CREATED, SEAT_JOINED, SEED_REVEALED, ROUND_DEALT)
        rows = _parsed([row for row in raw if row.type in needed])
        checks: dict[str, Any] = {
            "hash_chain": {"ok": True, "broken_seq": None, "events": len(raw)},
            "replay": {"ok": True, "moves": checked.state.moves, "detail": None},
        }
    else:  # something is wrong: the full, uncached checks say what
        rows = _parsed(raw)
        checks = {"hash_chain": _check_chain(game, rows), "replay": _check_replay(game, rows)}
    logged = from_log(rows)
    checks["client_seed"] = _check_client_seed(game, logged)
    checks["commitment"] = _check_commitment(game, logged)
    if game.is_over:
        checks["decks"] = _check_decks(game, rows, logged)
    ok = all(check["ok"] for check in checks.values())
    return {"ok": ok, "checks": checks}


def _check_client_seed(game: LoadedGame, logged: LoggedFairness) -> dict[str, Any]:
    """The client seed the decks use is the one the logged seats' seeds make."""
    same = logged.client_seed == game.row.client_seed
    detail = None if same else "the stored client seed is not the one the logged seeds make"
    return {"ok": same, "client_seed": logged.client_seed, "detail": detail}


def _check_commitment(game: LoadedGame, logged: LoggedFairness) -> dict[str, Any]:
    """The commitment is the one GameCreated published; once over, the revealed seed (as
    SeedRevealed logged it) hashes to it."""
    if logged.commitment != game.row.commitment:
        return {"ok": False, "detail": "the stored commitment is not the one GameCreated published"}
    if not game.is_over:
        return {"ok": True, "detail": None}
    if logged.server_seed != game.row.server_seed:
        return {"ok": False, "detail": "the stored server seed is not the one SeedRevealed logged"}
    if not seed_matches(logged.server_seed or "", logged.commitment or ""):
        return {"ok": False, "detail": "the revealed server seed does not match the commitment"}
    return {"ok": True, "detail": None}


def _check_chain(game: LoadedGame, rows: list[EventRow]) -> dict[str, Any]:
    previous = GENESIS_HASH
    for expected_seq, row in enumerate(rows, start=1):
        if row.seq != expected_seq:
            return {
                "ok": False,
                "broken_seq": expected_seq,
                "detail": f"event {expected_seq} is missing",
            }
        digest = event_hash(game.row.id, row.seq, row.type, row.data, row.at, previous)
        if digest != row.hash:
            return {
                "ok": False,
                "broken_seq": row.seq,
                "detail": f"event {row.seq} does not match its hash",
            }
        previous = row.hash
    if len(rows) != game.row.version or previous != game.row.last_hash:
        broken = min(len(rows), game.row.version) + 1
        return {"ok": False, "broken_seq": broken, "detail": f"the log ends before event {broken}"}
    return {"ok": True, "broken_seq": None, "events": len(rows)}


def _check_replay(game: LoadedGame, rows: list[EventRow]) -> dict[str, Any]:
    try:
        state = GameState.new(Rules.from_dict(game.row.rules), game.row.players)
        for row in rows:
            if row.type in EVENT_TYPES_BY_NAME:
                apply(state, event_from_dict(row.type, row.data))
    except Exception as error:  # a tampered log may not even replay
        return {"ok": False, "detail": f"the log does not replay: {error}"}
    same = state.to_dict() == game.state.to_dict()
    return {
        "ok": same,
        "moves": state.moves,
        "detail": None if same else "replaying the log does not give the stored state",
    }


def _check_decks(game: LoadedGame, rows: list[EventRow], logged: LoggedFairness) -> dict[str, Any]:
    """Every deal is the shuffle of the logged seeds, but round 1 of a game created with a
    ``deck``, which is marked fixed (and no other round may be)."""
    rounds = []
    for row in rows:
        if row.type != ROUND_DEALT:
            continue
        try:
            seed = bytes.fromhex(logged.server_seed or "")
            rounds.append(_check_deck(seed, logged.client_seed or "", row.data, logged))
        except Exception as error:  # a tampered event may lack the fields: a finding, not a 500
            rounds.append({"seq": row.seq, "ok": False, "detail": f"not a deal: {error!r}"})
    return {"ok": all(r["ok"] for r in rounds), "rounds": rounds}


def _check_deck(
    seed: bytes, client_seed: str, data: dict[str, Any], logged: LoggedFairness
) -> dict[str, Any]:
    number = data["round"]
    if data.get("fixed"):
        allowed = fixed_round_allowed(number, logged)
        detail = None if allowed else "only round 1 of a game created with a deck may be fixed"
        return {"round": number, "fixed": True, "ok": allowed, "detail": detail}
    deck = codes(shuffled_deck(seed, client_seed, number))
    return {"round": number, "fixed": False, "ok": deck == data["deck"]}


def list_games(db: Database, status: str | None, limit: int, cursor: str | None) -> dict[str, Any]:
    before = _decode_cursor(cursor) if cursor else None
    with db.session() as session:
        repo = GameRepository(session)
        rows = repo.page(status, limit + 1, before)
        seats = {row.id: repo.seats(row.id) for row in rows[:limit]}
    page = rows[:limit]
    games = [
        {
            "id": row.id,
            "status": row.status,
            "version": row.version,
            "created_at": row.created_at.isoformat(),
            "seats": [{"seat": s.seat, "name": s.name, "bot": s.bot} for s in seats[row.id]],
            "scores": list(row.snapshot.get("scores", [0, 0])),
            "winner": row.winner,
            "custom_deck": row.custom_deck is not None,
        }
        for row in page
    ]
    more = len(rows) > limit
    return {
        "games": games,
        "next_cursor": _encode_cursor(page[-1].created_at, page[-1].id) if more else None,
    }


def _encode_cursor(created: datetime, game_id: str) -> str:
    raw = json.dumps([created.isoformat(), game_id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created, game_id = json.loads(raw)
        if not isinstance(game_id, str) or "\x00" in game_id:  # PostgreSQL cannot compare NUL
            raise ValueError("not a game id")
        return datetime.fromisoformat(created), game_id
    except (ValueError, TypeError) as error:
        raise InvalidRequest(
            "cursor is not one this server gave", errors={"cursor": "invalid"}
        ) from error
