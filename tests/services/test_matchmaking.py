"""The pairing pass on the in-memory unit of work: what it reads, so that no number of seeks
alone of their kinds keeps a seek with a partner, or one due for bots, waiting."""

from __future__ import annotations

import random
import secrets
from datetime import UTC, datetime, timedelta

from app.persistence.memory import MemoryUnitOfWork
from app.services.matchmaking import PASS_LIMIT, BotPlayers, pair_seeks
from app.services.model import EXPIRED, MATCHED, WAITING, SeekRecord
from app.services.seeks import SEEK_SECONDS, Seeking, kind_of, open_seek

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
BOTS: BotPlayers = {"random": ("bot-random", 14.6), "greedy": ("bot-greedy", 23.2)}


def crowd(uow: MemoryUnitOfWork, count: int, made: datetime) -> None:
    """``count`` waiting seeks, each alone of its kind (rules nobody else seeks), older than
    any other: what an address at its seek limit leaves behind."""
    with uow:
        for number in range(count):
            rules = {"target_score": 1000 + number}
            uow.seeks.add(SeekRecord(
                id=secrets.token_hex(8), player_id=secrets.token_hex(8), name="Idle",
                rating=25.0, players=2, rated=False, rules=rules, kind=kind_of(2, False, rules),
                bot_after=None, status=WAITING, created_at=made,
                expires_at=made + timedelta(seconds=SEEK_SECONDS),
            ))  # fmt: skip
        uow.commit()


def seek(uow: MemoryUnitOfWork, name: str, **options: object) -> SeekRecord:
    player = Seeking(secrets.token_hex(8), name, 25.0)
    return open_seek(uow, player, 2, now=NOW, **options)  # type: ignore[arg-type]


def pass_at(uow: MemoryUnitOfWork, seconds: float = 0.0, kind: str | None = None) -> list[str]:
    by_kind = {"kind": kind} if kind else {}
    done = pair_seeks(uow, NOW + timedelta(seconds=seconds), lambda: BOTS, random.Random(1),
                      **by_kind)  # fmt: skip
    return done.settled


def status_of(uow: MemoryUnitOfWork, seek_id: str) -> str:
    with uow:
        found = uow.seeks.get(seek_id)
    assert found is not None
    return found.status


def test_seeks_alone_of_their_kinds_never_keep_a_pair_waiting(uow):
    crowd(uow, PASS_LIMIT + 500, NOW - timedelta(seconds=60))
    amira, badr = seek(uow, "Amira"), seek(uow, "Badr")
    assert set(pass_at(uow)) == {amira.id, badr.id}
    assert status_of(uow, amira.id) == status_of(uow, badr.id) == MATCHED


def test_seeks_alone_of_their_kinds_never_keep_a_seek_due_for_bots_waiting(uow):
    crowd(uow, PASS_LIMIT + 500, NOW - timedelta(seconds=60))
    chadi = seek(uow, "Chadi", bot_after=0)
    assert pass_at(uow) == [chadi.id]
    assert status_of(uow, chadi.id) == MATCHED


def test_a_new_seeks_own_pass_pairs_its_kind_alone(uow):
    crowd(uow, 3, NOW)
    amira, badr = seek(uow, "Amira"), seek(uow, "Badr")
    assert set(pass_at(uow, kind=badr.kind)) == {amira.id, badr.id}


def test_a_pass_expires_every_seek_out_of_time_whatever_its_kind(uow):
    crowd(uow, PASS_LIMIT + 500, NOW - timedelta(seconds=SEEK_SECONDS))
    dalia = seek(uow, "Dalia")
    assert len(pass_at(uow)) == PASS_LIMIT + 500
    assert status_of(uow, dalia.id) == WAITING
    with uow:
        assert uow.seeks.count_waiting() == 1
    assert pass_at(uow, SEEK_SECONDS) == [dalia.id]
    assert status_of(uow, dalia.id) == EXPIRED
