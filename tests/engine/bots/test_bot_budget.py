"""The expert's search has a fixed size: the same view and seed give the same card however
slow the machine, and a deadline is only a last guard, logged when it fires."""

from __future__ import annotations

import itertools
import logging
import random
import threading
import time

import pytest
from bot_helpers import random_positions

from app.engine import observe
from app.engine.bots import choose_card, expert


def slow_clock(step: float) -> object:
    """A ``time.monotonic`` that moves ``step`` seconds on every reading of this thread: a
    machine on which every world of the search takes that long. Other threads of the process
    (an app's background passes) read the real clock and leave this one's ticks alone."""
    ticks = itertools.count()
    reader = threading.get_ident()
    real = time.monotonic
    return lambda: next(ticks) * step if threading.get_ident() == reader else real()


def test_the_expert_plays_the_same_card_on_a_machine_25_times_slower(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for state in random_positions(6, 2, seed=70):
        view = observe(state, state.turn)
        idle = choose_card("expert", view, random.Random(5), deadline=None)
        # The service's guard: one second. Each world now takes 5 ms, 192 worlds 0.96 s.
        monkeypatch.setattr(expert.time, "monotonic", slow_clock(0.005))
        loaded = choose_card("expert", view, random.Random(5), deadline=1.0)
        monkeypatch.undo()
        assert loaded == idle


def test_a_search_cut_short_by_its_deadline_says_so_and_still_plays_a_legal_card(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    state = next(s for s in random_positions(20, 2, seed=71) if s.stock)
    view = observe(state, state.turn)
    monkeypatch.setattr(expert.time, "monotonic", slow_clock(0.1))
    with caplog.at_level(logging.WARNING, logger="basra.bots"):
        card = choose_card("expert", view, random.Random(5), deadline=1.0)
    assert card in view.hand
    assert any("cut short" in r.getMessage() for r in caplog.records if r.name == "basra.bots")
