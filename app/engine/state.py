"""The complete state of a match: everything, hidden cards included.

Only the engine reads it directly; what a seat may see comes from ``views.observe``.
It is changed only by ``evolution.apply`` (one event at a time), so live play and replay of
the log run the same code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, overload

from app.engine.cards import Card, codes, parse_cards
from app.engine.events import CardPlayed
from app.engine.rules import Rules

DEALING = "dealing"  # waiting for the next round's deck
PLAYING = "playing"
OVER = "over"
HAND_SIZE = 4
SIDES = 2
PLAYER_COUNTS = (2, 4)  # seats at the table: two alone, or four in two sides


def side_of(seat: int) -> int:
    """Seats 0 and 2 are side 0, seats 1 and 3 side 1 (a 2-player seat is its own side)."""
    return seat % SIDES


def dealer_of_round(round_number: int, players: int) -> int:
    return (players - 1 + round_number - 1) % players


@dataclass(frozen=True, slots=True)
class RoundResult:
    round: int
    points: tuple[int, ...]
    cards: tuple[int, ...]
    majority: int | None
    basras: tuple[int, ...]
    jack_basras: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "points": list(self.points),
            "cards": list(self.cards),
            "majority": self.majority,
            "basras": list(self.basras),
            "jack_basras": list(self.jack_basras),
        }

    # A long match keeps one of these per round in every snapshot, so they are stored
    # as short rows rather than dicts: loading a game must stay cheap late in a match.
    def to_row(self) -> list[Any]:
        return [self.round, list(self.points), list(self.cards), self.majority,
                list(self.basras), list(self.jack_basras)]  # fmt: skip

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> RoundResult:
        number, points, cards, majority, basras, jack_basras = row
        return cls(number, tuple(points), tuple(cards), majority, tuple(basras), tuple(jack_basras))


class RoundResults(Sequence[RoundResult]):
    """Every finished round's result, held as short rows (``RoundResult.to_row``).

    A match to 10,000 points runs to a hundred rounds and more, and every request loads,
    saves and shows them all. So they may be *deferred*: ``read`` gives the rows when
    something first needs them, and ``encoded`` is their summaries as the caller already
    holds them encoded (opaque here: the games table keeps them as JSON, and the view hands
    that to the encoder as it is). A move that ends no round then neither parses, builds nor
    encodes a hundred rounds (docs/performance.md). Adding a round drops ``encoded``: it no
    longer says what these rounds are. A ``RoundResult`` is made only when one is asked for.
    """

    __slots__ = ("_read", "_rows", "encoded")

    def __init__(
        self,
        rows: Iterable[Sequence[Any]] = (),
        *,
        read: Callable[[], Iterable[Sequence[Any]]] | None = None,
        encoded: object = None,
    ) -> None:
        # Read once however many copies share it; each copy lists the rows for itself.
        self._read = cache(read) if read is not None else None
        self._rows: list[Sequence[Any]] | None = None if read is not None else list(rows)
        self.encoded = encoded

    def _all(self) -> list[Sequence[Any]]:
        if self._rows is None:
            assert self._read is not None
            self._rows = list(self._read())
        return self._rows

    def __len__(self) -> int:
        return len(self._all())

    @overload
    def __getitem__(self, index: int) -> RoundResult: ...

    @overload
    def __getitem__(self, index: slice) -> list[RoundResult]: ...

    def __getitem__(self, index: int | slice) -> RoundResult | list[RoundResult]:
        if isinstance(index, slice):
            return [RoundResult.from_row(row) for row in self._all()[index]]
        return RoundResult.from_row(self._all()[index])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RoundResults):
            return NotImplemented
        return list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RoundResults({self._all()!r})"

    def append(self, result: RoundResult) -> None:
        self._all().append(result.to_row())
        self.encoded = None

    def copy(self) -> RoundResults:
        copied = RoundResults.__new__(RoundResults)
        copied._read, copied.encoded = self._read, self.encoded
        # Rows are never changed once written: share them, in a list of the copy's own.
        copied._rows = None if self._rows is None else list(self._rows)
        return copied

    def rows(self) -> list[Sequence[Any]]:
        """The snapshot's form: one ``[round, points, cards, majority, basras,
        jack_basras]`` per round."""
        return list(self._all())

    def summaries(self) -> list[dict[str, Any]]:
        """The view's form: ``RoundResult.to_dict`` of each, read straight off the rows."""
        return [{"round": r[0], "points": r[1], "cards": r[2], "majority": r[3],
                 "basras": r[4], "jack_basras": r[5]} for r in self._all()]  # fmt: skip

    @staticmethod
    def row_of(summary: Mapping[str, Any]) -> Sequence[Any]:
        """The row of one of ``summaries()``: how stored summaries become rows again."""
        return [summary["round"], summary["points"], summary["cards"], summary["majority"],
                summary["basras"], summary["jack_basras"]]  # fmt: skip


class RoundMoves(Sequence[CardPlayed]):
    """The cards played this round, in order, held both ways: each as the row a snapshot
    stores it as, and as its ``CardPlayed``, each form made from the other only when asked for.

    Every move loads, saves and shows a state whose round may hold 48 cards played. Loading
    made and saving took apart every one of them, several times the cost of the move itself
    (docs/performance.md); a view needs only the last one, and the greedy bot none. So a
    loaded row is parsed when it is read, and a new move is written as a row when saved.
    """

    __slots__ = ("_moves", "_rows")

    def __init__(self, rows: Iterable[dict[str, Any]] = ()) -> None:
        self._rows: list[dict[str, Any] | None] = list(rows)
        self._moves: list[CardPlayed | None] = [None] * len(self._rows)

    def __len__(self) -> int:
        return len(self._moves)

    @overload
    def __getitem__(self, index: int) -> CardPlayed: ...

    @overload
    def __getitem__(self, index: slice) -> list[CardPlayed]: ...

    def __getitem__(self, index: int | slice) -> CardPlayed | list[CardPlayed]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._moves)))]
        move = self._moves[index]
        if move is None:
            row = self._rows[index]
            assert row is not None  # each entry has one form or both
            move = self._moves[index] = CardPlayed.from_dict(row)
        return move

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RoundMoves):
            return NotImplemented
        return list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RoundMoves({self.rows()!r})"

    def append(self, move: CardPlayed) -> None:
        self._moves.append(move)
        self._rows.append(None)

    def copy(self) -> RoundMoves:
        copied = RoundMoves()
        copied._moves, copied._rows = list(self._moves), list(self._rows)  # both never change
        return copied

    def rows(self) -> list[dict[str, Any]]:
        """The snapshot's form: ``CardPlayed.to_dict`` of each."""
        rows, moves = self._rows, self._moves
        for index, row in enumerate(rows):
            if row is None:
                move = moves[index]
                assert move is not None
                rows[index] = move.to_dict()
        return rows.copy()  # type: ignore[return-value]  # no None is left


@dataclass(slots=True)
class GameState:
    rules: Rules
    players: int
    phase: str = DEALING
    round: int = 0
    dealer: int = 0
    turn: int | None = None
    hands: list[list[Card]] = field(default_factory=list)
    stock: list[Card] = field(default_factory=list)
    floor: list[Card] = field(default_factory=list)
    piles: list[list[Card]] = field(default_factory=list)
    basras: list[int] = field(default_factory=lambda: [0, 0])
    jack_basras: list[int] = field(default_factory=lambda: [0, 0])
    scores: list[int] = field(default_factory=lambda: [0, 0])
    last_capturer: int | None = None
    majority_carry: int = 0  # a tied majority award carried to the next round
    moves: int = 0
    round_moves: RoundMoves = field(default_factory=RoundMoves)
    rounds: RoundResults = field(default_factory=RoundResults)
    discarded: list[Card] = field(default_factory=list)
    fixed_round: bool = False
    winner: int | None = None
    # The turn clock (API.md item 13): each seat's timeouts in a row, the seats a bot took
    # over, and the seat whose timed-out card is being played (between the two events).
    timeouts: list[int] = field(default_factory=list)
    taken_by_bot: list[int] = field(default_factory=list)
    timed_out: int | None = None
    resigned: int | None = None  # the side that resigned or forfeited, if the match ended so

    @classmethod
    def new(cls, rules: Rules, players: int) -> GameState:
        if players not in PLAYER_COUNTS:
            raise ValueError("a match has 2 or 4 players")
        return cls(
            rules=rules,
            players=players,
            hands=[[] for _ in range(players)],
            piles=[[] for _ in range(SIDES)],
            timeouts=[0] * players,
        )

    @property
    def last_move(self) -> CardPlayed | None:
        return self.round_moves[-1] if self.round_moves else None

    def copy(self) -> GameState:
        return GameState(
            rules=self.rules,
            players=self.players,
            phase=self.phase,
            round=self.round,
            dealer=self.dealer,
            turn=self.turn,
            hands=[list(hand) for hand in self.hands],
            stock=list(self.stock),
            floor=list(self.floor),
            piles=[list(pile) for pile in self.piles],
            basras=list(self.basras),
            jack_basras=list(self.jack_basras),
            scores=list(self.scores),
            last_capturer=self.last_capturer,
            majority_carry=self.majority_carry,
            moves=self.moves,
            round_moves=self.round_moves.copy(),
            rounds=self.rounds.copy(),
            discarded=list(self.discarded),
            fixed_round=self.fixed_round,
            winner=self.winner,
            timeouts=list(self.timeouts),
            taken_by_bot=list(self.taken_by_bot),
            timed_out=self.timed_out,
            resigned=self.resigned,
        )

    def to_dict(self, with_rounds: bool = True) -> dict[str, Any]:
        """A JSON-ready snapshot of everything, for storage (never for a client). Without
        its rounds (``with_rounds=False``) it stays the same size however long the match:
        the games table keeps the rounds apart, written only when one is added."""
        snapshot = {
            "rules": self.rules.to_dict(),
            "players": self.players,
            "phase": self.phase,
            "round": self.round,
            "dealer": self.dealer,
            "turn": self.turn,
            "hands": [codes(hand) for hand in self.hands],
            "stock": codes(self.stock),
            "floor": codes(self.floor),
            "piles": [codes(pile) for pile in self.piles],
            "basras": list(self.basras),
            "jack_basras": list(self.jack_basras),
            "scores": list(self.scores),
            "last_capturer": self.last_capturer,
            "majority_carry": self.majority_carry,
            "moves": self.moves,
            "round_moves": self.round_moves.rows(),
            "discarded": codes(self.discarded),
            "fixed_round": self.fixed_round,
            "winner": self.winner,
            "timeouts": list(self.timeouts),
            "taken_by_bot": list(self.taken_by_bot),
            "timed_out": self.timed_out,
            "resigned": self.resigned,
        }
        if with_rounds:
            snapshot["rounds"] = self.rounds.rows()
        return snapshot

    @classmethod
    def from_dict(cls, data: dict[str, Any], rounds: RoundResults | None = None) -> GameState:
        """The state of a snapshot; ``rounds`` when they are kept apart from it. A snapshot
        that holds its rounds (one written before they were kept apart) is read with them."""
        if "rounds" in data or rounds is None:
            rounds = RoundResults(data.get("rounds", ()))
        return cls(
            rules=Rules.from_dict(data["rules"]),
            players=data["players"],
            phase=data["phase"],
            round=data["round"],
            dealer=data["dealer"],
            turn=data["turn"],
            hands=[list(parse_cards(hand)) for hand in data["hands"]],
            stock=list(parse_cards(data["stock"])),
            floor=list(parse_cards(data["floor"])),
            piles=[list(parse_cards(pile)) for pile in data["piles"]],
            basras=list(data["basras"]),
            jack_basras=list(data["jack_basras"]),
            scores=list(data["scores"]),
            last_capturer=data["last_capturer"],
            majority_carry=data["majority_carry"],
            moves=data["moves"],
            round_moves=RoundMoves(data["round_moves"]),
            rounds=rounds,
            discarded=list(parse_cards(data["discarded"])),
            fixed_round=data["fixed_round"],
            winner=data["winner"],
            # Snapshots written before the turn clock existed lack these four.
            timeouts=list(data.get("timeouts") or [0] * data["players"]),
            taken_by_bot=list(data.get("taken_by_bot", [])),
            timed_out=data.get("timed_out"),
            resigned=data.get("resigned"),
        )
