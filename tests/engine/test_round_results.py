"""Finished rounds kept as rows, and deferred: read only when something needs them, and
written into a view as their store already encoded them (``RoundResults``)."""

from __future__ import annotations

import json

from app.engine import GameState, Rules, observe
from app.engine.rounds import RoundResult, RoundResults

from .helpers import play_match

FIRST = RoundResult(1, (12, 5), (27, 25), 0, (1, 0), (0, 0))
SECOND = RoundResult(2, (3, 30), (20, 32), 1, (0, 2), (0, 1))


def deferred(results: list[RoundResult], reads: list[int]) -> RoundResults:
    """Rounds read from a store: ``reads`` counts the reads; ``encoded`` stands for the
    store's own encoding of their summaries."""

    def read() -> list[list[object]]:
        reads.append(1)
        return [result.to_row() for result in results]

    return RoundResults(read=read, encoded=("as stored", len(results)))


def test_deferred_rounds_are_not_read_until_something_needs_them():
    reads: list[int] = []
    rounds = deferred([FIRST, SECOND], reads)
    copied = rounds.copy()
    assert reads == []
    assert list(rounds) == [FIRST, SECOND] and rounds[-1] == SECOND and len(copied) == 2
    assert reads == [1], "read once for the rounds and every copy of them"


def test_adding_a_round_drops_the_encoding_and_leaves_earlier_copies_as_they_were():
    reads: list[int] = []
    rounds = deferred([FIRST], reads)
    view_before = rounds.copy()
    rounds.append(SECOND)
    assert rounds.encoded is None and list(rounds) == [FIRST, SECOND]
    assert view_before.encoded == ("as stored", 1) and list(view_before) == [FIRST]


def test_a_view_of_deferred_rounds_carries_their_encoding_and_of_others_their_summaries():
    game = play_match(Rules(), 2, b"rounds", choices=3, max_rounds=3)
    state = game.state
    assert len(state.rounds) == 3
    summaries = observe(state, None).to_dict()["rounds"]
    assert summaries == [result.to_dict() for result in state.rounds]

    reads: list[int] = []
    state.rounds = deferred(list(state.rounds), reads)
    assert observe(state, 0).to_dict()["rounds"] == ("as stored", 3)
    assert reads == [], "the view did not read the rounds"


def test_a_snapshot_without_its_rounds_comes_back_with_them_given_apart():
    state = play_match(Rules(), 2, b"apart", choices=5, max_rounds=2).state
    snapshot = json.loads(json.dumps(state.to_dict(with_rounds=False)))
    assert "rounds" not in snapshot
    rows = [result.to_row() for result in state.rounds]
    again = GameState.from_dict(snapshot, RoundResults(read=lambda: rows))
    assert again.to_dict() == state.to_dict()
    # A snapshot that still holds its rounds (written before they were kept apart) wins.
    old = state.to_dict()
    assert GameState.from_dict(old, RoundResults()).rounds == state.rounds


def test_stored_summaries_become_the_same_rows_again():
    assert [RoundResults.row_of(FIRST.to_dict())] == RoundResults([FIRST.to_row()]).rows()
