"""Gunicorn settings; every value can be overridden from the environment."""

import os
import shutil
import sys
import tempfile
from pathlib import Path

# ---- metrics (app/observability/metrics.py): one scrape covers every worker of this instance.
# prometheus_client picks per-process memory-mapped files when it is first imported with
# PROMETHEUS_MULTIPROC_DIR set, so it is set here, in the master, before any worker imports the
# app. The directory is made fresh for each start (left-over files of an earlier run would be
# summed in); an operator's own directory is emptied instead of made. A reload (HUP) reads this
# file again in the same master: the marker keeps it from wiping the live workers' files then.
_SET_UP = "BASRA_METRICS_DIR_SET_UP"
if not os.environ.get(_SET_UP):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        os.environ[_SET_UP] = "given"
        Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).mkdir(parents=True, exist_ok=True)
        for _stale in Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).glob("*.db"):
            _stale.unlink()
    else:
        os.environ[_SET_UP] = "made"
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="basra-metrics-")

bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
# By the database (app/config.py: default_workers): one per core on PostgreSQL, two per core
# on SQLite.
from app.config import default_workers  # noqa: E402

workers = int(os.environ.get("WEB_CONCURRENCY") or default_workers(os.environ.get("DATABASE_URL")))
# Each worker listens on a socket of its own (SO_REUSEPORT), and the kernel spreads the new
# connections over them. On one shared socket, whichever worker woke first took a whole burst:
# 16 clients that connected at once all landed in one worker (one GIL, one core) and got 700
# moves a second where spread out they get 1,100 (docs/performance.md, "Workers and sockets").
# What it costs: a worker that exits drops the connections still waiting in its own queue
# (Linux's net.ipv4.tcp_migrate_req=1 hands them to the others), and a second server started
# on the same port shares it instead of failing. REUSE_PORT=0 turns it off.
reuse_port = os.environ.get("REUSE_PORT", "1") != "0"
# Which app: ``app.asgi:app``, the entrance (``make run``, and the stream processes of a
# deployment), runs on an event loop: uvicorn's worker (app/server/workers.py: LoopWorker), the
# streams and long polls on the loop, the rest of the API in a thread pool of GUNICORN_THREADS.
# ``app.wsgi:app``, the REST workers of a deployment (docs/scaling.md), runs gunicorn's gthread
# worker with GUNICORN_THREADS threads. GUNICORN_WORKER_CLASS overrides either for a run.
_ON_A_LOOP = any(arg.startswith("app.asgi") for arg in sys.argv[1:])
worker_class = os.environ.get("GUNICORN_WORKER_CLASS") or (
    "app.server.workers.LoopWorker" if _ON_A_LOOP else "gthread"
)
threads = int(os.environ.get("GUNICORN_THREADS", "32"))
# How long an idle keep-alive connection is kept (gunicorn's default: 2 s). A client whose next
# request leaves just as the server closes its idle connection gets no answer: on a loaded
# machine, 200 clients paused past 2 s often enough to lose a request or two a run
# (tests/reliability/test_concurrency.py).
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "5"))
worker_connections = int(os.environ.get("GUNICORN_WORKER_CONNECTIONS", "2000"))
# The live streams a process holds (app/live/stream_slots.py); past that a new stream is a 503
# with Retry-After. On the loop a stream is a few kilobytes (docs/scaling.md); on a gthread
# worker (a stream sent to a REST worker) it holds a thread, and is kept below the threads so
# that moves and views always find one. STREAM_LIMIT overrides it.
if _ON_A_LOOP:
    os.environ.setdefault("STREAM_LIMIT", "8000")
elif worker_class == "gthread":
    from app.config import stream_limit

    os.environ.setdefault("STREAM_LIMIT", str(stream_limit(threads)))
# Ten thousand watchers connecting at once: the kernel's queue of connections not yet accepted.
backlog = int(os.environ.get("GUNICORN_BACKLOG", "4096"))
timeout = 30
graceful_timeout = 10
# The app is built in each worker, so no database connection is shared across a fork.
preload_app = False
# ... but the libraries every worker imports are read once, here in the master: a worker forked
# from it starts on about a tenth of the CPU (0.1 s instead of 1.2 s on this machine's cores),
# so a worker that died is replaced sooner, the servers of a test or a deployment start sooner,
# and the workers share those pages. Libraries only: the app's own modules are read in each
# worker, so a HUP still loads new app code (a library upgraded in place needs a restart).
# None of them opens a connection or starts a thread when imported. PRELOAD_LIBRARIES=0: off.
LIBRARIES = (
    "a2wsgi", "confusable_homoglyphs.confusables", "flask", "flask_limiter", "flask_smorest",
    "jwt", "marshmallow", "openskill.models", "orjson", "psycopg", "sqlalchemy",
    "sqlalchemy.dialects.postgresql", "sqlalchemy.dialects.sqlite", "uvicorn", "yaml",
)  # fmt: skip
if os.environ.get("PRELOAD_LIBRARIES", "1") != "0":
    import importlib

    for _library in LIBRARIES:
        importlib.import_module(_library)

# ---- logs (app/observability/logs.py): JSON lines on stdout, gunicorn's own records included.
# Gunicorn's access log is off: the app writes one JSON line per request instead (request_id,
# method, URL rule, status, duration_ms, game_id), which names the route rather than the raw
# path and never a header. ACCESS_LOG=1 turns gunicorn's back on (JSON too) for debugging.
accesslog = "-" if os.environ.get("ACCESS_LOG") == "1" else None
errorlog = "-"
# If turned on: gunicorn's default minus %(u)s (the Basic-auth user), plus the request time; no
# request header, so bearer tokens never reach the log.
access_log_format = '%(h)s %(l)s - %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(L)ss'


def _logconfig():
    from app.observability.logs import logging_config

    return logging_config()


logconfig_dict = _logconfig()


def _logger_class():
    from gunicorn.glogging import Logger

    class AccessLogOnlyWhenAsked(Logger):
        """Gunicorn counts a logging config (``logconfig_dict``, above) as asking for its access
        log, and then builds each request's access-log fields (headers, environ, a formatted
        time) for nobody: about 4% of a worker's time under load (docs/performance.md)."""

        @property
        def access_log_enabled(self) -> bool:
            return self.cfg.accesslog is not None

    return AccessLogOnlyWhenAsked


logger_class = _logger_class()

# Gunicorn 27's runtime control socket lives at one fixed path per user, which concurrent
# servers (tests, benchmarks) would fight over; nothing here uses it.
control_socket_disable = True


def child_exit(server, worker):
    # A dead worker's live gauges (stream clients, worker count) must leave the sums.
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def when_ready(server):
    # Listening beyond loopback with no proxy in front is said loudly, once, at start.
    from app.server.exposure import exposure_warning

    warning = exposure_warning(bind, os.environ.get("TRUSTED_PROXIES") or "")
    if warning:
        server.log.warning(warning)


def on_exit(server):
    if os.environ.get(_SET_UP) == "made":
        shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)


# Requests gunicorn refuses itself (request line over limit_request_line: 414; headers over
# limit_request_fields / limit_request_field_size: 431; malformed: 400) answer problem+json like
# the app, whichever worker class is chosen above (app/server/workers.py). Keep this line last.
from app.server.workers import with_problem_errors  # noqa: E402

worker_class = with_problem_errors(worker_class, globals().get("threads", 1))
