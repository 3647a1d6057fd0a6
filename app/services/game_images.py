"""Images of games as this process last saved them, so that the next move of the same
player need not load its game first: a move against bots (the caller's card and the bots'
replies, the app's everyday game) is then one statement to the database, its save, as a
health check is one ``SELECT 1`` (docs/performance.md). ``ImagedUnitOfWork`` puts them in
front of the repository; the use cases do not know they are there.

The database stays the truth, and any process may still serve any move. An image is a game
exactly as its row stood at one version, and every change to a game moves its version on
(a move, a join, a timeout, a resignation). A move decided from an image is saved with the
version check every save makes, so a stale image (the game moved on in another process or
instance) costs one refused save, after which the move is decided again from a load.

An image is taken out when used, so no two requests share one (the engine changes the state
it is given), and kept again only by a save that committed. A game is kept only when its
next move is its one human seat's (a human against bots): two humans whose requests reach two
processes would otherwise find a stale image on every move, and pay a refused save each.
For the same reason a process keeps no image of a game once one of its images missed: the
game's requests wander between processes (a client that opens a connection a request, on
workers that each listen on a socket of their own), so each process pays one miss at most.

The images as a decorator over the unit of work and its games (``ImagedUnitOfWork``,
``ImagedGames``): a move's load may come from this process's image of its game, and every
committed save keeps or drops that image. The use cases see a ``GameRepository`` like any
other.

Only what the database would decide is ever answered. A transaction that decided from an
image and did not commit (a refusal: not your turn, a card not in hand, a bogus token, a stale
If-Match; or a refused save: the game moved on, or an Idempotency-Key already used) is run
again by the use case's retry, from a load. That load tells which it was: at the image's
version the image was right, the refusal stands and the image is kept again (a stranger's bogus
moves cost the game's player nothing); at another version the image was stale, and the game is
not imaged again here (``GameImages.missed``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import astuple, dataclass, fields
from types import TracebackType
from typing import Any, Self

from app.engine import EngineError
from app.observability import metrics
from app.services.errors import ConcurrentUpdate, ServiceError, Unavailable
from app.services.model import ACTIVE, GameRecord, Seat, StoredResult
from app.services.ports import AbstractUnitOfWork, GameRepository

# The record's own fields an image copies as they are (the seats are copied one by one; the
# state comes from the stored snapshot, as it does from a load).
_FIELDS = tuple(
    f.name
    for f in fields(GameRecord)
    if f.init and f.name not in ("seats", "snapshot", "rounds", "state_now")
)


@dataclass(frozen=True, slots=True)
class GameImage:
    """A game as its row and seats stood once a save committed."""

    fields: dict[str, Any]
    seats: tuple[tuple[Any, ...], ...]
    snapshot: dict[str, Any]
    rounds: str | None

    @property
    def version(self) -> int:
        version: int = self.fields["version"]
        return version

    @property
    def token_hashes(self) -> tuple[str | None, ...]:
        """Each seat's token hash (None: a bot or an open seat)."""
        return tuple(seat[4] for seat in self.seats)

    @classmethod
    def of(cls, game: GameRecord) -> GameImage | None:
        """The image of ``game`` as its committed save left it (None: it was not saved)."""
        saved = game.saved
        if saved is None:
            return None
        seats = tuple(astuple(seat) for seat in game.seats)
        fields_now = {name: getattr(game, name) for name in _FIELDS}
        return cls(fields_now, seats, saved.snapshot, saved.rounds)

    def record(self) -> GameRecord:
        """The game as a load at this version would give it."""
        seats = [Seat(*seat) for seat in self.seats]
        return GameRecord(**self.fields, seats=seats, snapshot=self.snapshot, rounds=self.rounds)


class GameImages:
    """At most ``capacity`` images, by game id, shared by the request threads of a process;
    the least recently kept goes first."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._images: OrderedDict[str, GameImage] = OrderedDict()
        # Games an image of missed here: their requests wander, none is kept again.
        self._wandering: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._images)

    def take(self, game_id: str) -> GameImage | None:
        """The game's image, no longer kept: a request that uses it keeps a new one."""
        with self._lock:
            return self._images.pop(game_id, None)

    def peek(self, game_id: str) -> GameImage | None:
        """The game's image, still kept (to look at it; a move ``take``s it)."""
        with self._lock:
            return self._images.get(game_id)

    def keep(self, game: GameRecord) -> None:
        """After a committed save: keep the game's image if its next move is its one human
        seat's (a human against bots), else keep none."""
        if self.capacity <= 0 or not _one_human_to_move(game):
            self.forget(game.id)
            return
        image = GameImage.of(game)
        if image is None:
            self.forget(game.id)
            return
        with self._lock:
            if game.id not in self._wandering:
                self._store(image)

    def put_back(self, image: GameImage) -> None:
        """An image taken for a request that did not go through, found to be the game as the
        database still has it: kept again, unless a newer one was kept meanwhile."""
        with self._lock:
            if image.fields["id"] not in self._images:
                self._store(image)

    def missed(self, game_id: str) -> None:
        """An image of the game was stale: keep none of it again."""
        with self._lock:
            self._images.pop(game_id, None)
            self._wandering[game_id] = None
            self._wandering.move_to_end(game_id)
            while len(self._wandering) > self.capacity:
                self._wandering.popitem(last=False)

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._images.pop(game_id, None)

    def _store(self, image: GameImage) -> None:
        game_id = image.fields["id"]
        self._images[game_id] = image
        self._images.move_to_end(game_id)
        while len(self._images) > self.capacity:
            self._images.popitem(last=False)


def _one_human_to_move(game: GameRecord) -> bool:
    """Active, and every seat but the one to move is a bot's (or a bot took it over): the
    next request to change the game is that seat's own next move."""
    if game.status != ACTIVE:
        return False
    state = game.state
    humans = [s.seat for s in game.seats if s.bot is None and s.seat not in state.taken_by_bot]
    return humans == [state.turn]


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
