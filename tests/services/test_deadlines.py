"""Deadlines as use cases on the in-memory unit of work: the sweep plays an expired turn
for its seat and cancels a waiting game nobody joined; every use case settles a passed
deadline first; resignation; invitations."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.engine import GameNotActive, NotYourTurn
from app.persistence.memory import MemoryUnitOfWork
from app.services import audit, games, playing
from app.services.creation import Player
from app.services.errors import Forbidden, GameFull
from app.services.progress import sweep

from .support import FLOOR, HANDS, stacked_deck

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
HUMANS = [Player(name="Amira"), Player(name="Badr")]


def clocked(uow: MemoryUnitOfWork, **rules: int) -> tuple[str, list[str]]:
    created = games.create_game(uow, HUMANS, rules={"turn_seconds": 30, **rules},
                                deck=stacked_deck(HANDS, FLOOR), now=T0)  # fmt: skip
    return created.game_id, [seat["token"] for seat in created.seats]


def kinds(uow: MemoryUnitOfWork, game_id: str) -> list[str]:
    return [event["type"] for event in audit.events(uow, game_id, None)["events"]]


def test_the_deadline_is_the_turn_seconds_after_the_last_change(uow):
    game_id, _ = clocked(uow)
    assert audit.view(uow, game_id, None, now=T0)["deadline"] == "2026-11-30T12:00:30.000000Z"


def test_the_next_clock_starts_once_the_bots_have_replied(uow, monkeypatch):
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")],
                                rules={"turn_seconds": 30}, now=T0)  # fmt: skip
    token = created.seats[0]["token"]
    hand = audit.view(uow, created.game_id, token, now=T0)["hand"]

    class Clock:  # the request's bots take 4 s to reply
        readings = iter([100.0, 104.0])

        @staticmethod
        def monotonic() -> float:
            return next(Clock.readings)

    monkeypatch.setattr(playing, "time", Clock)
    playing.play_card(uow, playing.PlayCard(created.game_id, token, hand[0]), now=T0)
    assert (
        audit.view(uow, created.game_id, None, now=T0)["deadline"] == "2026-11-30T12:00:34.000000Z"
    )


def test_a_sweep_before_the_deadline_does_nothing_and_after_it_plays_once(uow):
    game_id, _ = clocked(uow)
    assert sweep(uow, T0 + timedelta(seconds=29)) == 0
    assert sweep(uow, T0 + timedelta(seconds=30)) == 1
    assert sweep(uow, T0 + timedelta(seconds=30)) == 0
    assert kinds(uow, game_id).count("TurnTimedOut") == 1
    # seat 0 holds 9S 2C 3D 4H on AH 5S 9D 3C: only 2C takes nothing, so 2C is played
    timed_out = audit.moves(uow, game_id)[0]
    assert (timed_out["seat"], timed_out["card"], timed_out["captured"]) == (0, "2C", [])


def test_every_use_case_settles_a_passed_deadline_before_it_decides(uow):
    game_id, tokens = clocked(uow)
    late = T0 + timedelta(seconds=31)
    seen = audit.view(uow, game_id, tokens[1], now=late)
    assert seen["turn"] == 1 and len(audit.moves(uow, game_id)) == 1
    assert games.check_access(uow, game_id, None, now=late).version == seen["version"]


def test_max_timeouts_hand_every_seat_to_the_bot_and_the_match_ends(uow):
    game_id, _ = clocked(uow, max_timeouts=1, target_score=1)
    at = T0
    for _ in range(2):
        at += timedelta(seconds=31)
        sweep(uow, at)
    final = audit.view(uow, game_id, None)
    assert final["status"] == "finished" and final["deadline"] is None
    assert kinds(uow, game_id).count("SeatTakenByBot") == 2
    assert audit.verify(uow, game_id)["ok"]


def play_at(uow: MemoryUnitOfWork, game_id: str, token: str, card: str, at: datetime) -> None:
    playing.play_card(uow, playing.PlayCard(game_id, token, card), now=at)


def test_a_card_sent_after_the_deadline_finds_the_turn_already_played(uow):
    game_id, tokens = clocked(uow)
    with pytest.raises(NotYourTurn):
        play_at(uow, game_id, tokens[0], "9S", T0 + timedelta(seconds=31))
    assert [move["card"] for move in audit.moves(uow, game_id)] == ["2C"]
    assert audit.verify(uow, game_id)["ok"]


def test_a_bot_replies_to_a_timed_out_move_and_the_human_gets_a_new_clock(uow):
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")],
                                rules={"turn_seconds": 30}, now=T0)  # fmt: skip
    at = T0 + timedelta(seconds=31)
    assert sweep(uow, at) == 1
    assert [move["seat"] for move in audit.moves(uow, created.game_id)][:2] == [0, 1]
    now = audit.view(uow, created.game_id, created.seats[0]["token"], now=at)
    assert now["turn"] == 0 and now["deadline"] == "2026-11-30T12:01:01.000000Z"


def test_max_timeouts_in_a_row_hand_a_seat_to_the_bot_each_logged(uow):
    game_id, _ = clocked(uow, max_timeouts=2, target_score=1)
    at = T0
    for _ in range(4):  # seat 0, seat 1, seat 0 (taken), seat 1 (taken, then bots play on)
        at += timedelta(seconds=31)
        sweep(uow, at)
    logged = audit.events(uow, game_id, None)["events"]
    taken = [e["data"] for e in logged if e["type"] == "SeatTakenByBot"]
    assert taken == [{"seat": 0, "bot": "greedy"}, {"seat": 1, "bot": "greedy"}]
    assert [e["data"]["in_a_row"] for e in logged if e["type"] == "TurnTimedOut"] == [1, 1, 2, 2]
    final = audit.view(uow, game_id, None)
    assert final["status"] == "finished" and [s["bot"] for s in final["seats"]] == ["greedy"] * 2
    end = audit.replay_step(uow, game_id, audit.replay_step(uow, game_id, 0).moves).state
    assert end["status"] == "finished" and end["winner"] == final["winner"]


def test_a_card_of_its_own_ends_a_seats_run_of_timeouts(uow):
    game_id, tokens = clocked(uow, max_timeouts=2)
    at = T0 + timedelta(seconds=31)
    sweep(uow, at)  # seat 0 times out once (2C)
    play_at(uow, game_id, tokens[1], "KC", at)
    play_at(uow, game_id, tokens[0], "9S", at)  # a card of its own
    play_at(uow, game_id, tokens[1], "KD", at)
    sweep(uow, at + timedelta(seconds=31))  # seat 0 again: one in a row, no takeover
    assert "SeatTakenByBot" not in kinds(uow, game_id)
    assert [e["data"]["in_a_row"] for e in audit.events(uow, game_id, None)["events"]
            if e["type"] == "TurnTimedOut"] == [1, 1]  # fmt: skip


def test_resigning_ends_the_match_and_reveals_the_seed(uow):
    game_id, tokens = clocked(uow)
    resigned = playing.resign_game(uow, game_id, tokens[1], now=T0)
    assert resigned.state["winner"] == 0 and resigned.state["status"] == "finished"
    assert audit.fairness(uow, game_id)["server_seed"]
    with pytest.raises(GameNotActive):
        playing.resign_game(uow, game_id, tokens[0], now=T0)
    assert sweep(uow, T0 + timedelta(days=2)) == 0  # a finished game has no deadline
    assert audit.verify(uow, game_id)["ok"]


def test_a_resignation_is_logged_and_replays_to_the_other_sides_win(uow):
    game_id, tokens = clocked(uow)
    playing.resign_game(uow, game_id, tokens[1], now=T0)
    assert kinds(uow, game_id)[-3:] == ["Resigned", "MatchEnded", "SeedRevealed"]
    checks = audit.verify(uow, game_id)["checks"]
    assert checks["commitment"]["ok"] and checks["decks"]["ok"]
    replayed = audit.replay_step(uow, game_id, 0)
    assert replayed.moves == 0 and replayed.state["winner"] == 0


def test_in_a_four_player_game_the_resigners_whole_side_loses(uow):
    four = [Player(name=name) for name in ("Amira", "Badr", "Camelia", "Dalia")]
    created = games.create_game(uow, four, now=T0)
    resigned = playing.resign_game(uow, created.game_id, created.seats[2]["token"], now=T0)
    assert resigned.state["winner"] == 1 and resigned.state["resigned"] == 0


def test_a_game_still_waiting_for_players_cannot_be_resigned(uow):
    created = games.create_game(uow, [Player(name="Amira"), Player(open=True)], now=T0)
    with pytest.raises(GameNotActive):
        playing.resign_game(uow, created.game_id, created.seats[0]["token"], now=T0)


def test_joining_needs_the_invite_unless_the_game_is_public(uow):
    private = games.create_game(uow, [Player(name="Amira"), Player(open=True)], now=T0)
    assert private.invite
    with pytest.raises(Forbidden):
        games.join_game(uow, private.game_id, "Zaki", now=T0)
    with pytest.raises(Forbidden):
        games.join_game(uow, private.game_id, "Zaki", invite="nope", now=T0)
    assert games.join_game(uow, private.game_id, "Zaki", invite=private.invite, now=T0).seat == 1
    with pytest.raises(GameFull):
        games.join_game(uow, private.game_id, "Late", invite=private.invite, now=T0)
    public = games.create_game(uow, [Player(name="Amira"), Player(open=True)], public=True)
    assert games.join_game(uow, public.game_id, "Zaki").seat == 1


def test_a_waiting_game_ends_cancelled_when_nobody_joins_in_time(uow):
    created = games.create_game(uow, [Player(name="Amira"), Player(open=True)],
                                waiting_seconds=60, now=T0)  # fmt: skip
    assert sweep(uow, T0 + timedelta(seconds=59)) == 0
    assert sweep(uow, T0 + timedelta(seconds=60)) == 1
    state = audit.view(uow, created.game_id, None)
    assert state["status"] == "cancelled" and state["deadline"] is None
    assert kinds(uow, created.game_id)[-2:] == ["GameCancelled", "SeedRevealed"]
    assert audit.fairness(uow, created.game_id)["server_seed"]
    assert audit.verify(uow, created.game_id)["ok"]
    with pytest.raises(GameFull):
        games.join_game(uow, created.game_id, "Zaki", invite=created.invite)


def test_a_join_gives_the_game_another_wait_for_its_last_seat(uow):
    created = games.create_game(
        uow, [Player(name="Amira"), Player(open=True), Player(open=True), Player(bot="greedy")],
        waiting_seconds=60, now=T0,
    )  # fmt: skip
    games.join_game(uow, created.game_id, "Badr", invite=created.invite,
                    waiting_seconds=60, now=T0 + timedelta(seconds=50))  # fmt: skip
    assert sweep(uow, T0 + timedelta(seconds=100)) == 0
    assert sweep(uow, T0 + timedelta(seconds=110)) == 1
    assert audit.view(uow, created.game_id, None)["status"] == "cancelled"
