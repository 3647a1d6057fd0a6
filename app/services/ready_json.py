"""A JSON array encoded once and written again as it is.

A long match's finished rounds are a hundred summaries in every view of it, and they change
only when a round ends. The games table keeps them as JSON text (``games.rounds``); a view of
a loaded game carries that text as a ``ReadyJson``, which our orjson encoders write as it is
(``ready_json_default``), so a move that ends no round neither parses, builds nor encodes
them. Anything that reads one in process (a test, a bot) sees the list, parsed then.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import orjson


class ReadyJson(Sequence[Any]):
    """The JSON text of an array, read as the list it encodes."""

    __slots__ = ("_items", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._items: list[Any] | None = None

    def items(self) -> list[Any]:
        if self._items is None:
            self._items = orjson.loads(self.text)
        return self._items

    def __len__(self) -> int:
        return len(self.items())

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        return self.items()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ReadyJson):
            return self.items() == other.items()
        if isinstance(other, list):
            return self.items() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ReadyJson({self.text!r})"


def ready_json_default(value: Any) -> Any:
    """orjson's ``default``: a ``ReadyJson`` is written as the text it holds."""
    if isinstance(value, ReadyJson):
        return orjson.Fragment(value.text)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")
