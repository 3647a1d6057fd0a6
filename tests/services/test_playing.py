"""Playing cards: bots' replies, the order of refusals, idempotency and lost races."""

from __future__ import annotations

import pytest

from app.engine import Card, CardNotInHand, GameNotActive, InvalidCard, NotYourTurn, Play
from app.persistence.memory import MemoryUnitOfWork
from app.services import audit, bots, games, playing, progress
from app.services.creation import Player
from app.services.errors import (
    Busy,
    ConcurrentUpdate,
    Forbidden,
    IdempotencyConflict,
    NotFound,
    Unauthorized,
    VersionMismatch,
)
from app.services.progress import execute

from .support import FLOOR, HANDS, hand, play, two_humans


def test_a_card_is_played_and_the_view_moves_on(uow):
    game_id, tokens = two_humans(uow)
    played = play(uow, game_id, tokens[0], "9s")  # lower case is accepted
    assert played.moves == [
        {"n": 1, "round": 1, "seat": 0, "card": "9S", "captured": FLOOR, "basra": "basra"}
    ]
    assert played.state["turn"] == 1 and "9S" not in played.state["hand"]
    assert audit.moves(uow, game_id) == played.moves


def test_a_bot_replies_inside_the_same_use_case(uow):
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")])
    token = created.seats[0]["token"]
    played = play(uow, created.game_id, token, created.state["hand"][0])
    assert [move["seat"] for move in played.moves] == [0, 1]
    assert played.state["turn"] == 0


def test_an_unknown_game_is_not_found_before_the_token_is_looked_at(uow):
    with pytest.raises(NotFound):
        play(uow, "0123456789abcdef", None, "ZZ")


def test_no_token_or_an_unknown_one_is_unauthorized(uow):
    game_id, _ = two_humans(uow)
    for token in (None, "nope"):
        with pytest.raises(Unauthorized):
            play(uow, game_id, token, "ZZ")


def test_a_token_of_another_game_is_forbidden(uow):
    game_id, _ = two_humans(uow)
    _, other = two_humans(uow)
    with pytest.raises(Forbidden):
        play(uow, game_id, other[0], "ZZ")
    with pytest.raises(Forbidden):
        audit.view(uow, game_id, other[0])


def test_a_bad_card_code_is_refused_before_the_games_state(uow):
    game_id, tokens = two_humans(uow)
    with pytest.raises(InvalidCard):
        play(uow, game_id, tokens[1], "ZZ")  # not seat 1's turn either


def test_state_refusals_come_in_api_order_turn_then_version_then_hand(uow):
    game_id, tokens = two_humans(uow)
    with pytest.raises(NotYourTurn):
        play(uow, game_id, tokens[1], "KC", if_match=0)
    with pytest.raises(VersionMismatch) as stale:
        play(uow, game_id, tokens[0], "KC", if_match=1)
    assert stale.value.extra["version"] > 1
    with pytest.raises(CardNotInHand):
        play(uow, game_id, tokens[0], "KC")
    assert hand(uow, game_id, tokens[0]) == HANDS[0]


def test_a_move_in_a_waiting_game_is_refused(uow):
    created = games.create_game(uow, [Player(name="Amira"), Player(open=True)])
    with pytest.raises(GameNotActive):
        play(uow, created.game_id, created.seats[0]["token"], "7D")


def test_a_retry_with_the_same_key_returns_the_first_result_and_applies_nothing(uow):
    game_id, tokens = two_humans(uow)
    first = play(uow, game_id, tokens[0], "9S", idempotency_key="k")
    version = first.state["version"]
    again = play(uow, game_id, tokens[0], "9S", idempotency_key="k", if_match=1)
    assert again.to_dict() == first.to_dict() and again.replayed and not first.replayed
    assert audit.view(uow, game_id, None)["version"] == version


def test_the_same_key_with_another_card_is_a_conflict(uow):
    game_id, tokens = two_humans(uow)
    play(uow, game_id, tokens[0], "9S", idempotency_key="k")
    with pytest.raises(IdempotencyConflict):
        play(uow, game_id, tokens[0], "2C", idempotency_key="k")


def test_a_refused_move_stores_no_idempotent_result(uow):
    game_id, tokens = two_humans(uow)
    with pytest.raises(NotYourTurn):
        play(uow, game_id, tokens[1], "KC", idempotency_key="early")
    play(uow, game_id, tokens[0], "9S")
    assert play(uow, game_id, tokens[1], "KC", idempotency_key="early").moves[0]["seat"] == 1


class RacingUnitOfWork(MemoryUnitOfWork):
    """Another request commits a move between this one's load and its save, ``losses``
    times: the use case must reload and decide again."""

    def __init__(self, losses: int, rival: tuple[str, str, str]) -> None:
        super().__init__()
        self.losses, self.rival = losses, rival

    def commit(self) -> None:
        if self.losses:
            self.losses -= 1
            game_id, token, card = self.rival
            self.rival = ("", "", "")
            if game_id:
                play(MemoryUnitOfWork(self.store), game_id, token, card)
            raise ConcurrentUpdate("lost the race")
        super().commit()


def test_a_lost_race_is_retried_and_the_retry_sees_the_winners_move():
    uow = RacingUnitOfWork(losses=0, rival=("", "", ""))
    game_id, tokens = two_humans(uow)
    uow.losses, uow.rival = 1, (game_id, tokens[0], "9S")
    with pytest.raises(NotYourTurn):  # the rival played seat 0's move first
        play(uow, game_id, tokens[0], "2C")
    assert [move["card"] for move in audit.moves(uow, game_id)] == ["9S"]


def test_a_game_that_keeps_changing_is_busy_after_five_attempts():
    uow = RacingUnitOfWork(losses=0, rival=("", "", ""))
    game_id, tokens = two_humans(uow)
    uow.losses = 5
    with pytest.raises(Busy):
        play(uow, game_id, tokens[0], "9S")
    assert audit.moves(uow, game_id) == []


def test_two_units_of_work_saving_the_same_version_apply_once():
    first = MemoryUnitOfWork()
    game_id, _ = two_humans(first)
    second = MemoryUnitOfWork(first.store)
    with first, second:
        a, b = first.games.get(game_id), second.games.get(game_id)
        assert a is not None and b is not None
        for game in (a, b):
            execute(game, Play(0, Card.parse("9S")), [])
        first.games.save(a)
        first.commit()
        with pytest.raises(ConcurrentUpdate):
            second.games.save(b)
    assert [move["card"] for move in audit.moves(first, game_id)] == ["9S"]


def thinking_pauses(monkeypatch: pytest.MonkeyPatch, floor: float) -> list[float]:
    pauses: list[float] = []
    monkeypatch.setattr(progress.THINKING, "floor", floor)
    monkeypatch.setattr(progress.time, "sleep", pauses.append)
    return pauses


def test_an_expert_at_a_human_table_thinks_for_at_least_the_floor(uow, monkeypatch):
    pauses = thinking_pauses(monkeypatch, 30.0)
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="expert")])
    play(uow, created.game_id, created.seats[0]["token"], created.state["hand"][0])
    assert pauses and all(0 < pause <= 30.0 for pause in pauses)


def test_bots_alone_and_the_other_levels_are_not_padded(uow, monkeypatch):
    pauses = thinking_pauses(monkeypatch, 30.0)
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")])
    play(uow, created.game_id, created.seats[0]["token"], created.state["hand"][0])
    experts = games.create_game(uow, [Player(bot="expert"), Player(bot="expert")])
    bots.play_bots(uow, experts.game_id, seconds=0.2)
    assert audit.moves(uow, experts.game_id) and pauses == []


def test_stored_answers_expire_the_oldest_first(uow):
    from datetime import UTC, datetime, timedelta

    from app.services.retention import expire_idempotency

    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")])
    token = created.seats[0]["token"]
    card = audit.view(uow, created.game_id, token)["hand"][0]
    command = playing.PlayCard(created.game_id, token, card, idempotency_key="k")
    playing.play_card(uow, command)
    assert playing.play_card(uow, command).replayed
    assert expire_idempotency(uow, datetime.now(UTC)) == 0  # a day has not passed
    assert expire_idempotency(uow, datetime.now(UTC) + timedelta(days=1, seconds=1)) == 1
    with uow:
        assert uow.games.stored_result(created.game_id, 0, "k") is None
