"""Settings from the environment, overridable by ``create_app(config)``."""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = f"sqlite:///{PROJECT_ROOT / 'var' / 'basra.sqlite3'}"
MAX_BODY_BYTES = 64 * 1024
DEFAULT_ANALYSIS_WORK = 16_000  # app/engine/bots/analysis.py: DEFAULT_WORK


def machine_file(kind: str, database_url: str, suffix: str) -> Path:
    """A file the processes of one instance share (same machine, user and database), in a folder
    of the temporary directory that only this user may enter, so that no other local user can
    plant or read it at a name they could predict."""
    folder = Path(tempfile.gettempdir()) / f"basra-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    held = folder.lstat()
    if not stat.S_ISDIR(held.st_mode) or held.st_uid != os.getuid() or held.st_mode & 0o077:
        raise RuntimeError(f"{folder} must be a folder of this user's alone (mode 700)")
    digest = hashlib.sha256(database_url.encode()).hexdigest()[:16]
    return folder / f"{kind}-{digest}{suffix}"


# Requests a client may make; "off" turns limiting off (benchmarks, load tests).
DEFAULT_RATE_LIMIT = "600 per minute"  # per address
DEFAULT_NETWORK_RATE_LIMIT = "9600 per minute"  # per IPv6 /48: 16 addresses' worth
DEFAULT_TOKEN_RATE_LIMIT = "300 per minute"  # per seat token
DEFAULT_CREATE_RATE_LIMIT = "20 per minute"  # POST /games per address
DEFAULT_JOIN_RATE_LIMIT = "30 per minute"  # POST /games/{id}/join per address
DEFAULT_SEEK_RATE_LIMIT = "20 per minute"  # POST /seeks per address, and per player
DEFAULT_PLAYER_CREATE_RATE_LIMIT = "10 per minute"  # POST /players per address
# Bots' moves per address, weighted by cost (app/api/limits.py): 40 moves a minute against
# three expert bots, far more against random or greedy ones.
DEFAULT_BOT_WORK_LIMIT = "1200 per minute"
# Analyses of finished games a client starts, per address: each takes seconds of a core.
DEFAULT_ANALYSIS_RATE_LIMIT = "10 per minute"
# At least this long a decision, for an expert bot at a table with a human: above the p99 of
# its search (docs/bots.md), so nearly every decision takes exactly this long.
DEFAULT_BOT_THINKING_SECONDS = 0.2
# Deadlines (API.md items 13 and 15): how often each process sweeps for expired turns and
# waiting games, and how long a waiting game waits for its next player before it ends.
DEFAULT_SWEEP_INTERVAL_SECONDS = 1.0
DEFAULT_WAITING_TTL_SECONDS = 24 * 60 * 60
DEFAULT_GAME_IMAGES = 1000
# Each open live stream holds one of its worker's threads (gthread); this many of them are kept
# for everything else whatever the streams (app/live/stream_slots.py).
SPARE_THREADS = 64
# A household or an office behind one address watches this many games live in each worker.
DEFAULT_STREAMS_PER_ADDRESS = "32"


def default_workers(database_url: str | None = None) -> int:
    """Gunicorn's worker processes when ``WEB_CONCURRENCY`` is not set, for the database in
    ``DATABASE_URL``: on PostgreSQL one per core this process may run on, on SQLite two per core.
    Never fewer than two, so that a worker that restarts leaves another to answer.

    Measured on two cores (docs/performance.md, "Workers and sockets"): on PostgreSQL two workers
    served as many moves as four with a shorter tail, and with 1,000 live streams kept 0.94 of
    their moves (median of nine runs) where four kept 0.80 (each process's hub reads every
    notice and writes each game's streams of its own). On SQLite four served 10-20% more moves
    than two. A guess at why, not checked: a writer that finds the file locked sleeps in
    SQLite's busy handler, and more processes keep the cores busy meanwhile."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    per_core = 2 if (database_url or DEFAULT_DATABASE_URL).startswith("sqlite") else 1
    return max(2, per_core * (cores or 1))


def stream_limit(threads: int) -> int:
    """The live streams one gthread worker with ``threads`` threads may hold at once."""
    return max(threads // 2, threads - SPARE_THREADS)


def streams_per_address(settings: Mapping[str, Any]) -> int | None:
    """The live streams one address may hold in one process: ``STREAMS_PER_ADDRESS``; none
    with ``RATE_LIMIT=off`` (every limit off: benchmarks and load tests from one address)."""
    if str(settings["RATE_LIMIT"]).strip().lower() == "off":
        return None
    bound = str(settings["STREAMS_PER_ADDRESS"]).strip().lower()
    return None if bound == "off" else int(bound)


def load_settings(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "DATABASE_URL": os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
        "RATE_LIMIT": os.environ.get("RATE_LIMIT") or DEFAULT_RATE_LIMIT,
        # Every IPv6 request of one /48 (a site's usual allocation) together, over every route.
        "NETWORK_RATE_LIMIT": os.environ.get("NETWORK_RATE_LIMIT") or DEFAULT_NETWORK_RATE_LIMIT,
        "TOKEN_RATE_LIMIT": os.environ.get("TOKEN_RATE_LIMIT") or DEFAULT_TOKEN_RATE_LIMIT,
        "CREATE_RATE_LIMIT": os.environ.get("CREATE_RATE_LIMIT") or DEFAULT_CREATE_RATE_LIMIT,
        "SEEK_RATE_LIMIT": os.environ.get("SEEK_RATE_LIMIT") or DEFAULT_SEEK_RATE_LIMIT,
        "PLAYER_CREATE_RATE_LIMIT": os.environ.get("PLAYER_CREATE_RATE_LIMIT")
        or DEFAULT_PLAYER_CREATE_RATE_LIMIT,
        "JOIN_RATE_LIMIT": os.environ.get("JOIN_RATE_LIMIT") or DEFAULT_JOIN_RATE_LIMIT,
        "BOT_WORK_LIMIT": os.environ.get("BOT_WORK_LIMIT") or DEFAULT_BOT_WORK_LIMIT,
        "ANALYSIS_RATE_LIMIT": os.environ.get("ANALYSIS_RATE_LIMIT") or DEFAULT_ANALYSIS_RATE_LIMIT,
        # Analyses of finished games (app/background/analyses.py, docs/bots.md "Analysis"): the
        # processes of low priority each serving process judges moves in (0: its own thread),
        # the analyses one serving process holds waiting or running (past it, 503), and the
        # card plays the search of one judged move makes (the same budget gives the same values).
        "ANALYSIS_WORKERS": int(os.environ.get("ANALYSIS_WORKERS") or 2),
        "ANALYSIS_QUEUE": int(os.environ.get("ANALYSIS_QUEUE") or 8),
        "ANALYSIS_WORK": int(os.environ.get("ANALYSIS_WORK") or DEFAULT_ANALYSIS_WORK),
        "ANALYSIS_LEASE_SECONDS": float(os.environ.get("ANALYSIS_LEASE_SECONDS") or 60.0),
        "REDIS_URL": os.environ.get("REDIS_URL") or None,
        # The proxies whose X-Forwarded-For names the client (app/api/addresses.py): addresses
        # or networks, comma-separated; empty, the default, believes no such header.
        "TRUSTED_PROXIES": os.environ.get("TRUSTED_PROXIES") or "",
        # When set, GET /metrics needs it as a bearer token.
        "METRICS_TOKEN": os.environ.get("METRICS_TOKEN") or None,
        # Live streams: how often SQLite is polled for new events (PostgreSQL is told at once),
        # and the keep-alive comment's period.
        "STREAM_POLL_SECONDS": float(os.environ.get("STREAM_POLL_SECONDS") or 0.25),
        "STREAM_KEEPALIVE_SECONDS": float(os.environ.get("STREAM_KEEPALIVE_SECONDS") or 15),
        # The live streams one process holds at once (gunicorn.conf.py sets it: 8,000 on the
        # event loop, half the threads of a gthread worker); unset: no bound.
        "STREAM_LIMIT": int(os.environ["STREAM_LIMIT"]) if os.environ.get("STREAM_LIMIT") else None,
        # ...and one address at once in one process (app/live/stream_slots.py); "off": none.
        "STREAMS_PER_ADDRESS": os.environ.get("STREAMS_PER_ADDRESS") or DEFAULT_STREAMS_PER_ADDRESS,
        # An expert bot's decision at a table with a human takes at least this long, so its
        # thinking time tells nothing of its hand (app/services/progress.py); 0 turns it off.
        "BOT_THINKING_SECONDS": float(
            os.environ.get("BOT_THINKING_SECONDS") or DEFAULT_BOT_THINKING_SECONDS
        ),
        # A game of bots alone unchanged this long is nobody's: a bot runner claims it.
        # How long a move's stored answer serves retries of its Idempotency-Key (a day).
        "IDEMPOTENCY_SECONDS": float(os.environ.get("IDEMPOTENCY_SECONDS") or 86_400),
        # How long a game is over before the sweep compacts its log into one compressed value.
        "LOG_COMPACTION_SECONDS": float(os.environ.get("LOG_COMPACTION_SECONDS") or 3_600),
        # A guest that never took a seat is forgotten this long after it was made.
        "GUEST_SECONDS": float(os.environ.get("GUEST_SECONDS") or 30 * 86_400),
        "BOT_STALE_SECONDS": float(os.environ.get("BOT_STALE_SECONDS") or 10.0),
        # Active games of bots alone past which a new one is refused (503, Retry-After: 30):
        # the background runner plays them in turns at half a core a machine. 0: no limit.
        "BOT_BACKLOG": int(os.environ.get("BOT_BACKLOG") or 200),
        # Where counts live without Redis (app/api/limits.py): a limits storage URI; unset,
        # each process's memory.
        "RATE_LIMIT_STORAGE": os.environ.get("RATE_LIMIT_STORAGE") or None,
        # The served app (app.wsgi) sweeps unless SWEEPER=off; an app built by a test or a
        # tool (basra openapi) sweeps only when asked to.
        "SWEEPER": os.environ.get("SWEEPER", "off") != "off",
        "SWEEP_INTERVAL_SECONDS": float(
            os.environ.get("SWEEP_INTERVAL_SECONDS") or DEFAULT_SWEEP_INTERVAL_SECONDS
        ),
        # How often each process runs a pairing pass of the waiting seeks besides the one
        # after each new seek: the rating gap widens, bots step in, seeks expire.
        "MATCH_INTERVAL_SECONDS": float(os.environ.get("MATCH_INTERVAL_SECONDS") or 1.0),
        # Games a process keeps the image of, so that a player's next move need not load its
        # game (app/services/game_images.py); 0: every move loads its game.
        "GAME_IMAGES": int(os.environ.get("GAME_IMAGES") or DEFAULT_GAME_IMAGES),
        # Players signed in by an integrator (app/api/bearers.py): the HMAC secret, a
        # public key (PEM text or file) or a JWKS file, and the checks of the token's claims.
        **{
            f"PLAYER_JWT_{name}": os.environ.get(f"PLAYER_JWT_{name}") or None
            for name in ("SECRET", "PUBLIC_KEY", "JWKS", "ISSUER", "AUDIENCE", "ALGORITHMS")
        },
        # The longest a signed token may live, from its iat (or from when it is seen), in s.
        "PLAYER_JWT_MAX_LIFETIME": int(os.environ.get("PLAYER_JWT_MAX_LIFETIME") or 86_400),
        "WAITING_TTL_SECONDS": int(
            os.environ.get("WAITING_TTL_SECONDS") or DEFAULT_WAITING_TTL_SECONDS
        ),
    }
    settings.update(overrides or {})
    return settings


def sqlite_path(database_url: str) -> Path | None:
    """The file of a SQLite URL, so it can be created before first use."""
    prefix = "sqlite:///"
    if not database_url.startswith(prefix) or database_url == "sqlite:///:memory:":
        return None
    return Path(database_url[len(prefix) :].split("?", 1)[0])
