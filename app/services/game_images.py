"""Images of games as this process last saved them, so that the next move of the same
player need not load its game first: a move against bots (the caller's card and the bots'
replies, the app's everyday game) is then one statement to the database, its save, as a
health check is one ``SELECT 1`` (docs/performance.md, "Images of games").

The database stays the truth, and any process may still serve any move. An image is a game
exactly as its row stood at one version, and every change to a game moves its version on
(a move, a join, a timeout, a resignation). A move decided from an image is saved with the
version check every save makes, so a stale image (the game moved on in another process or
instance: a sweeper, a second player, a resignation) costs one refused save, after which the
move is decided again from a fresh load. Whatever a move decided from an image refuses (not
your turn, a card not in hand, a token of a seat taken since, a stale If-Match) is decided
again from a fresh load too: only the database's state is ever refused against. An answer
stored under an Idempotency-Key is not looked up from an image: the save stores the move's
answer under the key's primary key, so a key used before fails the save, and the move is
decided again from the database, which finds the stored answer.

An image is taken out when used, so no two requests share one (the engine changes the state
it is given), and kept again only by a save that committed. A game is kept only when its
next move is the same seat's (a human against bots): two humans whose requests reach two
processes would otherwise find a stale image on every move, and pay a refused save each.
For the same reason a process keeps no image of a game once one of its images missed: the
game's requests wander between processes (a client that opens a connection a request, on
workers that each listen on a socket of their own), so each process pays one miss at most.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import astuple, dataclass, fields
from typing import Any

from app.services.model import ACTIVE, GameRecord, Seat

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

    def keep(self, game: GameRecord, seat: int) -> None:
        """Keep the image of a game just saved, if its next move is ``seat``'s own."""
        if self.capacity <= 0 or not _next_move_is(game, seat):
            self.forget(game.id)
            return
        image = GameImage.of(game)
        with self._lock:
            if image is None or game.id in self._wandering:
                self._images.pop(game.id, None)
                return
            self._images[game.id] = image
            self._images.move_to_end(game.id)
            while len(self._images) > self.capacity:
                self._images.popitem(last=False)

    def missed(self, game_id: str) -> None:
        """An image of the game was stale or refused its move: keep none of it again."""
        with self._lock:
            self._images.pop(game_id, None)
            self._wandering[game_id] = None
            self._wandering.move_to_end(game_id)
            while len(self._wandering) > self.capacity:
                self._wandering.popitem(last=False)

    def forget(self, game_id: str) -> None:
        """The game is changing in a way no image of it says (a resignation)."""
        with self._lock:
            self._images.pop(game_id, None)


def _next_move_is(game: GameRecord, seat: int) -> bool:
    state = game.state
    return game.status == ACTIVE and state.turn == seat and seat not in state.taken_by_bot
