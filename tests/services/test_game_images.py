"""GameImages on their own (the in-memory store): which games are kept, for how long, and
that an image serves one move at a time. Through HTTP on both databases:
tests/api/test_game_images.py."""

from __future__ import annotations

import pytest

from app.persistence.memory import MemoryUnitOfWork
from app.services import games
from app.services.creation import Player
from app.services.errors import ServiceError
from app.services.game_images import GameImages


def against_a_bot(uow: MemoryUnitOfWork, images: GameImages) -> tuple[str, str]:
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")], images=images)
    return created.game_id, created.seats[0]["token"]


def test_the_least_recently_kept_image_goes_first_past_the_capacity(uow):
    images = GameImages(2)
    first, _ = against_a_bot(uow, images)
    second, token = against_a_bot(uow, images)
    access = games.check_access(uow, second, token)  # a read keeps and drops nothing
    assert access.seat == 0 and len(images) == 2
    card = uow.games.get(second).state.hands[0][0]
    games.play_card(uow, games.PlayCard(second, token, str(card)), images=images)
    third, _ = against_a_bot(uow, images)
    assert len(images) == 2
    assert images.peek(first) is None  # kept least recently: the second was kept again
    assert images.peek(second) is not None and images.peek(third) is not None


def test_an_image_serves_one_move_and_its_save_keeps_the_next(uow):
    images = GameImages(10)
    game_id, token = against_a_bot(uow, images)
    kept = images.take(game_id)
    assert kept is not None and images.take(game_id) is None
    card = str(kept.record().state.hands[0][0])
    played = games.play_card(uow, games.PlayCard(game_id, token, card), images=images)
    image = images.peek(game_id)  # the move loaded its game, and its save kept one
    assert image is not None and image.version == played.state["version"]
    assert image.record().state.to_dict() == uow.games.get(game_id).state.to_dict()


def test_a_capacity_of_zero_keeps_nothing(uow):
    images = GameImages(0)
    against_a_bot(uow, images)
    assert len(images) == 0


def test_a_game_an_image_missed_is_not_kept_again(uow):
    images = GameImages(10)
    game_id, token = against_a_bot(uow, images)
    images.missed(game_id)
    assert images.peek(game_id) is None
    card = str(uow.games.get(game_id).state.hands[0][0])
    games.play_card(uow, games.PlayCard(game_id, token, card), images=images)
    assert images.peek(game_id) is None  # saved and loaded as any game, no image kept


def test_a_move_with_a_bogus_token_leaves_the_image_for_the_player(uow):
    images = GameImages(10)
    game_id, token = against_a_bot(uow, images)
    _, stranger = against_a_bot(uow, images)  # a real token, of another game
    kept = images.peek(game_id)
    card = str(uow.games.get(game_id).state.hands[0][0])
    for bogus in ("made-up", stranger, None):
        with pytest.raises(ServiceError):
            games.play_card(uow, games.PlayCard(game_id, bogus, card), images=images)
        assert images.peek(game_id) is kept, bogus
    games.play_card(uow, games.PlayCard(game_id, token, card), images=images)
    assert images.peek(game_id) is not None  # served from the image, then kept again


def test_a_refused_resignation_leaves_the_image_and_a_resignation_drops_it(uow):
    images = GameImages(10)
    game_id, token = against_a_bot(uow, images)
    kept = images.peek(game_id)
    with pytest.raises(ServiceError):
        games.resign_game(uow, game_id, "made-up", images=images)
    assert images.peek(game_id) is kept
    games.resign_game(uow, game_id, token, images=images)
    assert images.peek(game_id) is None
