"""What a match's state keeps of its rounds: each finished round's result, and the cards
played in the round under way, held as the short rows a snapshot stores them as.

Apart from the state itself (state.py) because a long match makes them most of what every
request loads, saves and shows: these containers defer the work of reading and building
them until something asks (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, overload

from app.engine.events import CardPlayed


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
