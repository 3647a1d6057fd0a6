"""Creating and joining games, as use cases with no database and no HTTP."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.persistence.memory import MemoryUnitOfWork
from app.services import audit, bots, games
from app.services.creation import Player
from app.services.errors import Backlogged, GameFull, InvalidRequest, NotFound

from .support import finished_bot_game, stacked_deck, two_humans


def test_a_game_of_two_humans_deals_at_once_and_shows_the_creator_its_hand(uow):
    created = games.create_game(uow, [Player(name="Amira"), Player(name="Badr")])
    assert created.status == "active"
    assert [seat["name"] for seat in created.seats] == ["Amira", "Badr"]
    assert all(seat["token"] for seat in created.seats)
    assert created.state["you"] == 0 and len(created.state["hand"]) == 4
    assert created.fairness["commitment"] and created.rules["target_score"] == 101


def test_a_game_with_an_open_seat_waits_and_shows_no_hand_yet(uow):
    created = games.create_game(uow, [Player(name="Amira"), Player(open=True)])
    assert created.status == "waiting"
    assert created.state["hand"] == [] and created.state["turn"] is None
    assert "token" not in created.seats[1] and created.seats[1]["open"] is True


def test_bots_alone_are_dealt_at_once_and_played_outside_the_creation(uow):
    players = [Player(bot="random"), Player(bot="greedy")]
    created = games.create_game(uow, players, rules={"target_score": 1})
    assert created.status == "active" and created.bots_only and created.moves == []
    assert created.state["round"] == 1
    while bots.play_bots(uow, created.game_id, seconds=5.0):
        pass
    assert audit.view(uow, created.game_id, None)["status"] == "finished"
    assert audit.verify(uow, created.game_id)["ok"]


def test_past_the_backlog_a_game_of_bots_alone_is_refused_and_one_with_a_human_is_not(uow):
    bots_alone = [Player(bot="random"), Player(bot="greedy")]
    for _ in range(2):
        games.create_game(uow, bots_alone, bot_backlog=2)
    with pytest.raises(Backlogged):
        games.create_game(uow, bots_alone, bot_backlog=2)
    games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")], bot_backlog=2)
    with uow:
        assert len(uow.games.stale_bots_only_games(datetime.now(UTC), 10)) == 2  # none added


@pytest.mark.parametrize("count", [1, 3, 5])
def test_a_game_has_2_or_4_players(uow, count):
    with pytest.raises(InvalidRequest) as refused:
        games.create_game(uow, [Player(name=f"P{n}") for n in range(count)])
    assert "players" in refused.value.extra["errors"]


def test_unknown_or_bad_rules_are_all_named_at_once(uow):
    with pytest.raises(InvalidRequest) as refused:
        games.create_game(uow, [Player(name="A"), Player(name="B")],
                          rules={"jokers": True, "target_score": 0})  # fmt: skip
    assert set(refused.value.extra["errors"]["rules"]) == {"jokers", "target_score"}


def test_rules_under_which_nobody_can_score_are_refused(uow):
    no_points = {"majority_points": 0, "basra_points": 0, "jack_basra_points": 0}
    with pytest.raises(InvalidRequest):
        games.create_game(uow, [Player(name="A"), Player(name="B")], rules=no_points)


def test_a_fixed_deck_needs_every_seat_taken_by_its_creator(uow):
    with pytest.raises(InvalidRequest) as refused:
        games.create_game(uow, [Player(name="A"), Player(open=True)], deck=stacked_deck([], []))
    assert "deck" in refused.value.extra["errors"]


def test_a_deck_with_a_repeated_card_is_refused_and_nothing_is_stored(uow):
    deck = stacked_deck([], [])
    deck[1] = deck[0]
    with pytest.raises(InvalidRequest):
        games.create_game(uow, [Player(name="A"), Player(name="B")], deck=deck)
    assert uow.store.games == {}


def test_joining_takes_the_lowest_open_seat_and_the_last_join_deals(uow):
    open_seats = [Player(name="Amira"), Player(open=True), Player(bot="greedy"), Player(open=True)]
    created = games.create_game(uow, open_seats)
    first = games.join_game(uow, created.game_id, "Badr", seed="b", invite=created.invite)
    assert first.seat == 1 and first.state["status"] == "waiting"
    last = games.join_game(uow, created.game_id, "Chadi", invite=created.invite)
    assert last.seat == 3 and last.state["status"] == "active" and len(last.state["hand"]) == 4
    assert audit.fairness(uow, created.game_id)["client_seed"] is not None


def test_joining_a_full_game_is_refused(uow):
    game_id, _ = two_humans(uow)
    with pytest.raises(GameFull):
        games.join_game(uow, game_id, "Zaki")


def test_joining_a_finished_game_is_refused_as_full(uow):
    with pytest.raises(GameFull):
        games.join_game(uow, finished_bot_game(uow), "Zaki")


def test_a_bot_that_leads_plays_inside_the_join_that_starts_the_game(uow):
    open_seats = [Player(bot="greedy"), Player(open=True), Player(open=True), Player(open=True)]
    created = games.create_game(uow, open_seats)
    for name in ("Badr", "Camelia"):
        games.join_game(uow, created.game_id, name, invite=created.invite)
    last = games.join_game(uow, created.game_id, "Dalia", invite=created.invite)
    assert [move["seat"] for move in last.moves] == [0]  # seat 3 deals round 1, seat 0 leads
    assert last.state["turn"] == 1
    assert audit.moves(uow, created.game_id) == last.moves


def test_the_client_seed_is_the_seats_seeds_joined_by_a_bar(uow):
    seats = [Player(name="Amira", seed="alpha"), Player(open=True), Player(bot="random"),
             Player(name="Dalia")]  # fmt: skip
    created = games.create_game(uow, seats)
    games.join_game(uow, created.game_id, "Badr", seed="beta", invite=created.invite)
    assert audit.fairness(uow, created.game_id)["client_seed"] == "alpha|beta||"


def test_joining_an_unknown_game_is_not_found(uow):
    with pytest.raises(NotFound):
        games.join_game(uow, "0123456789abcdef", "Zaki")


def test_a_refused_use_case_commits_nothing(uow: MemoryUnitOfWork):
    game_id, _ = two_humans(uow)
    commits = uow.commits
    with pytest.raises(GameFull):
        games.join_game(uow, game_id, "Zaki")
    assert uow.commits == commits
