"""gunicorn's target: ``gunicorn -c gunicorn.conf.py app.wsgi:app``."""

import gc
import os

from app import create_app

# A served app sweeps deadlines in each worker process (SWEEPER=off turns it off).
app = create_app({"SWEEPER": os.environ.get("SWEEPER", "on") != "off"})
# Games of bots alone left unfinished (a restart, a killed worker) are picked up from here on.
app.extensions["basra_bot_runner"].start()

# The cyclic garbage collector, tuned for a request loop (docs/performance.md, "Garbage
# collection"): a move deep in a match loads and answers a hundred rounds, which made the
# default threshold (700 new objects) collect during most such moves. What the app built at
# start-up is frozen out of every later collection, and the youngest generation is collected
# every 10,000 new objects instead: memory from cycles waits a little longer to be freed,
# and little of a request's garbage is cyclic (reference counting frees the rest at once).
GC_THRESHOLD = int(os.environ.get("GC_THRESHOLD", "10000"))
gc.freeze()
gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
