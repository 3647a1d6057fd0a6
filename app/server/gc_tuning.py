"""The cyclic garbage collector, tuned for a request loop (docs/performance.md, "Garbage
collection"). A move deep in a match loads and answers a hundred rounds, which made the default
threshold (700 new container objects) collect during most such moves. What the process built at
start-up is frozen out of every later collection, and the youngest generation is collected every
10,000 new objects instead of 700: garbage in cycles waits a little longer to be freed, and little
of a request's garbage is cyclic (reference counting frees the rest at once)."""

from __future__ import annotations

import gc
import os

DEFAULT_THRESHOLD = 10_000


def tune_for_requests() -> None:
    """Call once the app is built (``app/wsgi.py``); ``GC_THRESHOLD`` overrides the threshold."""
    threshold = int(os.environ.get("GC_THRESHOLD", DEFAULT_THRESHOLD))
    gc.freeze()
    gc.set_threshold(threshold, *gc.get_threshold()[1:])
