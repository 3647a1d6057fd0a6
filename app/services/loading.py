"""Loading a game into memory, deciding who the caller is, and the API view of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.engine import GameState, observe
from app.persistence import GameRepository, GameRow, SeatRow
from app.services.errors import Forbidden, NotFound, Unauthorized
from app.services.log import LogWriter
from app.services.tokens import hash_token, same_hash

WAITING = "waiting"
ACTIVE = "active"
FINISHED = "finished"
# Every status a game can have, in the order a game goes through them (openapi.yaml's GameStatus).
STATUSES = (WAITING, ACTIVE, FINISHED)


@dataclass
class LoadedGame:
    row: GameRow
    seats: list[SeatRow]
    state: GameState
    writer: LogWriter = field(init=False)

    def __post_init__(self) -> None:
        self.loaded_version = self.row.version
        self.writer = LogWriter(self.row.id, self.row.version, self.row.last_hash)

    @property
    def new_events(self) -> list[dict[str, Any]]:
        return self.writer.rows

    @property
    def is_over(self) -> bool:
        return self.row.status == FINISHED

    def seat_row(self, seat: int) -> SeatRow:
        return self.seats[seat]


def load(repo: GameRepository, game_id: str, for_update: bool = False) -> LoadedGame:
    found = repo.get_with_seats(game_id, for_update=for_update)
    if found is None:
        raise NotFound(f"no game {game_id!r}")
    row, seats = found
    return LoadedGame(row, seats, GameState.from_dict(row.snapshot))


def find_seat(
    repo: GameRepository, game_id: str, seats: list[SeatRow], token: str | None, required: bool
) -> int | None:
    """The seat a bearer token acts as; None for a spectator (no token, not required)."""
    if token is None:
        if required:
            raise Unauthorized("this needs a seat's token: Authorization: Bearer <token>")
        return None
    digest = hash_token(token)
    matches = [s.seat for s in seats if same_hash(s.token_hash, digest)]
    if matches:
        return matches[0]
    if repo.game_id_of_token(digest) is not None:
        raise Forbidden("that token belongs to another game")
    raise Unauthorized("unknown token")


def game_view(game: LoadedGame, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) may see, in the shape of API.md's *view*."""
    view = observe(game.state, seat).to_dict()
    for entry in view["seats"]:
        row = game.seats[entry["seat"]]
        entry["name"] = row.name
        entry["bot"] = row.bot
        entry["open"] = is_open(row)
    row = game.row
    return {"id": row.id, "status": row.status, "version": row.version,
            "custom_deck": row.custom_deck is not None, **view}  # fmt: skip


def is_open(seat: SeatRow) -> bool:
    return seat.bot is None and seat.token_hash is None
