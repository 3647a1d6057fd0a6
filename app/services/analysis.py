"""A finished game reviewed by the expert (API.md item 24): asked for, computed once in the
background, stored with the game, served from there.

One row a game (model.py's ``AnalysisRecord``), made by the first request for it: ``running``
with its progress (``done`` of ``total`` judged moves) until the worker that holds its lease
stores the result and marks it ``done``. ``analysis`` reads it (409 while the game is on);
``open_analysis`` makes its row the first time, with the number of moves to judge; ``analyse``
is what a background worker runs: it takes the lease (ports.py's ``AnalysisRepository`` says
how one process among many gets it), has the judged moves computed a slice at a time,
renewing the lease and recording the progress after each, and stores the result compressed.
What judges a move is the engine's (``app/engine/bots/analysis.py``), from the seat's own view
alone; this module only feeds it the log and keeps what it says.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.engine.bots.analysis import count_positions
from app.services.access import load
from app.services.errors import ConcurrentUpdate, ServiceError
from app.services.model import DONE, RUNNING, AnalysisRecord, GameRecord
from app.services.ports import AbstractUnitOfWork
from app.services.progress import utc_now
from app.services.verification import parsed

LEASE_SECONDS = 60.0  # a worker that records no progress for this long has died: another may
CHUNK = 8  # judged moves a slice: the progress and the lease move on after each


class GameNotOver(ServiceError):
    code = "game_not_over"


@dataclass(frozen=True, slots=True)
class Job:
    """What the engine needs to judge a game's moves, as plain data."""

    rules: dict[str, Any]
    players: int
    events: list[tuple[str, dict[str, Any]]]  # the log's engine events
    seats: tuple[int, ...]  # the human seats, whose moves are judged
    total: int  # moves to judge

    def slices(self, size: int = CHUNK) -> list[tuple[int, int]]:
        """The (start, stop) of each slice of judged moves, in order."""
        return [(start, min(start + size, self.total)) for start in range(0, self.total, size)]


# Judged moves, slice by slice in order: [n, seat, card, [[card, value], ...]] each.
Judge = Callable[[Job], Iterable[list[list[Any]]]]


@dataclass(frozen=True, slots=True)
class Analysis:
    """The game's analysis as stored: none yet, running (``done`` of ``total``), or done."""

    status: str | None
    done: int = 0
    total: int = 0
    unclaimed: bool = False  # running, and nobody computing it: a worker may take it up
    body: dict[str, Any] | None = None  # once done: the answer

    def progress(self) -> dict[str, Any]:
        return {"status": RUNNING, "done": self.done, "total": self.total}


def analysis(uow: AbstractUnitOfWork, game_id: str, now: datetime | None = None) -> Analysis:
    with uow:
        game = load(uow, game_id)
        if not game.is_over:
            raise GameNotOver("a game is analysed once it is over")
        record = uow.analyses.get(game_id)
    if record is None:
        return Analysis(None)
    if record.status == DONE and record.result is not None:
        return Analysis(DONE, record.total, record.total, body=review(decoded(record.result)))
    unclaimed = record.unclaimed(now or utc_now())
    return Analysis(RUNNING, record.done, record.total, unclaimed)


def open_analysis(uow: AbstractUnitOfWork, game_id: str, now: datetime | None = None) -> Analysis:
    """The game's analysis row, made now if it had none: running, or at once done when the
    game has no move to judge. A row another request made first is taken as it is."""
    moment = now or utc_now()
    with uow:
        game = load(uow, game_id)
        if not game.is_over:
            raise GameNotOver("a game is analysed once it is over")
        job = job_of(game, uow)
        record = AnalysisRecord(game_id, RUNNING, 0, job.total, moment)
        if not job.total:
            record.status, record.result = DONE, encoded(job.seats, [])
        try:
            uow.analyses.add(record)
            uow.commit()
        except ConcurrentUpdate:
            pass  # made by another request meanwhile
    return analysis(uow, game_id, moment)


def job_of(game: GameRecord, uow: AbstractUnitOfWork) -> Job:
    """The game's log as the engine's judge takes it (inside ``uow``'s transaction)."""
    log = parsed(uow.games.raw_events(game.id))
    events = [(record.type, record.data) for record in log if record.is_engine_event]
    seats = tuple(s.seat for s in game.seats if s.bot is None and not s.is_open)
    rules, players = game.state.rules.to_dict(), game.players
    return Job(rules, players, events, seats, count_positions(rules, players, events, seats))


def analyse(
    new_uow: Callable[[], AbstractUnitOfWork],
    game_id: str,
    owner: str,
    judge: Judge,
    lease_seconds: float = LEASE_SECONDS,
    clock: Callable[[], datetime] = utc_now,
) -> bool:
    """Compute and store the game's analysis if ``owner`` can take its lease; True once
    stored by it. False if another holds it, it is done, or the lease was lost on the way."""
    lease = timedelta(seconds=lease_seconds)
    with new_uow() as uow:
        now = clock()
        if not uow.analyses.claim(game_id, owner, now, now + lease):
            return False
        uow.commit()
        job = job_of(load(uow, game_id), uow)
    judged: list[list[Any]] = []
    for part in judge(job):
        judged.extend(part)
        with new_uow() as uow:
            if not uow.analyses.progress(game_id, owner, len(judged), clock() + lease):
                return False
            uow.commit()
    with new_uow() as uow:
        stored = uow.analyses.finish(game_id, owner, encoded(job.seats, judged), clock())
        uow.commit()
    return stored


def encoded(seats: Sequence[int], judged: list[list[Any]]) -> bytes:
    """The stored form: the human seats and the judged moves, JSON compressed (a match to 101
    between two players: about 190 moves, a few KB)."""
    text = json.dumps({"seats": list(seats), "moves": judged}, separators=(",", ":"))
    return zlib.compress(text.encode(), 9)


def decoded(stored: bytes) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(zlib.decompress(stored))
    return found


def review(stored: dict[str, Any]) -> dict[str, Any]:
    """The answer: each judged move with the best card and the points its card gave up, and
    each human seat's summary. Among cards of equal value the one played is the best."""
    moves = []
    for n, seat, card, pairs in stored["moves"]:
        values = {code: value for code, value in pairs}
        top = max(values.values())
        best = card if values[card] == top else next(c for c, v in pairs if v == top)
        loss = round(top - values[card], 2)
        moves.append(
            {"n": n, "seat": seat, "card": card, "best": best, "values": values, "loss": loss}
        )
    seats = []
    for seat in stored["seats"]:
        own = [move for move in moves if move["seat"] == seat]
        count = len(own)
        seats.append({
            "seat": seat,
            "moves": count,
            "average_loss": round(sum(m["loss"] for m in own) / count, 2) if count else None,
            "agreement": round(sum(m["card"] == m["best"] for m in own) / count, 3)
            if count else None,
        })  # fmt: skip
    return {"status": DONE, "seats": seats, "moves": moves}
