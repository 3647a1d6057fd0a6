"""The Prometheus metrics of one process, and the scrape that covers every process of an instance.

Under gunicorn, ``gunicorn.conf.py`` sets ``PROMETHEUS_MULTIPROC_DIR`` before any worker starts:
prometheus_client then keeps each value in a memory-mapped file per process, and a scrape of any
worker adds up every worker's files (``MultiProcessCollector``). Without that variable (tests,
``flask run``) the values live in this process and the scrape reads them directly.

prometheus_client picks its value class when it is first imported, so the variable must be set
before then; ``MULTIPROCESS`` records which way this process went, and the scrape follows it.

The families are module-level objects, as prometheus_client intends (one registration per
process); the other layers count through the small functions at the bottom, never by name.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client import multiprocess as _multiprocess

disable_created_metrics()  # the *_created series are absent in multiprocess mode anyway

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
MULTIPROCESS = bool(os.environ.get(MULTIPROC_ENV))
CONTENT_TYPE = CONTENT_TYPE_LATEST

# Methods outside this set are counted as "other": a client cannot add label values at will.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED_ROUTE = "unmatched"  # 404s that matched no URL rule: the raw path is never a label

HTTP_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
BOT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

HTTP_REQUESTS = Counter("http_requests", "HTTP requests answered", ["method", "route", "status"])
HTTP_DURATION = Histogram(
    "http_request_duration_seconds",
    "Time from the request's arrival in the app to its answer, by URL rule",
    ["route"],
    buckets=HTTP_BUCKETS,
)
MOVES = Counter("basra_moves", "Moves applied and committed (humans, bots and timeouts)")
GAMES_CREATED = Counter("basra_games_created", "Games created")
BOT_DECISION = Histogram(
    "basra_bot_decision_seconds", "Time a bot took to choose a card", ["level"], buckets=BOT_BUCKETS
)
STREAM_CLIENTS = Gauge(
    "basra_stream_clients",
    "Open event streams (GET /games/{id}/stream)",
    multiprocess_mode="livesum",
)
TURN_TIMEOUTS = Counter("basra_turn_timeouts", "Turns the server played for a seat out of time")
DB_ERRORS = Counter(
    "basra_db_errors", "Requests answered 503 because the database did not answer", ["kind"]
)
GAME_IMAGES = Counter(
    "basra_game_images",
    "Moves decided from this process's image of their game (services/game_images.py): saved"
    " from it, or decided again from the database (stale, refused or out of time)",
    ["outcome"],
)
_IMAGE_USED = GAME_IMAGES.labels("used")
_IMAGE_MISSED = GAME_IMAGES.labels("missed")
RATE_LIMITED = Counter("basra_rate_limited", "Requests refused with 429 by the rate limits")
WORKERS = Gauge(
    "basra_worker_processes", "Live processes serving the app", multiprocess_mode="livesum"
)
STARTED = Gauge(
    "basra_process_start_time_seconds",
    "When each serving process started (Unix time; one series per pid)",
    multiprocess_mode="liveall",
)
RESIDENT = Gauge(
    "basra_process_resident_memory_bytes",
    "Resident memory of each serving process, refreshed at most every 10 s",
    multiprocess_mode="liveall",
)
SEEKS_WAITING = Gauge(
    "basra_seeks_waiting",
    "Seeks waiting for a game, as the latest pairing pass of any process found them",
    multiprocess_mode="mostrecent",
)
SEEK_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
SEEK_WAIT = Histogram(
    "basra_seek_match_seconds",
    "Time from a seek to its game (matched seeks only)",
    buckets=SEEK_BUCKETS,
)
SEEK_MATCHES = Counter(
    "basra_seek_matches",
    "Games made from seeks, by table size, rated or not, and with bots or not",
    ["players", "rated", "bots"],
)

ANALYSES_QUEUED = Gauge(
    "basra_analyses_queued",
    "Analyses of finished games waiting for a worker of this instance",
    multiprocess_mode="livesum",
)
ANALYSES_RUNNING = Gauge(
    "basra_analyses_running",
    "Analyses of finished games being computed by this instance",
    multiprocess_mode="livesum",
)
ANALYSES_DONE = Counter("basra_analyses_done", "Analyses of finished games computed and stored")
ANALYSIS_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0)
ANALYSIS_SECONDS = Histogram(
    "basra_analysis_seconds",
    "Time from a worker taking up an analysis to its result stored",
    buckets=ANALYSIS_BUCKETS,
)

_RSS_EVERY = 10.0
_rss_due = 0.0
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def render() -> bytes:
    """The text of one scrape: every process's values when in multiprocess mode."""
    if not MULTIPROCESS:
        return generate_latest(REGISTRY)
    registry = CollectorRegistry()
    _multiprocess.MultiProcessCollector(registry)
    return generate_latest(registry)


def process_started() -> None:
    """Called once per serving process, when its app is built."""
    WORKERS.set(1)
    STARTED.set(time.time())
    refresh_process_info(force=True)


def refresh_process_info(force: bool = False) -> None:
    global _rss_due
    now = time.monotonic()
    if not force and now < _rss_due:
        return
    _rss_due = now + _RSS_EVERY
    with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/self/statm") as statm:
        RESIDENT.set(int(statm.read().split()[1]) * _PAGE)


# Label children by their values: ``labels()`` validates and locks on every call, a dict does not.
_requests: dict[tuple[str, str, int], Counter] = {}
_durations: dict[str, Histogram] = {}


def request_answered(method: str, route: str, status: int, seconds: float) -> None:
    key = (method, route, status)
    counter = _requests.get(key)
    if counter is None:
        label = method if method in METHODS else "other"
        counter = _requests[key] = HTTP_REQUESTS.labels(label, route, str(status))
    counter.inc()
    histogram = _durations.get(route)
    if histogram is None:
        histogram = _durations[route] = HTTP_DURATION.labels(route)
    histogram.observe(seconds)


def moves_applied(count: int) -> None:
    if count:
        MOVES.inc(count)


def game_created() -> None:
    GAMES_CREATED.inc()


_bot_decisions: dict[str, Histogram] = {}


def bot_decided(level: str, seconds: float) -> None:
    histogram = _bot_decisions.get(level)
    if histogram is None:
        histogram = _bot_decisions[level] = BOT_DECISION.labels(level)
    histogram.observe(seconds)


def turn_timed_out() -> None:
    """For the turn clock: one call per TurnTimedOut it commits."""
    TURN_TIMEOUTS.inc()


@contextlib.contextmanager
def stream_client() -> Iterator[None]:
    """For the event stream: hold this open while a client is connected."""
    STREAM_CLIENTS.inc()
    try:
        yield
    finally:
        STREAM_CLIENTS.dec()


def seeks_waiting(count: int) -> None:
    SEEKS_WAITING.set(count)


def seek_waited(seconds: float) -> None:
    """For the pairing pass: once per seek it matched, how long that seek waited."""
    SEEK_WAIT.observe(seconds)


def seeks_matched(players: int, rated: bool, bots: bool) -> None:
    SEEK_MATCHES.labels(str(players), str(rated).lower(), str(bots).lower()).inc()


def image_used() -> None:
    _IMAGE_USED.inc()


def image_missed() -> None:
    _IMAGE_MISSED.inc()


def database_error(kind: str) -> None:
    DB_ERRORS.labels(kind).inc()


def rate_limited() -> None:
    RATE_LIMITED.inc()


def mark_process_dead(pid: int) -> None:
    """For gunicorn's child_exit hook: drop a dead worker's live gauges."""
    if MULTIPROCESS:
        _multiprocess.mark_process_dead(pid)


def analysis_event(event: str, seconds: float) -> None:
    """For the analyses' runner: an analysis ``queued``, ``started``, then ``done`` (stored by
    this process, after ``seconds``) or ``passed`` (another held it, or it failed)."""
    if event == "queued":
        ANALYSES_QUEUED.inc()
    elif event == "started":
        ANALYSES_QUEUED.dec()
        ANALYSES_RUNNING.inc()
    else:
        ANALYSES_RUNNING.dec()
        if event == "done":
            ANALYSES_DONE.inc()
            ANALYSIS_SECONDS.observe(seconds)
