"""Running a coroutine in a test whatever the test's thread holds already."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_apart(scenario: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on a thread of its own: a test run may hold an event loop on this thread
    already (Playwright's sync API keeps one while its browser is open)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = asyncio.run(scenario)
        except BaseException as error:  # handed back to the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=run, name="event-loop-test")
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive(), "the scenario did not end within a minute"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]
