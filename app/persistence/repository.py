"""The games repository over SQLAlchemy Core: one round trip to load a game and its
seats, a version-checked UPDATE in front of the hash-chained log, bulk inserts.

Its statements go through one Core connection of the engine's pool, checked out at the
first statement and given back by ``close``. No ORM session: nothing here is an ORM object,
and a session's bookkeeping (its transaction, its snapshot of an identity map, its rollback)
cost a move about 0.1-0.2 ms for nothing (docs/performance.md, "Where a move's cost goes")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from contextlib import suppress
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    Table,
    Text,
    bindparam,
    cast,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import SQLAlchemyError

from app.persistence.models import EventRow, GameRow, IdempotentResponseRow, SeatRow
from app.services.errors import ConcurrentUpdate
from app.services.log import EventRecord, RawEvent
from app.services.model import (
    ACTIVE,
    WAITING,
    GameRecord,
    GameSummary,
    Progress,
    Seat,
    rounds_text,
)
from app.services.unit_of_work import GameRepository, StoredResult

GAMES: Table = GameRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
EVENTS: Table = EventRow.__table__  # type: ignore[assignment]
IDEMPOTENT: Table = IdempotentResponseRow.__table__  # type: ignore[assignment]
# The columns of a game's row that the record holds as they are.
_RECORD_COLUMNS = ("id", "status", "version", "server_seed", "commitment", "client_seed",
                   "custom_deck", "winner", "last_hash", "created_at", "updated_at",
                   "deadline", "invite_hash", "public")  # fmt: skip
# What a move, a join or a deal can change in a game's row.
_CHANGING_COLUMNS = ("status", "version", "snapshot", "rounds", "score_0", "score_1",
                     "client_seed", "winner", "last_hash", "updated_at", "deadline")  # fmt: skip
# Written only when given (a save passes None for rounds no round was added to).
_KEPT_WHEN_NONE = frozenset({"rounds"})


def _assignment(name: str, parameter: str) -> str:
    """``SET`` text of a changing column for the drivers' own statements (postgres.py,
    sqlite.py): the parameter, or for a column kept when None, the stored value then."""
    if name in _KEPT_WHEN_NONE:
        return f"{name} = COALESCE({parameter}, {name})"
    return f"{name} = {parameter}"


_CHANGING_RECORD_COLUMNS = [name for name in _CHANGING_COLUMNS if name in _RECORD_COLUMNS]
# What a move's load reads of the row (the drivers' own paths, postgres.py and sqlite.py).
_LOADED_COLUMNS = (*_RECORD_COLUMNS, "snapshot", "rounds")
_SEAT_COLUMNS = ("seat", "name", "bot", "seed", "token_hash")

# The hot path's statements, built once: building and keying them anew on every move
# costs more than running them.
_LOAD = (
    select(GAMES, SEATS)
    .join(SEATS, SEATS.c.game_id == GAMES.c.id)
    .where(GAMES.c.id == bindparam("game_id"))
    .order_by(SEATS.c.seat)
)
_LOAD_FOR_UPDATE = _LOAD.with_for_update(of=GAMES)  # PostgreSQL serialises writers; SQLite ignores
_SAVE = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("game_id"), GAMES.c.version == bindparam("expected_version"))
    .values(
        {
            name: func.coalesce(bindparam(name), GAMES.c[name])
            if name in _KEPT_WHEN_NONE
            else bindparam(name)
            for name in _CHANGING_COLUMNS
        }
    )
)
_SAVE_SEAT = (
    update(SEATS)
    .where(SEATS.c.game_id == bindparam("seat_game"), SEATS.c.seat == bindparam("seat_number"))
    .values(name=bindparam("name"), seed=bindparam("seed"), token_hash=bindparam("token_hash"))
)
_INSERT_EVENTS = insert(EVENTS)
_RAW_EVENTS = (
    select(EVENTS.c.seq, EVENTS.c.type, cast(EVENTS.c.data, Text).label("data"), EVENTS.c.at,
           EVENTS.c.hash)
    .where(EVENTS.c.game_id == bindparam("game_id"))
    .order_by(EVENTS.c.seq)
)  # fmt: skip
_PROGRESS = select(GAMES.c.status, GAMES.c.version, GAMES.c.score_0, GAMES.c.score_1).where(
    GAMES.c.id == bindparam("game_id")
)


class SqlGameRepository(GameRepository):
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._pooled: Connection | None = None

    @property
    def connection(self) -> Connection:
        """This unit of work's connection, in a transaction: checked out of the pool at the
        first statement, begun again after a commit. A transaction begun here, not by Core's
        autobegin, because the drivers' own paths (postgres.py, sqlite.py) send statements
        Core does not see, and ``commit`` must still reach the driver."""
        connection = self._checked_out()
        if not connection.in_transaction():
            connection.begin()
        return connection

    def _checked_out(self) -> Connection:
        """This unit of work's connection, checked out of the pool at the first call, with no
        transaction begun by Core (postgres.py's statements sent alone need none)."""
        connection = self._pooled
        if connection is None:
            connection = self._pooled = self.engine.connect()
        return connection

    def get(
        self, game_id: str, for_update: bool = False, idempotency_key: str | None = None
    ) -> GameRecord | None:
        """Read with Core: the ORM's identity map costs more than the rest of a move. The
        answers of ``idempotency_key`` are read by ``stored_result``, when it is asked."""
        if not _storable(game_id):
            return None
        query = _LOAD_FOR_UPDATE if for_update else _LOAD
        rows = self.connection.execute(query, {"game_id": game_id}).mappings().all()
        if not rows:
            return None
        first = rows[0]
        seats = [Seat(**{name: row[SEATS.c[name]] for name in _SEAT_COLUMNS}) for row in rows]
        fields = {name: first[GAMES.c[name]] for name in _RECORD_COLUMNS}
        fields["deadline"] = _utc(fields["deadline"])
        return GameRecord(
            **fields, seats=seats, snapshot=first[GAMES.c.snapshot], rounds=first[GAMES.c.rounds]
        )

    def add(self, game: GameRecord) -> None:
        row = {name: getattr(game, name) for name in _RECORD_COLUMNS}
        row |= {"players": game.players, "rules": game.state.rules.to_dict()}
        row |= _stored_state(game, adding=True)
        self.connection.execute(insert(GAMES), [row])
        seats = [{"game_id": game.id, **asdict(seat)} for seat in game.seats]
        self.connection.execute(insert(SEATS), seats)
        self._append(game)

    def save(self, game: GameRecord) -> None:
        """The version check in the UPDATE is the guard that holds on every database
        (SQLite ignores FOR UPDATE); a lost race shows as no row updated."""
        values = {name: getattr(game, name) for name in _CHANGING_RECORD_COLUMNS}
        values |= _stored_state(game)
        result = self.connection.execute(
            _SAVE, {**values, "game_id": game.id, "expected_version": game.loaded_version}
        )
        if result.rowcount != 1:
            raise ConcurrentUpdate(game.id)
        self._save_seats(game)
        self._append(game)

    def _save_seats(self, game: GameRecord) -> None:
        for number in sorted(game.changed_seats):
            seat = game.seats[number]
            self.connection.execute(_SAVE_SEAT, {"seat_game": game.id, "seat_number": number,
                "name": seat.name, "seed": seat.seed, "token_hash": seat.token_hash})  # fmt: skip

    def _append(self, game: GameRecord) -> None:
        """A (game_id, seq) taken already is a lost race (IntegrityError, then
        ConcurrentUpdate at the unit of work's edge)."""
        if game.new_events:
            rows = [{"game_id": game.id, **_event_row(e)} for e in game.new_events]
            self.connection.execute(_INSERT_EVENTS, rows)

    def forget_writes(self) -> None:
        """The transaction is being rolled back: forget any write not sent yet (none here)."""

    def finished(self) -> None:
        """The unit of work's transaction is over (committed, rolled back or abandoned)."""

    def commit(self) -> None:
        """Commit the transaction (a NOTIFY, on PostgreSQL, goes with its writes:
        ``PostgresGameRepository``)."""
        if self._pooled is not None:
            self._pooled.commit()

    def rollback(self) -> None:
        """Undo what was not committed; the connection stays for what follows."""
        if self._pooled is not None:
            self._pooled.rollback()

    def close(self) -> None:
        """Give the connection back to the pool, undoing what was not committed: closing a
        connection in a transaction rolls it back, once (the pool then need not). A lost
        connection cannot roll back; it is given back all the same and the pool drops it."""
        connection, self._pooled = self._pooled, None
        if connection is not None:
            with suppress(SQLAlchemyError):
                connection.close()

    def take_due(self, now: datetime, skip: Set[str]) -> GameRecord | None:
        """The game whose deadline passed longest ago, locked for this transaction; on
        PostgreSQL one another transaction holds is passed over (SKIP LOCKED), so sweepers
        in many processes share the work. SQLite has no row locks: its writers are
        serialised, and the version check in ``save`` stops a second one."""
        query = select(GAMES.c.id).where(GAMES.c.deadline.is_not(None), GAMES.c.deadline <= now)
        if skip:
            query = query.where(GAMES.c.id.not_in(sorted(skip)))
        query = query.order_by(GAMES.c.deadline).limit(1).with_for_update(skip_locked=True)
        game_id = self.connection.scalars(query).first()
        return self.get(game_id, for_update=True) if game_id is not None else None

    def game_of_token(self, token_hash: str) -> str | None:
        query = select(SEATS.c.game_id).where(SEATS.c.token_hash == token_hash).limit(1)
        return self.connection.scalars(query).first()

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[EventRecord]:
        query = select(EVENTS).where(EVENTS.c.game_id == game_id, EVENTS.c.seq > after)
        return self._records(query if limit is None else query.limit(limit))

    def progress(self, game_id: str) -> Progress | None:
        if not _storable(game_id):
            return None
        row = self.connection.execute(_PROGRESS, {"game_id": game_id}).first()
        return (
            None if row is None else Progress(row.status, row.version, (row.score_0, row.score_1))
        )

    def versions(self, game_ids: Sequence[str]) -> dict[str, int]:
        query = select(GAMES.c.id, GAMES.c.version).where(GAMES.c.id.in_(list(game_ids)))
        return {row.id: row.version for row in self.connection.execute(query)}

    def events_of_type(self, game_id: str, kind: str) -> list[EventRecord]:
        query = select(EVENTS).where(EVENTS.c.game_id == game_id, EVENTS.c.type == kind)
        return self._records(query)

    def _records(self, query: Any) -> list[EventRecord]:
        rows = self.connection.execute(query.order_by(EVENTS.c.seq)).mappings()
        return [EventRecord(r["seq"], r["type"], r["data"], r["at"], r["hash"]) for r in rows]

    def page(
        self, status: str | None, limit: int, before: tuple[datetime, str] | None
    ) -> list[GameSummary]:
        names = ("id", "status", "version", "created_at", "score_0", "score_1", "winner")
        columns = [GAMES.c[name] for name in names]
        # The deck itself, not ``IS NOT NULL``: a JSON column stores Python's None as JSON
        # null, which SQL does not count as NULL (52 short codes per fixed game at most).
        query = select(*columns, GAMES.c.custom_deck)
        # A waiting game that is not public is joined by its invite only: not listed.
        query = query.where(or_(GAMES.c.status != WAITING, GAMES.c.public))
        if status:
            query = query.where(GAMES.c.status == status)
        if before is not None:
            created, game_id = before
            query = query.where(
                (GAMES.c.created_at < created)
                | ((GAMES.c.created_at == created) & (GAMES.c.id < game_id))
            )
        query = query.order_by(GAMES.c.created_at.desc(), GAMES.c.id.desc()).limit(limit)
        games = self.connection.execute(query).mappings().all()
        seats = self._seats_of([game["id"] for game in games])
        return [_summary(game, seats.get(game["id"], [])) for game in games]

    def _seats_of(self, game_ids: Sequence[str]) -> dict[str, list[Seat]]:
        """The seats of many games in one query."""
        if not game_ids:
            return {}
        query = select(SEATS).where(SEATS.c.game_id.in_(game_ids)).order_by(SEATS.c.seat)
        found: dict[str, list[Seat]] = {}
        for row in self.connection.execute(query).mappings():
            seat = Seat(**{name: row[name] for name in _SEAT_COLUMNS})
            found.setdefault(row["game_id"], []).append(seat)
        return found

    def raw_events(self, game_id: str) -> list[RawEvent]:
        """The data as the JSON text stored, undecoded, for the audit's byte-for-byte
        checkpoints (services/audit_cache.py)."""
        rows = self.connection.execute(_RAW_EVENTS, {"game_id": game_id})
        return [RawEvent(r.seq, r.type, r.data, r.at, r.hash) for r in rows]

    def stale_bots_only_games(self, before: datetime, limit: int) -> list[tuple[str, datetime]]:
        human = select(SEATS.c.game_id).where(SEATS.c.game_id == GAMES.c.id, SEATS.c.bot.is_(None))
        query = (
            select(GAMES.c.id, GAMES.c.updated_at)
            .where(GAMES.c.status == ACTIVE, GAMES.c.updated_at < before, ~human.exists())
            .order_by(GAMES.c.updated_at)
            .limit(limit)
        )
        return [(row.id, row.updated_at) for row in self.connection.execute(query)]

    def touch(self, game_id: str, seen: datetime, now: datetime) -> bool:
        result = self.connection.execute(
            update(GAMES)
            .where(GAMES.c.id == game_id, GAMES.c.updated_at == seen)
            .values(updated_at=now)
        )
        return bool(result.rowcount == 1)

    def stored_result(self, game_id: str, seat: int, key: str) -> StoredResult | None:
        query = select(IDEMPOTENT.c.request_hash, IDEMPOTENT.c.body).where(
            IDEMPOTENT.c.game_id == game_id, IDEMPOTENT.c.seat == seat, IDEMPOTENT.c.key == key
        )
        row = self.connection.execute(query).first()
        return StoredResult(row.request_hash, row.body) if row is not None else None

    def store_result(self, game_id: str, seat: int, key: str, stored: StoredResult) -> None:
        row = {"game_id": game_id, "seat": seat, "key": key, "request_hash": stored.request_hash,
               "body": stored.result, "created_at": _now()}  # fmt: skip
        self.connection.execute(insert(IDEMPOTENT), [row])


def _summary(game: Any, seats: list[Seat]) -> GameSummary:
    scores = [game["score_0"], game["score_1"]]
    return GameSummary(game["id"], game["status"], game["version"], game["created_at"], seats,
                       scores, game["winner"], game["custom_deck"] is not None)  # fmt: skip


def _stored_state(game: GameRecord, adding: bool = False) -> dict[str, Any]:
    """The engine state as stored: the snapshot, the rounds apart from it (None when they are
    the ones loaded: a save keeps them as stored), and the scores on their own."""
    state = game.state
    score_0, score_1 = state.scores
    unchanged = state.rounds.encoded is not None and not adding
    snapshot = state.to_dict(with_rounds=False)
    rounds = None if unchanged else rounds_text(state.rounds)
    game.saving(snapshot, rounds)
    return {"snapshot": snapshot, "rounds": rounds, "score_0": score_0, "score_1": score_1}


def _event_row(record: EventRecord) -> Mapping[str, Any]:
    return {"seq": record.seq, "type": record.type, "data": record.data, "at": record.at,
            "hash": record.hash}  # fmt: skip


def _now() -> datetime:
    return datetime.now(UTC)


def _utc(moment: datetime | None) -> datetime | None:
    """SQLite hands back stored UTC times without their zone."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def _storable(text: str) -> bool:
    """No stored id holds NUL, and PostgreSQL refuses to even compare a text that does."""
    return "\x00" not in text
