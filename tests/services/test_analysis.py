"""Analyses on the in-memory unit of work: asked for once the game is over, computed once by
whoever holds the lease, stored, and read back as the answer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.background.analyses import JudgePool
from app.engine.bots.analysis import judge_log
from app.persistence.memory import MemoryUnitOfWork
from app.services import analysis, audit, games
from app.services.creation import Player
from app.services.errors import ConcurrentUpdate
from app.services.model import DONE, RUNNING
from app.services.progress import sweep

from .support import play, two_humans

NOW = datetime(2026, 12, 5, 12, tzinfo=UTC)
WORK = 300


def judge(job: analysis.Job) -> list[list[list[object]]]:
    pool = JudgePool(judge_log, workers=0)  # in this thread
    slices = [(job.rules, job.players, job.events, job.seats, a, b, WORK) for a, b in job.slices()]
    return list(pool.ordered(slices))


def finished_humans(uow: MemoryUnitOfWork) -> tuple[str, list[str]]:
    """Two humans to a target of 1 (a round, or more after a tied one), each playing its first
    card."""
    created = games.create_game(
        uow, [Player(name="Amira"), Player(name="Badr")], rules={"target_score": 1}
    )
    tokens = [seat["token"] for seat in created.seats]
    for _ in range(2000):
        state = audit.view(uow, created.game_id, None)
        if state["status"] != "active":
            return created.game_id, tokens
        token = tokens[state["turn"]]
        play(uow, created.game_id, token, audit.view(uow, created.game_id, token)["hand"][0])
    raise AssertionError("the match did not end")


def test_a_game_still_on_is_not_analysed(uow: MemoryUnitOfWork) -> None:
    game_id, _ = two_humans(uow)
    with pytest.raises(analysis.GameNotOver):
        analysis.analysis(uow, game_id)
    with pytest.raises(analysis.GameNotOver):
        analysis.open_analysis(uow, game_id)


def test_an_analysis_is_opened_once_computed_by_its_lease_holder_and_served(
    uow: MemoryUnitOfWork,
) -> None:
    game_id, _ = finished_humans(uow)
    assert analysis.analysis(uow, game_id, NOW).status is None
    opened = analysis.open_analysis(uow, game_id, NOW)
    assert (opened.status, opened.done, opened.unclaimed) == (RUNNING, 0, True)
    played = len(audit.moves(uow, game_id))
    assert opened.total == played  # every card: both seats are human
    assert analysis.open_analysis(uow, game_id, NOW) == opened  # the same row
    assert analysis.analyse(lambda: uow, game_id, "a", judge, clock=lambda: NOW)
    assert not analysis.analyse(lambda: uow, game_id, "b", judge, clock=lambda: NOW)  # done
    found = analysis.analysis(uow, game_id, NOW)
    assert found.status == DONE and found.body is not None
    moves = found.body["moves"]
    assert [m["n"] for m in moves] == list(range(1, played + 1))
    for move in moves:
        assert move["loss"] == round(move["values"][move["best"]] - move["values"][move["card"]], 2)
        assert move["loss"] >= 0 and (move["loss"] == 0) == (move["card"] == move["best"])
    for summary in found.body["seats"]:
        own = [m for m in moves if m["seat"] == summary["seat"]]
        assert summary["moves"] == len(own) == played // 2
        agreed = sum(m["card"] == m["best"] for m in own)
        assert summary["agreement"] == round(agreed / len(own), 3)
    with uow:
        assert uow.analyses.get(game_id).claims == 1  # type: ignore[union-attr]


def test_only_one_worker_holds_the_lease_until_it_runs_out(uow: MemoryUnitOfWork) -> None:
    game_id, _ = finished_humans(uow)
    analysis.open_analysis(uow, game_id, NOW)
    later = NOW + timedelta(seconds=30)
    with uow:
        assert uow.analyses.claim(game_id, "a", NOW, later)
        uow.commit()
    with uow:
        assert not uow.analyses.claim(game_id, "b", NOW + timedelta(seconds=29), later)
        assert not uow.analyses.finish(game_id, "b", b"", NOW)  # only the holder stores
        assert uow.analyses.progress(game_id, "a", 3, later)
        uow.commit()
    # a's process died: its lease runs out, and b takes the analysis up
    assert analysis.analysis(uow, game_id, later).unclaimed
    with uow:
        assert uow.analyses.claim(game_id, "b", later, later + timedelta(seconds=30))
        uow.commit()
    with uow:
        assert not uow.analyses.progress(game_id, "a", 4, later)  # a's lease is lost
        record = uow.analyses.get(game_id)
        assert record is not None and (record.owner, record.claims, record.done) == ("b", 2, 3)


def test_of_two_claims_racing_one_commits(uow: MemoryUnitOfWork) -> None:
    game_id, _ = finished_humans(uow)
    analysis.open_analysis(uow, game_id, NOW)
    first, second = MemoryUnitOfWork(uow.store), MemoryUnitOfWork(uow.store)
    until = NOW + timedelta(seconds=30)
    with first, second:
        assert first.analyses.claim(game_id, "a", NOW, until)
        assert second.analyses.claim(game_id, "b", NOW, until)  # both read it free
        first.commit()
        with pytest.raises(ConcurrentUpdate):
            second.commit()


def test_a_worker_that_lost_its_lease_stores_nothing(uow: MemoryUnitOfWork) -> None:
    game_id, _ = finished_humans(uow)
    analysis.open_analysis(uow, game_id, NOW)

    def robbed(job: analysis.Job) -> list[list[list[object]]]:
        # Another worker takes the analysis over while this one judges.
        with MemoryUnitOfWork(uow.store) as other:
            other.analyses.claim(game_id, "b", NOW + timedelta(hours=1), NOW + timedelta(hours=2))
            other.commit()
        return judge(job)

    assert not analysis.analyse(lambda: uow, game_id, "a", robbed, clock=lambda: NOW)
    assert analysis.analysis(uow, game_id, NOW).status == RUNNING


def test_a_cancelled_game_has_nothing_to_judge_and_is_done_at_once(uow: MemoryUnitOfWork) -> None:
    created = games.create_game(uow, [Player(name="Amira"), Player(open=True)], now=NOW)
    sweep(uow, NOW + timedelta(days=2))
    found = analysis.open_analysis(uow, created.game_id, NOW)
    assert found.status == DONE and found.body is not None
    assert found.body["moves"] == [] and found.body["seats"][0]["average_loss"] is None
