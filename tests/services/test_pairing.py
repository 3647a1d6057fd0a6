"""The pairing of waiting seeks, pinned by tables: who sits with whom, and in which seats."""

from __future__ import annotations

import random

import pytest

from app.services.pairing import (
    Seeker,
    Sitter,
    allowed_gap,
    balanced_teams,
    bot_tables,
    closest_level,
    human_tables,
    seated,
)

BOTS = {
    "random": ("bot-random", 20.0),
    "greedy": ("bot-greedy", 28.6),
    "skilled": ("bot-skilled", 31.5),
    "expert": ("bot-expert", 36.5),
}


def seekers(*entries: tuple[str, float, float], players: int = 2, kind: str = "k") -> list[Seeker]:
    """(name, rating, seconds waited) each; the seek and the player are named alike."""
    return [Seeker(name, name, rating, waited, kind, players) for name, rating, waited in entries]


def tables_of(waiting: list[Seeker]) -> list[set[str]]:
    return [set(table.seek_ids) for table in human_tables(waiting, random.Random(1))]


@pytest.mark.parametrize(
    ("waited", "gap"),
    [(0, 1), (1, 1.5), (2, 2), (10, 6), (37, 19.5), (38, 20), (600, 20), (-5, 1)],
)
def test_the_allowed_gap_widens_with_the_wait_up_to_its_cap(waited, gap):
    assert allowed_gap(waited) == gap


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        # the closest two first, then the closest of those left
        ([("a", 25, 0), ("b", 25.2, 0), ("c", 25.6, 0), ("d", 26.5, 0)], [{"a", "b"}, {"c", "d"}]),
        ([("a", 25, 0), ("b", 25.8, 0), ("c", 25.9, 0)], [{"b", "c"}]),
        # 1.2 apart: too far at once, close enough once one of them has waited a second
        ([("a", 25, 0), ("b", 26.2, 0)], []),
        ([("a", 25, 1), ("b", 26.2, 0)], [{"a", "b"}]),
        # the longest waiter's allowance decides: 8 apart after 14 s
        ([("a", 21, 14), ("b", 29, 0)], [{"a", "b"}]),
        ([("a", 21, 13), ("b", 29, 0)], []),
        # as close: the pair that waited longest first
        ([("a", 25, 0), ("b", 25.5, 0), ("c", 26, 9)], [{"b", "c"}]),
        ([("a", 25, 0)], []),
        ([], []),
    ],
)
def test_two_player_seeks_pair_closest_ratings_first(entries, expected):
    assert tables_of(seekers(*entries)) == expected


def test_only_seeks_of_one_kind_sit_together():
    waiting = seekers(("a", 25, 0), kind="2:casual:x") + seekers(("b", 25, 0), kind="2:rated:x")
    assert tables_of(waiting) == []
    waiting += seekers(("c", 25.1, 0), kind="2:rated:x")
    assert tables_of(waiting) == [{"b", "c"}]


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        ([("a", 25, 0), ("b", 25.2, 0), ("c", 25.4, 0)], []),
        ([("a", 25, 0), ("b", 25.2, 0), ("c", 25.4, 0), ("d", 26, 0)], [{"a", "b", "c", "d"}]),
        ([("a", 25, 0), ("b", 25.2, 0), ("c", 25.4, 0), ("d", 26.1, 0)], []),
        # five: the four closest together
        (
            [("a", 23, 0), ("b", 25, 0), ("c", 25.2, 0), ("d", 25.4, 0), ("e", 25.6, 0)],
            [{"b", "c", "d", "e"}],
        ),
    ],
)
def test_four_player_seeks_sit_four_close_ratings_together(entries, expected):
    assert tables_of(seekers(*entries, players=4)) == expected


@pytest.mark.parametrize(
    ("ratings", "partner_of_first"),
    [
        ((1000, 1100, 1200, 1300), 1300),  # 1000+1300 against 1100+1200
        ((1300, 1000, 1200, 1100), 1000),
        ((1500, 1500, 1500, 1500), 1500),
        ((1000, 1000, 2000, 2000), 2000),
    ],
)
def test_four_are_split_into_the_teams_of_the_closest_totals(ratings, partner_of_first):
    sitters = [Sitter(f"p{i}", rating) for i, rating in enumerate(ratings)]
    ours, theirs = balanced_teams(sitters)
    assert ours[0] is sitters[0]
    assert ours[1].rating == partner_of_first
    assert len(theirs) == 2 and not set(map(id, ours)) & set(map(id, theirs))


def test_a_four_player_table_seats_teams_on_opposite_seats_in_a_random_order():
    sitters = [Sitter(f"p{r}", r) for r in (1000, 1100, 1200, 1300)]
    orders = set()
    for seed in range(64):
        order = seated(sitters, random.Random(seed))
        teams = {frozenset({order[0].rating, order[2].rating}),
                 frozenset({order[1].rating, order[3].rating})}  # fmt: skip
        assert teams == {frozenset({1000, 1300}), frozenset({1100, 1200})}
        orders.add(tuple(s.player_id for s in order))
    assert len(orders) == 8  # 2 sides x 2 x 2 orders within the teams, all drawn


def test_two_players_take_either_seat():
    a, b = Sitter("a", 1500), Sitter("b", 1500)
    firsts = {seated([a, b], random.Random(seed))[0].player_id for seed in range(32)}
    assert firsts == {"a", "b"}


@pytest.mark.parametrize(
    ("rating", "level"),
    [(10, "random"), (24.2, "random"), (24.4, "greedy"), (30, "greedy"), (30.1, "skilled"),
     (33.9, "skilled"), (34.1, "expert"), (50, "expert")],
)  # fmt: skip
def test_bots_of_the_closest_rating(rating, level):
    assert closest_level(rating, BOTS) == level


def test_a_seek_past_its_bot_after_sits_with_bots_of_the_closest_rating():
    waiting = [
        Seeker("a", "a", 28, 10, "k", 2, bot_after=10),
        Seeker("b", "b", 28, 9, "k", 2, bot_after=10),
        Seeker("c", "c", 36, 30, "k", 4, bot_after=5),
        Seeker("d", "d", 36, 30, "k", 2),
    ]
    tables = bot_tables(waiting, BOTS, random.Random(3))
    assert [table.seek_ids for table in tables] == [("a",), ("c",)]
    two, four = tables
    assert {s.bot for s in two.sitters} == {None, "greedy"}
    assert [s.bot for s in four.sitters].count("expert") == 3
    assert all(table.with_bots for table in tables)
