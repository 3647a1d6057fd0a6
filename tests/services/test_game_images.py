"""Game images in front of the in-memory store (app/services/game_images.py): which games
are kept, for how long, that an image serves one move at a time, and that a refusal decided
from an image is decided again from a load. Through HTTP on both databases:
tests/api/test_game_images.py."""

from __future__ import annotations

import pytest

from app.engine.errors import CardNotInHand
from app.persistence.memory import MemoryUnitOfWork
from app.services import games, playing
from app.services.creation import Player
from app.services.errors import ServiceError
from app.services.game_images import GameImages, ImagedUnitOfWork


def imaged(uow: MemoryUnitOfWork, capacity: int) -> tuple[GameImages, ImagedUnitOfWork]:
    images = GameImages(capacity)
    return images, ImagedUnitOfWork(uow, images)


def moving(uow: ImagedUnitOfWork) -> ImagedUnitOfWork:
    """The unit of work a move gets: its load may come from an image."""
    return ImagedUnitOfWork(uow.inner, uow.images, serve=True)


def against_a_bot(uow: ImagedUnitOfWork) -> tuple[str, str]:
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")])
    return created.game_id, created.seats[0]["token"]


def a_card(uow: ImagedUnitOfWork, game_id: str) -> str:
    return str(uow.inner.games.get(game_id).state.hands[0][0])


def test_the_least_recently_kept_image_goes_first_past_the_capacity(uow):
    images, plain = imaged(uow, 2)
    first, _ = against_a_bot(plain)
    second, token = against_a_bot(plain)
    access = games.check_access(plain, second, token)  # a read keeps and drops nothing
    assert access.seat == 0 and len(images) == 2
    playing.play_card(moving(plain), playing.PlayCard(second, token, a_card(plain, second)))
    third, _ = against_a_bot(plain)
    assert len(images) == 2
    assert images.peek(first) is None  # kept least recently: the second was kept again
    assert images.peek(second) is not None and images.peek(third) is not None


def test_an_image_serves_one_move_and_its_save_keeps_the_next(uow):
    images, plain = imaged(uow, 10)
    game_id, token = against_a_bot(plain)
    kept = images.take(game_id)
    assert kept is not None and images.take(game_id) is None
    card = str(kept.record().state.hands[0][0])
    played = playing.play_card(moving(plain), playing.PlayCard(game_id, token, card))
    image = images.peek(game_id)  # the move loaded its game, and its save kept one
    assert image is not None and image.version == played.state["version"]
    assert image.record().state.to_dict() == uow.games.get(game_id).state.to_dict()


def test_a_capacity_of_zero_keeps_nothing(uow):
    images, plain = imaged(uow, 0)
    against_a_bot(plain)
    assert len(images) == 0


def test_a_game_an_image_missed_is_not_kept_again(uow):
    images, plain = imaged(uow, 10)
    game_id, token = against_a_bot(plain)
    images.missed(game_id)
    assert images.peek(game_id) is None
    playing.play_card(moving(plain), playing.PlayCard(game_id, token, a_card(plain, game_id)))
    assert images.peek(game_id) is None  # saved and loaded as any game, no image kept


def test_a_move_with_a_bogus_token_leaves_the_image_for_the_player(uow):
    images, plain = imaged(uow, 10)
    game_id, token = against_a_bot(plain)
    _, stranger = against_a_bot(plain)  # a real token, of another game
    kept = images.peek(game_id)
    card = a_card(plain, game_id)
    for bogus in ("made-up", stranger, None):
        with pytest.raises(ServiceError):
            playing.play_card(moving(plain), playing.PlayCard(game_id, bogus, card))
        assert images.peek(game_id) is kept, bogus  # the load found the image right
    playing.play_card(moving(plain), playing.PlayCard(game_id, token, card))
    assert images.peek(game_id) is not None  # served from the image, then kept again


def test_a_refusal_from_a_stale_image_is_decided_again_and_the_game_kept_no_more(uow):
    images, plain = imaged(uow, 10)
    game_id, token = against_a_bot(plain)
    card = a_card(plain, game_id)
    elsewhere = MemoryUnitOfWork(uow.store)  # another process: its move leaves our image behind
    playing.play_card(elsewhere, playing.PlayCard(game_id, token, card))
    assert images.peek(game_id) is not None
    with pytest.raises(CardNotInHand):  # played already: the database refuses it too
        playing.play_card(moving(plain), playing.PlayCard(game_id, token, card))
    assert images.peek(game_id) is None
    playing.play_card(moving(plain), playing.PlayCard(game_id, token, a_card(plain, game_id)))
    assert images.peek(game_id) is None  # the game's moves wander: it is imaged no more


def test_a_refused_resignation_leaves_the_image_and_a_resignation_drops_it(uow):
    images, plain = imaged(uow, 10)
    game_id, token = against_a_bot(plain)
    kept = images.peek(game_id)
    with pytest.raises(ServiceError):
        playing.resign_game(plain, game_id, "made-up")
    assert images.peek(game_id) is kept
    playing.resign_game(plain, game_id, token)
    assert images.peek(game_id) is None
