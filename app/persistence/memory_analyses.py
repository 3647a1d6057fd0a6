"""The analyses repository in memory: same contract as the SQL one (analyses.py), a
transaction's writes landing on commit only."""

from __future__ import annotations

import copy
from datetime import datetime

from app.services.errors import ConcurrentUpdate
from app.services.model import DONE, RUNNING, AnalysisRecord
from app.services.ports import AnalysisRepository


class MemoryAnalysisRepository(AnalysisRepository):
    def __init__(self, analyses: dict[str, AnalysisRecord]) -> None:
        self.committed = analyses
        self.pending: dict[str, AnalysisRecord] = {}
        self.added: set[str] = set()
        self.claimed: dict[str, int] = {}  # game -> its claims when this transaction read it

    def get(self, game_id: str) -> AnalysisRecord | None:
        found = self.pending.get(game_id) or self.committed.get(game_id)
        return copy.deepcopy(found)

    def add(self, record: AnalysisRecord) -> None:
        if record.game_id in self.committed or record.game_id in self.pending:
            raise ConcurrentUpdate(record.game_id)
        self.pending[record.game_id] = copy.deepcopy(record)
        self.added.add(record.game_id)

    def claim(self, game_id: str, owner: str, now: datetime, until: datetime) -> bool:
        record = self.get(game_id)
        if record is None or not record.unclaimed(now):
            return False
        self.claimed[game_id] = record.claims
        record.owner, record.lease_until, record.updated_at = owner, until, now
        record.claims += 1
        self.pending[game_id] = record
        return True

    def progress(self, game_id: str, owner: str, done: int, until: datetime) -> bool:
        record = self._held(game_id, owner)
        if record is not None:
            record.done, record.lease_until = done, until
        return record is not None

    def finish(self, game_id: str, owner: str, result: bytes, now: datetime) -> bool:
        record = self._held(game_id, owner)
        if record is not None:
            record.status, record.result, record.updated_at = DONE, result, now
            record.owner = record.lease_until = None
        return record is not None

    def _held(self, game_id: str, owner: str) -> AnalysisRecord | None:
        record = self.get(game_id)
        if record is None or record.owner != owner or record.status != RUNNING:
            return None
        self.pending[game_id] = record
        return record

    def commit(self) -> None:
        for game_id in self.added:
            if game_id in self.committed:
                raise ConcurrentUpdate(game_id)  # the primary key
        for game_id, claims in self.claimed.items():
            if self.committed[game_id].claims != claims:
                raise ConcurrentUpdate(game_id)  # another claim committed first
        self.committed.update(self.pending)
        self.pending, self.added, self.claimed = {}, set(), {}
