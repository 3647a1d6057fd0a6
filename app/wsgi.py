"""gunicorn's target: ``gunicorn -c gunicorn.conf.py app.wsgi:app``."""

import os

from app import create_app
from app.server.gc_tuning import tune_for_requests

# A served app sweeps deadlines in each worker process (SWEEPER=off turns it off).
app = create_app({"SWEEPER": os.environ.get("SWEEPER", "on") != "off"})
# Games of bots alone left unfinished (a restart, a killed worker) are picked up from here on.
app.extensions["basra_bot_runner"].start()
tune_for_requests()
