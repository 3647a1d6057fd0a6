"""What the use cases and their ports (ports.py) speak of: a game as the use cases see it (its
seats, its engine state and the log entries it has added since it was loaded), a player, a
seek and a game's analysis, each with its statuses. Plain objects: the persistence layer maps
them to tables, and the use cases of each subject are in its own module (games.py, players.py,
seeks.py, analysis.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from app.engine import Event, GameState
from app.engine.rounds import RoundResults
from app.services.log import EventRecord, engine_record_data
from app.services.ready_json import ReadyJson

WAITING = "waiting"  # a game with open seats; a seek no pairing pass has seated yet
ACTIVE = "active"
FINISHED = "finished"
# A waiting game nobody joined in time (API.md item 15); a seek its player took back.
CANCELLED = "cancelled"
STATUSES = (WAITING, ACTIVE, FINISHED, CANCELLED)
OVER_STATUSES = (FINISHED, CANCELLED)  # the seed is revealed, the whole log is open
# A seek's statuses: it waits, then is matched, cancelled or expired (a game's words where the
# API writes the same word for both).
MATCHED = "matched"
EXPIRED = "expired"
SEEK_STATUSES = (WAITING, MATCHED, CANCELLED, EXPIRED)
# An analysis's statuses.
RUNNING = "running"
DONE = "done"

# openskill's defaults (PlackettLuce): every new player starts here.
DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3
BOT_PREFIX = "bot-"  # a bot level's player is "bot-<level>"; other ids are hex, never so


@dataclass(slots=True)
class Seat:
    seat: int
    name: str | None = None
    bot: str | None = None
    seed: str | None = None  # the player's contribution to the client seed
    token_hash: str | None = None  # a human's bearer token, hashed
    player_id: str | None = None  # the player holding it (a bot's: its level's player)

    @property
    def is_open(self) -> bool:
        return self.bot is None and self.token_hash is None

    @property
    def is_held(self) -> bool:
        """An open seat kept for one player (a rematch's): only that player may take it."""
        return self.is_open and self.player_id is not None

    def public(self) -> dict[str, Any]:
        """The seat as every answer names it."""
        return {"seat": self.seat, "name": self.name, "bot": self.bot, "open": self.is_open,
                "player": self.player_id}  # fmt: skip


@dataclass(eq=False)
class GameRecord:
    """One game: what the games and seats tables hold, with the engine state unpacked."""

    id: str
    status: str
    version: int  # = seq of the last entry in the log
    server_seed: str  # hex; published only once over
    commitment: str
    client_seed: str | None
    custom_deck: list[str] | None
    winner: int | None
    last_hash: str  # hash of entry ``version``
    created_at: datetime
    updated_at: datetime
    seats: list[Seat]
    snapshot: dict[str, Any] | None = None  # the stored state, unpacked on first use
    # Its finished rounds, kept apart: the JSON of their summaries, as the view shows them.
    rounds: str | None = None
    state_now: GameState | None = None
    # When the sweeper acts if nobody does first: the turn clock of an active game, the
    # end of a waiting one (see ``deadlines``). UTC.
    deadline: datetime | None = None
    invite_hash: str | None = None  # a game with open seats: its invite, hashed
    public: bool = False  # joinable without the invite, and listed while waiting
    rated: bool = False  # its players' ratings change when it ends (ratings.py)
    # Once a rated game ended: each seat's rating before and after (ratings.py).
    ratings: list[dict[str, Any]] | None = None
    rematch_of: str | None = None  # a rematch: the game it follows (rematch.py)
    loaded_version: int = field(init=False)
    # The indexed columns a save may leave as they are, as loaded (SQLite rewrites an index
    # whose column an UPDATE sets, even to the value it had: sqlite.py leaves them out).
    loaded_status: str = field(init=False)
    loaded_deadline: datetime | None = field(init=False)
    new_events: list[EventRecord] = field(init=False, default_factory=list)
    changed_seats: set[int] = field(init=False, default_factory=set)
    # What the row holds once the save under way commits (``saving``): what an image of the
    # game is made of (game_images.py).
    saved: Saved | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.as_loaded()

    def as_loaded(self) -> None:
        """What the row holds now is what a save checks and compares against."""
        self.loaded_version = self.version
        self.loaded_status, self.loaded_deadline = self.status, self.deadline
        self.saved = None

    def saving(self, snapshot: dict[str, Any], rounds: str | None) -> None:
        """The repository writes ``snapshot`` and ``rounds`` (None: the rounds as loaded)."""
        self.saved = Saved(snapshot, self.rounds if rounds is None else rounds)

    @property
    def state(self) -> GameState:
        if self.state_now is None:
            if self.snapshot is None:
                raise ValueError(f"game {self.id} has no state")
            rounds = None if self.rounds is None else stored_rounds(self.rounds)
            self.state_now = GameState.from_dict(self.snapshot, rounds)
        return self.state_now

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def is_over(self) -> bool:
        return self.status in OVER_STATUSES

    def record(self, kind: str, data: dict[str, Any]) -> EventRecord:
        """Append an entry to the log, chained to the one before it."""
        entry = EventRecord.chained(self.id, self.version + 1, kind, data, self.last_hash)
        self.version, self.last_hash = entry.seq, entry.hash
        self.new_events.append(entry)
        return entry

    def record_engine(self, event: Event) -> EventRecord:
        return self.record(*engine_record_data(event))

    def seat_player(
        self, seat: Seat, name: str, seed: str | None, token_hash: str, player_id: str | None
    ) -> None:
        seat.name, seat.seed, seat.token_hash = name, seed, token_hash
        seat.player_id = player_id
        self.changed_seats.add(seat.seat)


def listed_seat(seat: Seat) -> dict[str, Any]:
    """A seat as the lists of games name it."""
    return {"seat": seat.seat, "name": seat.name, "bot": seat.bot, "player": seat.player_id}


@dataclass(frozen=True, slots=True)
class Saved:
    """A game's state as its row holds it: the snapshot, and its rounds kept apart (None: the
    snapshot holds them, as one written before they were kept apart does)."""

    snapshot: dict[str, Any]
    rounds: str | None


def stored_rounds(text: str) -> RoundResults:
    """Rounds as the games table keeps them (``rounds_text``): parsed only if something reads
    them (a move that ends no round does not), and written into a view as they are."""
    summaries = ReadyJson(text)
    return RoundResults(
        read=lambda: [RoundResults.row_of(summary) for summary in summaries.items()],
        encoded=summaries,
    )


def rounds_text(rounds: RoundResults) -> str:
    """What the games table keeps of ``rounds``: the JSON of their summaries."""
    return orjson.dumps(rounds.summaries()).decode()


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a game is, without its state: what a live stream needs to read on."""

    status: str
    version: int
    scores: tuple[int, ...]  # match totals per side


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A game as ``GET /games`` lists it: no state, no log."""

    id: str
    status: str
    version: int
    created_at: datetime
    seats: list[Seat]
    scores: list[int]
    winner: int | None
    custom_deck: bool = False
    rated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "version": self.version,
            "created_at": self.created_at.isoformat(),
            "seats": [listed_seat(seat) for seat in self.seats],
            "scores": self.scores,
            "winner": self.winner,
            "custom_deck": self.custom_deck,
            "rated": self.rated,
        }


@dataclass(frozen=True, slots=True)
class StoredResult:
    """The first answer to a move sent with an Idempotency-Key, for its retries."""

    request_hash: str
    result: dict[str, Any]


def bot_player_id(level: str) -> str:
    return f"{BOT_PREFIX}{level}"


def bot_level_of(player_id: str) -> str | None:
    return player_id[len(BOT_PREFIX) :] if player_id.startswith(BOT_PREFIX) else None


@dataclass(slots=True)
class PlayerRecord:
    """A player who lasts across games (players.py): a name, a rating and a count of results."""

    id: str
    name: str
    bot: str | None = None
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    rated_games: int = 0
    played: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a game that ended does to one of its players: one result counted and, for a rated
    game, the new rating (written only if ``rated_games`` is still ``seen_rated_games``)."""

    player_id: str
    result: str  # won | lost | drawn
    rating: tuple[float, float] | None = None  # (mu, sigma) after a rated game
    seen_rated_games: int = 0


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One seat a player held, as the player's history lists it, with the game's seats."""

    game_id: str
    seat: int
    created_at: datetime
    status: str
    winner: int | None
    rated: bool
    ratings: list[dict[str, Any]] | None
    updated_at: datetime
    scores: list[int]  # match totals per side
    turn: int | None  # the seat to move, in an active game
    seats: list[Seat]


@dataclass(slots=True)
class SeekRecord:
    """One player's wish to play (seeks.py): ``WAITING`` until a pairing pass seats it
    (``MATCHED``), its player cancels it (``CANCELLED``), or it runs out of time (``EXPIRED``)."""

    id: str
    player_id: str
    name: str  # the player's, as the game's seat will show it
    rating: float  # the player's when it sought
    players: int
    rated: bool
    rules: dict[str, Any]  # every effective value
    kind: str  # ``seeks.kind_of`` the three above
    bot_after: int | None  # seconds; None: humans only
    status: str
    created_at: datetime
    expires_at: datetime
    settled_at: datetime | None = None  # when it stopped waiting
    game_id: str | None = None
    seat: int | None = None
    # When it may sit with bots (``created_at`` + ``bot_after``), kept so that a pass reads the
    # seeks due by an index rather than every seek that has a ``bot_after``.
    bots_at: datetime | None = None

    def waited(self, now: datetime) -> float:
        return (now - self.created_at).total_seconds()


@dataclass(frozen=True, slots=True)
class MatchedSeat:
    """A seek a pass seats: its game and its seat there."""

    seek_id: str
    game_id: str
    seat: int


@dataclass(slots=True)
class AnalysisRecord:
    """A finished game's analysis as stored (analysis.py): ``RUNNING`` with its progress until
    the worker that holds its lease stores the result and marks it ``DONE``."""

    game_id: str
    status: str  # RUNNING or DONE
    done: int  # judged moves so far
    total: int  # moves to judge in all
    updated_at: datetime
    owner: str | None = None  # the worker computing it, while its lease lasts
    lease_until: datetime | None = None
    claims: int = 0  # how many times a worker took it up (1 unless one died on it)
    result: bytes | None = None  # once done: the judged moves, compact (analysis.py)

    def unclaimed(self, now: datetime) -> bool:
        """Running with nobody computing it: never taken up, or its holder's lease ran out."""
        return self.status == RUNNING and (
            self.owner is None or self.lease_until is None or self.lease_until <= now
        )
