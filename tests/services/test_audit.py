"""Reading a game: views, the log (redacted while on), replay, verify, fairness, lists."""

from __future__ import annotations

import pytest

from app.services import audit, bots, games
from app.services.creation import Player
from app.services.errors import GameNotFinished, InvalidRequest, NotFound

from .support import finished_bot_game, play, two_humans


@pytest.fixture
def finished(uow):
    return finished_bot_game(uow)


def test_a_spectator_sees_no_hand(uow):
    game_id, _ = two_humans(uow)
    view = audit.view(uow, game_id, None)
    assert "hand" not in view and "you" not in view
    assert [seat["name"] for seat in view["seats"]] == ["Amira", "Badr"]


def test_the_log_hides_dealt_decks_while_the_game_is_on(uow):
    game_id, tokens = two_humans(uow)
    entries = audit.events(uow, game_id, tokens[0])["events"]
    dealt = [e for e in entries if e["type"] == "RoundDealt"]
    assert dealt and "deck" not in dealt[0]["data"]
    assert audit.events(uow, game_id, None, after=len(entries))["events"] == []


def test_the_log_comes_in_pages(uow, finished):
    first = audit.events(uow, finished, None, limit=3)
    assert [e["seq"] for e in first["events"]] == [1, 2, 3] and first["next_after"] == 3
    rest = audit.events(uow, finished, None, after=3, limit=10_000)
    assert rest["events"][0]["seq"] == 4 and rest["next_after"] is None


def test_the_log_shows_everything_once_the_game_is_over(uow, finished):
    entries = audit.events(uow, finished, None)["events"]
    dealt = [e for e in entries if e["type"] == "RoundDealt"]
    rounds = len(audit.view(uow, finished, None)["rounds"])
    assert [e["data"]["round"] for e in dealt] == list(range(1, rounds + 1))
    assert all(len(set(e["data"]["deck"])) == len(e["data"]["deck"]) == 52 for e in dealt)


def test_replay_opens_once_the_game_is_over(uow):
    game_id, tokens = two_humans(uow)
    play(uow, game_id, tokens[0], "9S")
    with pytest.raises(GameNotFinished):
        audit.replay_step(uow, game_id, 0)


def test_replay_step_0_is_the_first_deal_and_the_last_step_the_end(uow, finished):
    first = audit.replay_step(uow, finished, 0)
    assert first.step == 0 and first.state["status"] == "active"
    assert [len(hand) for hand in first.state["hands"]] == [4, 4]
    assert len(first.state["stock"]) == first.state["stock_size"]
    last = audit.replay_step(uow, finished, first.moves)
    assert last.state["status"] == "finished"
    assert last.state["version"] == audit.view(uow, finished, None)["version"]
    with pytest.raises(InvalidRequest):
        audit.replay_step(uow, finished, first.moves + 1)


def four_bots_finished(uow):
    game_id = games.create_game(uow, [Player(bot="random"), Player(bot="greedy")] * 2).game_id
    for _ in range(1000):
        if not bots.play_bots(uow, game_id, seconds=5.0):
            return game_id
    raise AssertionError("the bots' match did not end")


def test_every_replayed_step_holds_the_52_cards_each_once(uow):
    game_id = four_bots_finished(uow)  # four seats: more hands to account for
    for step in range(audit.replay_step(uow, game_id, 0).moves + 1):
        state = audit.replay_step(uow, game_id, step).state
        held = [*(c for hand in state["hands"] for c in hand), *state["stock"], *state["floor"],
                *(c for pile in state["piles"] for c in pile)]  # fmt: skip
        assert len(held) + len(state.get("discarded", [])) == 52, step
        assert len(set(held)) == len(held), step
        assert [len(h) for h in state["hands"]] == [s["hand_size"] for s in state["seats"]]
        assert [len(p) for p in state["piles"]] == [s["captured"] for s in state["sides"]]


def test_after_a_rounds_last_move_the_replay_is_the_next_rounds_fresh_deal(uow):
    game_id = finished_bot_game(uow, target=101)
    listed = audit.moves(uow, game_id)
    rounds = audit.view(uow, game_id, None)["rounds"]
    assert len(rounds) >= 2, "a match to 101 takes more than one round"
    for number in range(1, len(rounds)):
        last = max(m["n"] for m in listed if m["round"] == number)
        state = audit.replay_step(uow, game_id, last).state
        assert state["round"] == number + 1 and state["status"] == "active"
        assert len(state["floor"]) == 4 and len(state["stock"]) == 40
        assert state["piles"] == [[], []] and state["last_move"] is None
        assert state["rounds"] == rounds[:number]
        assert [s["score"] for s in state["sides"]] == [
            sum(r["points"][side] for r in rounds[:number]) for side in (0, 1)
        ]
        assert audit.replay_step(uow, game_id, last - 1).state["last_move"] == listed[last - 2]


def test_verify_passes_for_an_untouched_game_and_names_a_changed_event(uow, finished):
    assert audit.verify(uow, finished)["ok"]
    log = uow.store.logs[finished]
    changed = log[3].data | {"seat": 1 - log[3].data.get("seat", 0)}
    log[3] = type(log[3])(log[3].seq, log[3].type, changed, log[3].at, log[3].hash)
    verdict = audit.verify(uow, finished)
    assert not verdict["ok"] and verdict["checks"]["hash_chain"]["broken_seq"] == 4


def test_fairness_reveals_the_server_seed_only_once_over(uow, finished):
    game_id, _ = two_humans(uow)
    assert audit.fairness(uow, game_id)["server_seed"] is None
    assert audit.fairness(uow, finished)["server_seed"]


def test_the_list_is_newest_first_and_pages_with_a_cursor(uow, finished):
    game_id, _ = two_humans(uow)
    first = audit.list_games(uow, None, 1, None)
    assert [g["id"] for g in first["games"]] == [game_id]
    second = audit.list_games(uow, None, 1, first["next_cursor"])
    assert [g["id"] for g in second["games"]] == [finished] and second["next_cursor"] is None
    listed = audit.list_games(uow, "finished", 5, None)["games"]
    sides = audit.view(uow, finished, None)["sides"]
    assert [g["id"] for g in listed] == [finished]
    assert (
        listed[0]["scores"] == [side["score"] for side in sides] and max(listed[0]["scores"]) >= 1
    )
    with pytest.raises(InvalidRequest):
        audit.list_games(uow, None, 1, "not-a-cursor")


def test_reading_an_unknown_game_is_not_found(uow):
    for read in (audit.moves, audit.fairness, audit.verify):
        with pytest.raises(NotFound):
            read(uow, "0123456789abcdef")
