"""Reading Server-Sent Events in tests: a parser of the wire format, and a reader that follows a
live stream of the Flask test client in a thread of its own."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Sse:
    """One block of the stream: a record (id, event, data) or a comment/retry-only block."""

    id: int | None
    event: str | None
    data: Any
    comment: str | None = None


def parse_block(block: str) -> Sse:
    fields: dict[str, list[str]] = {}
    comment = None
    for line in block.split("\n"):
        if line.startswith(":"):
            comment = line[1:].strip()
            continue
        name, _, value = line.partition(":")
        fields.setdefault(name, []).append(value.removeprefix(" "))
    data = "\n".join(fields["data"]) if "data" in fields else None
    return Sse(
        id=int(fields["id"][0]) if "id" in fields else None,
        event=fields["event"][0] if "event" in fields else None,
        data=json.loads(data) if data is not None else None,
        comment=comment,
    )


def blocks(chunks: Iterable[bytes | str]) -> Iterator[Sse]:
    """Every block of a stream, as its chunks arrive."""
    buffer = ""
    for chunk in chunks:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            yield parse_block(block)


def raw_events(text: str) -> list[dict[str, str]]:
    """The records of a whole stream body as an EventSource hands them over: ``id``, ``event``
    and ``data`` as the text they were sent as (the data not parsed)."""
    events = []
    for block in text.split("\n\n"):
        fields: dict[str, list[str]] = {}
        for line in block.split("\n"):
            if line and not line.startswith(":"):
                name, _, value = line.partition(":")
                fields.setdefault(name, []).append(value.removeprefix(" "))
        if "data" in fields:
            event = {name: values[-1] for name, values in fields.items() if name in ("id", "event")}
            events.append({**event, "data": "\n".join(fields["data"])})
    return events


def records(text: str) -> list[Sse]:
    """The records (blocks with an event) of a whole stream body."""
    return [block for block in blocks([text]) if block.event is not None]


class LiveReader:
    """Follows a stream of the test client in a thread; ``records`` fills as they arrive."""

    def __init__(self, client: Any, url: str, headers: dict[str, str] | None = None) -> None:
        self.response = client.get(url, headers=headers or {}, buffered=False)
        self.status = self.response.status_code
        self.received: queue.Queue[Sse] = queue.Queue()
        self.comments = 0
        self.stopping = threading.Event()
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for block in blocks(self.response.response):
                if block.event is not None:
                    self.received.put(block)
                elif block.comment is not None:
                    self.comments += 1
                if self.stopping.is_set():
                    break
        finally:
            self.response.close()
            self.ended.set()

    def take(self, count: int, timeout: float = 5.0) -> list[Sse]:
        """The next ``count`` records; fails if they do not come within ``timeout`` s."""
        deadline = time.monotonic() + timeout
        taken = []
        while len(taken) < count:
            remaining = deadline - time.monotonic()
            try:
                taken.append(self.received.get(timeout=max(0.0, remaining)))
            except queue.Empty:
                raise AssertionError(f"got {len(taken)} of {count} records: {taken}") from None
        return taken

    def wait_for_comments(self, count: int, timeout: float = 5.0) -> None:
        """Until ``count`` comments (keep-alives) came; fails if not within ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while self.comments < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"got {self.comments} of {count} comments in {timeout} s")
            time.sleep(0.05)

    def take_until(self, event: str, timeout: float = 10.0) -> list[Sse]:
        """Records up to and including the next one named ``event``."""
        deadline = time.monotonic() + timeout
        taken: list[Sse] = []
        while not taken or taken[-1].event != event:
            taken += self.take(1, max(0.0, deadline - time.monotonic()))
        return taken

    def close(self, timeout: float = 5.0) -> None:
        """Stop at the next block (a keep-alive comes often in these tests)."""
        self.stopping.set()
        self.thread.join(timeout)
