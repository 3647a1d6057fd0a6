"""Online play (API.md item 23) on the in-memory unit of work: the default turn clock of games
between players, a player's list of games, and the rematch."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from app.persistence.memory import MemoryUnitOfWork
from app.services import audit, games, matchmaking, players, playing, progress, rematch
from app.services import seeks as seeking
from app.services.creation import Player
from app.services.errors import (
    ConcurrentUpdate,
    Forbidden,
    GameNotFinished,
    NotFound,
    Unauthorized,
)
from app.services.log import REMATCH_OFFERED
from app.services.model import ACTIVE, CANCELLED, WAITING

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def new_player(uow: MemoryUnitOfWork, name: str) -> players.CreatedPlayer:
    return players.create_player(uow, name)


def rated_game(uow: MemoryUnitOfWork, *seats: players.CreatedPlayer,
               rules: dict[str, object] | None = None) -> games.Created:  # fmt: skip
    """A rated game of these players, every seat taken (seat order as given)."""
    entries = [Player(name=p.player.name, player_id=p.player.id) for p in seats]
    return games.create_game(uow, entries, rules=rules, rated=True, now=NOW)


def offers(uow: MemoryUnitOfWork, game_id: str) -> list[dict[str, object]]:
    """The data of the game's ``RematchOffered`` log entries."""
    return [e["data"] for e in audit.events(uow, game_id, None)["events"]
            if e["type"] == REMATCH_OFFERED]  # fmt: skip


def finished(uow: MemoryUnitOfWork, created: games.Created, resigning_token: str) -> str:
    playing.resign_game(uow, created.game_id, resigning_token, NOW)
    return created.game_id


# ---------------------------------------------------------------- the default clock


@pytest.mark.parametrize(
    ("rules", "clock"),
    [
        (None, (30, 2)),
        ({"target_score": 51}, (30, 2)),
        ({"max_timeouts": 5}, (30, 5)),
        ({"turn_seconds": 60}, (60, 3)),
        ({"turn_seconds": None}, (None, 3)),
    ],
)
def test_a_rated_game_has_the_default_clock_unless_its_rules_name_turn_seconds(uow, rules, clock):
    amira, badr = new_player(uow, "Amira"), new_player(uow, "Badr")
    created = rated_game(uow, amira, badr, rules=rules)
    assert (created.rules["turn_seconds"], created.rules["max_timeouts"]) == clock


def test_a_casual_game_has_no_clock_unless_asked(uow):
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")])
    assert created.rules["turn_seconds"] is None and created.rules["max_timeouts"] == 3


def test_a_matched_game_has_the_default_clock_unless_its_seeks_rules_name_one(uow):
    def seek(name: str, rules: dict[str, object] | None) -> None:
        player = new_player(uow, name).player
        seeker = seeking.Seeking(player.id, player.name, 25.0)
        seeking.open_seek(uow, seeker, 2, rules=rules, now=NOW)

    seek("Amira", None)
    seek("Badr", {"turn_seconds": 30, "max_timeouts": 2})  # the same effective rules
    seek("Chadi", {"turn_seconds": None})
    seek("Dina", {"turn_seconds": None})
    done = matchmaking.pair_seeks(uow, NOW, lambda: {}, random.Random(1))
    with uow:
        made = [uow.games.get(seated.game_id) for seated in done.seated]
    clocks = sorted((str(g.state.rules.turn_seconds), g.state.rules.max_timeouts)
                    for g in made if g is not None)  # fmt: skip
    assert clocks == [("30", 2), ("None", 3)]


# ---------------------------------------------------------------- a player's games


def test_a_players_games_show_the_seats_the_scores_and_whose_turn_it_is(uow):
    amira, badr = new_player(uow, "Amira"), new_player(uow, "Badr")
    created = rated_game(uow, amira, badr)
    turn = created.state["turn"]
    entries = {
        p.player.id: players.player_games(uow, p.player.id, None, 10, None)["games"][0]
        for p in (amira, badr)
    }
    first = entries[amira.player.id]
    assert first["players"] == [
        {"seat": 0, "name": "Amira", "player": amira.player.id, "bot": None},
        {"seat": 1, "name": "Badr", "player": badr.player.id, "bot": None},
    ]
    assert first["scores"] == [0, 0] and first["status"] == ACTIVE
    with uow:
        game = uow.games.get(created.game_id)
    assert game is not None and first["updated_at"] == game.updated_at.isoformat()
    assert [entries[p.player.id]["your_turn"] for p in (amira, badr)] == [turn == 0, turn == 1]
    finished(uow, created, amira.token)
    after = players.player_games(uow, amira.player.id, None, 10, None)["games"][0]
    assert after["your_turn"] is False and after["result"] == "lost"


# ---------------------------------------------------------------- the rematch


def test_the_first_seat_to_ask_makes_the_rematch_and_the_others_seats_are_held(uow):
    amira, badr = new_player(uow, "Amira"), new_player(uow, "Badr")
    old = rated_game(uow, amira, badr, rules={"target_score": 51})
    finished(uow, old, badr.token)
    made = rematch.rematch_game(uow, old.game_id, badr.token, NOW)
    assert made.game_id != old.game_id and made.status == WAITING
    assert made.rules == old.rules and made.fairness["commitment"] != old.fairness["commitment"]
    seats = {seat["seat"]: seat for seat in made.seats}
    assert seats[1]["player"] == badr.player.id and "token" in seats[1] and not seats[1]["open"]
    assert seats[0] == {"seat": 0, "name": "Amira", "bot": None, "open": True,
                        "player": amira.player.id}  # fmt: skip
    assert made.state["you"] == 1
    assert offers(uow, old.game_id) == [{"game_id": made.game_id, "seat": 1}]
    with uow:
        game = uow.games.get(made.game_id)
    assert game is not None and game.rated and game.rematch_of == old.game_id
    assert game.deadline == NOW + timedelta(seconds=rematch.REMATCH_SECONDS)


def test_every_seat_gets_the_same_rematch_and_the_last_one_seated_starts_it(uow):
    amira, badr = new_player(uow, "Amira"), new_player(uow, "Badr")
    old = rated_game(uow, amira, badr)
    finished(uow, old, amira.token)
    first = rematch.rematch_game(uow, old.game_id, old.seats[0]["token"], NOW)  # a seat token
    second = rematch.rematch_game(uow, old.game_id, badr.token, NOW + timedelta(seconds=10))
    assert second.game_id == first.game_id and second.status == ACTIVE
    assert second.state["you"] == 1 and "token" in second.seats[1]
    assert "token" not in second.seats[0]
    again = rematch.rematch_game(uow, old.game_id, amira.token, NOW + timedelta(seconds=20))
    assert again.game_id == first.game_id and all("token" not in s for s in again.seats)
    assert "you" not in again.state  # the token was shown once: a spectator's view
    assert len(offers(uow, old.game_id)) == 1
    view = audit.view(uow, first.game_id, badr.token, NOW)
    assert view["you"] == 1 and len(view["hand"]) == 4


def test_a_rematch_against_bots_seats_the_bots_again_and_deals_at_once(uow):
    amira = new_player(uow, "Amira")
    entries = [Player(name="Amira", player_id=amira.player.id), Player(bot="expert", name="Ex")]
    old = games.create_game(uow, entries, rated=True, now=NOW)
    finished(uow, old, amira.token)
    made = rematch.rematch_game(uow, old.game_id, amira.token, NOW)
    assert made.status == ACTIVE
    assert made.seats[1] == {"seat": 1, "name": "Ex", "bot": "expert", "open": False,
                             "player": "bot-expert"}  # fmt: skip


def test_a_held_seat_is_joined_by_its_player_alone_and_without_the_invite(uow):
    amira, badr, chadi = (new_player(uow, name) for name in ("Amira", "Badr", "Chadi"))
    old = rated_game(uow, amira, badr)
    finished(uow, old, amira.token)
    made = rematch.rematch_game(uow, old.game_id, amira.token, NOW)
    for player_id in (chadi.player.id, None):
        with pytest.raises(Forbidden):
            games.join_game(uow, made.game_id, "Chadi", player_id=player_id, now=NOW)
    with uow:
        game = uow.games.get(made.game_id)
    assert game is not None and game.seats[1].is_open  # the refusals changed nothing
    assert "you" not in audit.view(uow, made.game_id, badr.token, NOW)  # a spectator until then
    with pytest.raises(Unauthorized):
        playing.resign_game(uow, made.game_id, badr.token, NOW)
    joined = games.join_game(uow, made.game_id, "Badr", player_id=badr.player.id, now=NOW)
    assert joined.seat == 1 and joined.state["status"] == ACTIVE


def test_a_four_seat_rematch_keeps_its_deadline_as_seats_are_taken(uow):
    four = [new_player(uow, name) for name in ("Amira", "Badr", "Chadi", "Dina")]
    old = rated_game(uow, *four)
    finished(uow, old, four[0].token)
    made = rematch.rematch_game(uow, old.game_id, four[0].token, NOW)
    later = NOW + timedelta(seconds=100)
    games.join_game(uow, made.game_id, "Badr", player_id=four[1].player.id, now=later,
                    waiting_seconds=86400)  # fmt: skip
    rematch.rematch_game(uow, old.game_id, four[2].token, later)
    with uow:
        game = uow.games.get(made.game_id)
    assert game is not None and game.status == WAITING
    assert game.deadline == NOW + timedelta(seconds=rematch.REMATCH_SECONDS)


def test_seats_still_held_after_five_minutes_cancel_the_rematch(uow):
    amira, badr = new_player(uow, "Amira"), new_player(uow, "Badr")
    old = rated_game(uow, amira, badr)
    finished(uow, old, amira.token)
    made = rematch.rematch_game(uow, old.game_id, amira.token, NOW)
    late = NOW + timedelta(seconds=rematch.REMATCH_SECONDS)
    assert progress.sweep(uow, late) == 1
    answer = rematch.rematch_game(uow, old.game_id, badr.token, late)
    assert answer.game_id == made.game_id and answer.status == CANCELLED
    assert all("token" not in seat for seat in answer.seats)


def test_a_rematch_is_refused_before_the_end_and_to_whoever_held_no_seat(uow):
    amira, badr, chadi = (new_player(uow, name) for name in ("Amira", "Badr", "Chadi"))
    old = rated_game(uow, amira, badr)
    with pytest.raises(GameNotFinished):
        rematch.rematch_game(uow, old.game_id, amira.token, NOW)
    finished(uow, old, amira.token)
    with pytest.raises(Unauthorized):
        rematch.rematch_game(uow, old.game_id, None, NOW)
    with pytest.raises(Forbidden):
        rematch.rematch_game(uow, old.game_id, chadi.token, NOW)
    with pytest.raises(NotFound):
        rematch.rematch_game(uow, "nope", amira.token, NOW)
    assert offers(uow, old.game_id) == []
    with uow:
        assert uow.games.rematch_id(old.game_id) is None


def test_a_second_rematch_of_one_game_is_a_lost_race(uow):
    amira, badr = new_player(uow, "Amira"), new_player(uow, "Badr")
    old = rated_game(uow, amira, badr)
    finished(uow, old, amira.token)
    first = rematch.rematch_game(uow, old.game_id, amira.token, NOW)
    with uow:
        game = uow.games.get(first.game_id)
        assert game is not None
        game.id = "another"
        with pytest.raises(ConcurrentUpdate):
            uow.games.add(game)
