"""The seeks repository in memory, beside memory.py's games and memory_players.py's players,
one module a repository as on the SQL side: same contract as the SQL one (seeks.py), a
transaction's writes landing on commit only."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from app.services.errors import ConcurrentUpdate
from app.services.model import EXPIRED, SeekRecord
from app.services.model import WAITING as SEEKING
from app.services.ports import SeekRepository


class MemorySeekRepository(SeekRepository):
    """Seeks as committed, and this transaction's writes aside; ``commit`` refuses what a
    database would (a second waiting seek of one player, a seek settled twice)."""

    def __init__(self, seeks: dict[str, SeekRecord]) -> None:
        self.committed = seeks
        self.pending: dict[str, SeekRecord] = {}

    def add(self, seek: SeekRecord) -> None:
        self.pending[seek.id] = copy.deepcopy(seek)

    def get(self, seek_id: str) -> SeekRecord | None:
        seek = self.pending.get(seek_id) or self.committed.get(seek_id)
        return copy.deepcopy(seek)

    def waiting_of(self, player_id: str) -> SeekRecord | None:
        return next((s for s in self._waiting() if s.player_id == player_id), None)

    def pairable(self, limit: int, kind: str | None = None) -> list[SeekRecord]:
        waiting = self._waiting()
        kinds = Counter(seek.kind for seek in waiting)
        if kind is None:
            found = [seek for seek in waiting if kinds[seek.kind] > 1]
        else:
            found = [seek for seek in waiting if seek.kind == kind]
        return [copy.deepcopy(seek) for seek in found[:limit]]

    def due_for_bots(self, now: datetime, limit: int, kind: str | None = None) -> list[SeekRecord]:
        due = [seek for seek in self._waiting() if seek.bots_at is not None
               and seek.bots_at <= now and kind in (None, seek.kind)]  # fmt: skip
        due.sort(key=lambda seek: (seek.bots_at, seek.id))
        return [copy.deepcopy(seek) for seek in due[:limit]]

    def expire(self, now: datetime) -> list[str]:
        ids = [seek.id for seek in self._waiting() if seek.expires_at <= now]
        for seek_id in ids:
            self.settle(seek_id, EXPIRED, now)
        return ids

    def count_waiting(self) -> int:
        return len(self._waiting())

    def _waiting(self) -> list[SeekRecord]:
        """The waiting seeks as this transaction sees them, the oldest first (not copies)."""
        seeks = {**self.committed, **self.pending}.values()
        return sorted((s for s in seeks if s.status == SEEKING), key=lambda s: (s.created_at, s.id))

    def statuses(self, seek_ids: Sequence[str]) -> dict[str, str]:
        seeks = self.committed
        return {seek_id: seeks[seek_id].status for seek_id in seek_ids if seek_id in seeks}

    def lock_pairing(self) -> None:
        return None  # one process: its passes run one after another

    def settle(self, seek_id: str, status: str, now: datetime, game_id: str | None = None,
               seat: int | None = None) -> None:  # fmt: skip
        seek = self.get(seek_id)
        if seek is None or seek.status != SEEKING:
            raise ConcurrentUpdate(seek_id)
        seek.status, seek.settled_at, seek.game_id, seek.seat = status, now, game_id, seat
        self.pending[seek_id] = seek

    def commit(self) -> None:
        for seek in self.pending.values():
            stored = self.committed.get(seek.id)
            if stored is not None and stored.status != SEEKING:
                raise ConcurrentUpdate(seek.id)  # settled by another transaction first
            if seek.status == SEEKING and any(
                other.player_id == seek.player_id and other.status == SEEKING
                and other.id != seek.id for other in self.committed.values()
            ):  # fmt: skip
                raise ConcurrentUpdate(seek.player_id)  # the one-waiting-seek index
        self.committed.update(self.pending)
        self.pending = {}
