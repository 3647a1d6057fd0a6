"""The game images (game_images.py) as a decorator over the unit of work and its games: a
move's load may come from this process's image of its game, and every committed save keeps
or drops that image. The use cases see a ``GameRepository`` like any other.

Only what the database would decide is ever answered. A transaction that decided from an
image and did not commit (a refusal: not your turn, a card not in hand, a bogus token, a stale
If-Match; or a refused save: the game moved on, or an Idempotency-Key already used) is run
again by the use case's retry, from a load. That load tells which it was: at the image's
version the image was right, the refusal stands and the image is kept again (a stranger's bogus
moves cost the game's player nothing); at another version the image was stale, and the game is
not imaged again here (``GameImages.missed``).
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Self

from app.engine import EngineError
from app.observability import metrics
from app.services.errors import ConcurrentUpdate, ServiceError, Unavailable
from app.services.game_images import GameImage, GameImages
from app.services.model import GameRecord
from app.services.unit_of_work import AbstractUnitOfWork, GameRepository, StoredResult

# What a transaction decided from an image may end in, to be decided again from a load.
_UNDECIDED = (ServiceError, EngineError, ConcurrentUpdate)


class DecidedFromImage(ConcurrentUpdate):
    """A refusal decided from an image, which may be stale: the use case's retry decides
    again from a load."""


class ImagedGames:
    """``inner``, with loads served from ``images`` where the unit of work allows it."""

    def __init__(self, inner: GameRepository, images: GameImages, serve: bool,
                 set_aside: dict[str, GameImage]) -> None:  # fmt: skip
        self.inner = inner
        self.images = images
        self.serve = serve
        self.set_aside = set_aside  # images of failed transactions, until a load judges them
        self.served: dict[str, GameImage] = {}  # game id -> the image this transaction used
        self.saved: dict[str, GameRecord] = {}

    def get(
        self, game_id: str, for_update: bool = False, idempotency_key: str | None = None
    ) -> GameRecord | None:
        if self.serve and not for_update and game_id not in self.set_aside:
            image = self.images.take(game_id)
            if image is not None:
                self.served[game_id] = image
                return image.record()
        self.served.pop(game_id, None)  # a load supersedes the image (a due turn, a retry)
        game = self.inner.get(game_id, for_update, idempotency_key)
        self._judge(game_id, game)
        return game

    def _judge(self, game_id: str, game: GameRecord | None) -> None:
        image = self.set_aside.pop(game_id, None)
        if image is None:
            return
        if game is not None and game.version == image.version:
            self.images.put_back(image)
        else:
            self.images.missed(game_id)
            metrics.image_missed()

    def stored_result(self, game_id: str, seat: int, key: str) -> StoredResult | None:
        # From an image, a key used before fails the save (its answer's primary key), and
        # the retry's load finds the stored answer.
        if game_id in self.served:
            return None
        return self.inner.stored_result(game_id, seat, key)

    def add(self, game: GameRecord) -> None:
        self.inner.add(game)
        self.saved[game.id] = game

    def save(self, game: GameRecord) -> None:
        self.inner.save(game)
        self.saved[game.id] = game

    def committed(self) -> None:
        for game_id, game in self.saved.items():
            if self.served.pop(game_id, None) is not None:
                metrics.image_used()
            self.images.keep(game)
        self.saved = {}

    def failed(self) -> bool:
        """Set aside the images this transaction decided from; True if there were any."""
        self.set_aside.update(self.served)
        had = bool(self.served)
        self.served, self.saved = {}, {}
        return had

    def __getattr__(self, name: str) -> Any:
        """Everything else goes to the database as it is."""
        if name == "inner":  # not set yet (a copy being made): no forwarding to itself
            raise AttributeError(name)
        return getattr(self.inner, name)


class ImagedUnitOfWork(AbstractUnitOfWork):
    """``inner`` with ``ImagedGames``: every committed save keeps or drops its game's image;
    with ``serve``, loads may also come from one (the API asks it for moves)."""

    games: ImagedGames

    def __init__(self, inner: AbstractUnitOfWork, images: GameImages, serve: bool = False):
        self.inner = inner
        self.images = images
        self.serve = serve
        self.set_aside: dict[str, GameImage] = {}  # kept across the use case's retries

    def __enter__(self) -> Self:
        self.inner.__enter__()
        self.games = ImagedGames(self.inner.games, self.images, self.serve, self.set_aside)
        self.players = self.inner.players
        self.seeks = self.inner.seeks
        self.analyses = self.inner.analyses
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.inner.__exit__(kind, error, traceback)
        if error is None:  # left without a commit or a refusal: the images are as they were
            for image in self.games.served.values():
                self.images.put_back(image)
        elif isinstance(error, _UNDECIDED) and not isinstance(error, Unavailable):
            from_images = self.games.failed()  # set aside, for the retry's load to judge
            if from_images and not isinstance(error, ConcurrentUpdate):
                raise DecidedFromImage(str(error)) from error

    def commit(self) -> None:
        self.inner.commit()
        self.games.committed()

    def rollback(self) -> None:
        self.inner.rollback()
        self.games.saved = {}  # nothing of it was written

    def ping(self) -> None:
        self.inner.ping()

    def schema_revisions(self) -> tuple[frozenset[str], frozenset[str]]:
        return self.inner.schema_revisions()
