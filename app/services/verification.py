"""``/verify``: the hash chain is intact, replaying the log gives the stored state, the
shuffle's inputs are the ones the log states (``from_log``), and (once over) the revealed
seed matches its commitment and re-derives every shuffled deck.

Checkpoints (audit_cache) make a call after the first one do a round's work; whenever they
do not vouch for the whole log, the full checks below run and say what is wrong.

The fairness facts are read as the log states them, not as the ``games`` row does. The row
is a cache an operator (or an attacker with the database) can change without touching the
hash chain; the log is what the chain protects. So the audit reads from the log:

- the client seed, rebuilt from the seeds in ``GameCreated`` (seats seated at creation) and
  ``SeatJoined`` (seats joined later), in seat order, a bot's and a missing seed being "";
- the commitment, as ``GameCreated`` published it;
- the server seed, as ``SeedRevealed`` revealed it;
- whether the creator fixed a deck (``GameCreated.custom_deck``): only then may round 1, and
  only round 1, be dealt unshuffled (``RoundDealt.fixed``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from app.engine import EngineError, GameState
from app.engine.cards import codes
from app.engine.fairness import client_seed, seed_matches, shuffled_deck
from app.services import audit_cache
from app.services.log import (
    GAME_CREATED,
    GENESIS_HASH,
    ROUND_DEALT,
    SEAT_JOINED,
    SEED_REVEALED,
    EventRecord,
    RawEvent,
    event_hash,
    replay_log,
)
from app.services.model import GameRecord

# What a tampered entry can make replaying it raise: a finding to report, not a 500.
TAMPERED = (EngineError, LookupError, TypeError, ValueError, AttributeError)
FAIRNESS_TYPES = (GAME_CREATED, SEAT_JOINED, SEED_REVEALED, ROUND_DEALT)


def start_state(game: GameRecord) -> GameState:
    return GameState.new(game.state.rules, game.players)


def verify_log(game: GameRecord, raw: Sequence[RawEvent]) -> dict[str, Any]:
    checked = audit_cache.verified(game.id, start_state(game), raw)
    same = checked is not None and checked.state.to_dict() == game.state.to_dict()
    ends = checked is not None and checked.events == game.version
    if checked is not None and same and ends and raw and raw[-1].hash == game.last_hash:
        # Chain and replay hold (only rows after the last unchanged checkpoint were re-checked);
        # the fairness checks below read just the few rows they need.
        log = parsed([row for row in raw if row.type in FAIRNESS_TYPES])
        checks: dict[str, Any] = {
            "hash_chain": {"ok": True, "broken_seq": None, "events": len(raw)},
            "replay": {"ok": True, "moves": checked.state.moves, "detail": None},
        }
    else:  # something is wrong: the full, uncached checks say what
        log = parsed(raw)
        checks = {"hash_chain": _check_chain(game, log), "replay": _check_replay(game, log)}
    logged = from_log(log)
    checks["client_seed"] = _check_client_seed(game, logged)
    checks["commitment"] = _check_commitment(game, logged)
    checks["players"] = _check_players(game, log)
    if game.is_over:
        checks["decks"] = _check_decks(log, logged)
    return {"ok": all(check["ok"] for check in checks.values()), "checks": checks}


def parsed(raw: Sequence[RawEvent]) -> list[EventRecord]:
    """Raw rows decoded (a row whose data is not JSON keeps its text: the checks report it)."""
    records = []
    for row in raw:
        try:
            data = json.loads(row.data)
        except ValueError:
            data = row.data
        records.append(EventRecord(row.seq, row.type, data, row.at, row.hash))
    return records


def _check_client_seed(game: GameRecord, logged: LoggedFairness) -> dict[str, Any]:
    """The client seed the decks use is the one the logged seats' seeds make."""
    same = logged.client_seed == game.client_seed
    detail = None if same else "the stored client seed is not the one the logged seeds make"
    return {"ok": same, "client_seed": logged.client_seed, "detail": detail}


def _check_commitment(game: GameRecord, logged: LoggedFairness) -> dict[str, Any]:
    """The commitment is the one GameCreated published; once over, the revealed seed (as
    SeedRevealed logged it) hashes to it."""
    if logged.commitment != game.commitment:
        return _failed("the stored commitment is not the one GameCreated published")
    if not game.is_over:
        return {"ok": True, "detail": None}
    if logged.server_seed != game.server_seed:
        return _failed("the stored server seed is not the one SeedRevealed logged")
    if not seed_matches(logged.server_seed or "", logged.commitment or ""):
        return _failed("the revealed server seed does not match the commitment")
    return {"ok": True, "detail": None}


def _check_players(game: GameRecord, log: list[EventRecord]) -> dict[str, Any]:
    """Each seat's player, and whether the game is rated, are the ones the log states
    (GameCreated and SeatJoined); a log from before players named none, and says nothing."""
    named: dict[Any, Any] = {}  # seat -> player, as logged (a tampered log: anything)
    rated: Any = False
    for record in log:
        data = record.data if isinstance(record.data, dict) else {}
        if record.type == GAME_CREATED:
            rated = data.get("rated", False)
            for entry in data.get("players") or []:
                if isinstance(entry, dict) and "player" in entry:
                    named[entry.get("seat")] = entry["player"]
        elif record.type == SEAT_JOINED:
            named[data.get("seat")] = data.get("player")
    if rated != game.rated:
        return _failed("the stored game is rated otherwise than GameCreated logged")
    wrong = [s.seat for s in game.seats if s.seat in named and named[s.seat] != s.player_id]
    if wrong:
        return _failed(f"seats {wrong} are held by other players than the log states")
    return {"ok": True, "detail": None}


def _failed(detail: str) -> dict[str, Any]:
    return {"ok": False, "detail": detail}


def _check_chain(game: GameRecord, log: list[EventRecord]) -> dict[str, Any]:
    previous = GENESIS_HASH
    for expected_seq, record in enumerate(log, start=1):
        if record.seq != expected_seq:
            return _broken(expected_seq, f"event {expected_seq} is missing")
        digest = event_hash(game.id, record.seq, record.type, record.data, record.at, previous)
        if digest != record.hash:
            return _broken(record.seq, f"event {record.seq} does not match its hash")
        previous = record.hash
    if len(log) != game.version or previous != game.last_hash:
        broken = min(len(log), game.version) + 1
        return _broken(broken, f"the log ends before event {broken}")
    return {"ok": True, "broken_seq": None, "events": len(log)}


def _broken(seq: int, detail: str) -> dict[str, Any]:
    return {"ok": False, "broken_seq": seq, "detail": detail}


def _check_replay(game: GameRecord, log: list[EventRecord]) -> dict[str, Any]:
    try:
        state = replay_log(game.state.rules, game.players, log)
    except TAMPERED as error:  # a tampered log may not even replay
        return {"ok": False, "detail": f"the log does not replay: {error}"}
    same = state.to_dict() == game.state.to_dict()
    return {
        "ok": same,
        "moves": state.moves,
        "detail": None if same else "replaying the log does not give the stored state",
    }


def _check_decks(log: list[EventRecord], logged: LoggedFairness) -> dict[str, Any]:
    """Every deal is the shuffle of the logged seeds, but round 1 of a game created with a
    ``deck``, which is marked fixed (and no other round may be)."""
    rounds = []
    for record in log:
        if record.type != ROUND_DEALT:
            continue
        try:
            seed = bytes.fromhex(logged.server_seed or "")
            rounds.append(_check_deck(seed, logged.client_seed or "", record.data, logged))
        except TAMPERED as error:  # a tampered entry may lack the fields
            rounds.append({"seq": record.seq, "ok": False, "detail": f"not a deal: {error!r}"})
    return {"ok": all(r["ok"] for r in rounds), "rounds": rounds}


def _check_deck(
    seed: bytes, client_seed: str, data: dict[str, Any], logged: LoggedFairness
) -> dict[str, Any]:
    number = data["round"]
    if data.get("fixed"):
        allowed = fixed_round_allowed(number, logged)
        detail = None if allowed else "only round 1 of a game created with a deck may be fixed"
        return {"round": number, "fixed": True, "ok": allowed, "detail": detail}
    ok = codes(shuffled_deck(seed, client_seed, number)) == data["deck"]
    detail = None if ok else "the deck logged is not the one the seeds give"
    return {"round": number, "fixed": False, "ok": ok, "detail": detail}


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
