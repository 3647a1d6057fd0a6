"""The Basra game server. ``create_app`` builds it; nothing is built at import time.

Flask is imported inside ``create_app`` so that ``import app.engine`` (the pure library)
does not pull in the web framework.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

    from app.persistence import Database


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    from flask import Flask

    from app.api import register_api, telemetry
    from app.api.addresses import trusted_proxies
    from app.api.encoding import install as install_json
    from app.config import MAX_BODY_BYTES, load_settings, streams_per_address
    from app.live.stream_slots import StreamSlots
    from app.persistence import Database, SqlUnitOfWork
    from app.services.game_images import GameImages, ImagedUnitOfWork

    app = Flask(__name__)
    app.config.update(load_settings(config))
    # One byte over: werkzeug reads a chunked body (no Content-Length) up to this limit and
    # stops there without a word, so a body longer than ours shows as one byte too many
    # (app/api/requests.py: json_body); a declared length over it is refused by werkzeug.
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES + 1
    # Parsed once, and a wrong entry stops the start-up (app/api/addresses.py).
    app.extensions["basra_trusted_proxies"] = trusted_proxies(app.config["TRUSTED_PROXIES"])
    install_json(app)  # orjson, keys in the order they were written
    database = Database(app.config["DATABASE_URL"])
    app.extensions["basra_db"] = database
    # The API asks this for a unit of work per use case; only here is it tied to SQL. Every
    # save keeps or drops its game's image; a move may start from one (game_images.py).
    images = GameImages(app.config["GAME_IMAGES"])
    app.extensions["basra_images"] = images
    app.extensions["basra_uow"] = lambda from_images=False: ImagedUnitOfWork(
        SqlUnitOfWork(database), images, serve=from_images
    )
    telemetry.install(app)  # first: every later hook and refusal already has a request id
    app.extensions["basra_hub"] = _live_hub(app, database)
    app.extensions["basra_stream_slots"] = StreamSlots(
        app.config["STREAM_LIMIT"], streams_per_address(app.config)
    )
    register_api(app)
    _register_web(app)
    _register_bot_runner(app)
    _register_analyses(app)
    _install_sweeper(app)
    _install_matchmaker(app)
    return app


def _live_hub(app: Flask, database: Database) -> Any:
    """The process's hub of live streams and long polls of seeks (app/live/hub.py), on an
    event loop: the served entrance's (app/asgi.py starts it there), or else the process's own,
    started with the first stream or long poll (app/live/bridge.py). PostgreSQL pushes news of
    commits (one LISTEN per process); SQLite is polled."""
    from collections.abc import Sequence

    from app.live.hub import Hub
    from app.persistence import SqlUnitOfWork

    new_uow = app.extensions["basra_uow"]

    def statuses(seek_ids: Sequence[str]) -> dict[str, str]:
        with new_uow() as uow:
            found: dict[str, str] = uow.seeks.statuses(seek_ids)
            return found

    pushed = database.url if database.engine.dialect.name == "postgresql" else None
    return Hub(lambda: SqlUnitOfWork(database), statuses, pushed, app.config["STREAM_POLL_SECONDS"])


def _register_bot_runner(app: Flask) -> None:
    """Games of bots alone are played by this, outside requests (started on demand, or by
    ``app.wsgi`` for a served app)."""
    from app.background.bot_runner import BotRunner
    from app.config import machine_file
    from app.services import bots
    from app.services.progress import THINKING

    THINKING.floor = float(app.config["BOT_THINKING_SECONDS"])
    uow = app.extensions["basra_uow"]
    stale = float(app.config["BOT_STALE_SECONDS"])
    # One lock file per machine and database: the workers of an instance take turns.
    lock_path = machine_file("bot-runner", str(app.config["DATABASE_URL"]), ".lock")
    app.extensions["basra_bot_runner"] = BotRunner(
        lambda game_id, seconds: bots.play_bots(uow(), game_id, seconds),
        lambda: bots.claim_stale_bot_games(uow(), stale),
        sweep_seconds=min(5.0, stale / 2),
        lock_path=str(lock_path),
    )


def _register_analyses(app: Flask) -> None:
    """Analyses of finished games, queued by the requests that ask for them and judged in a
    pool of low-priority processes (started with the first)."""
    import os
    import secrets
    import socket
    from collections.abc import Iterable

    from app.background.analyses import AnalysisRunner, JudgePool
    from app.engine.bots.analysis import judge_log
    from app.observability import metrics
    from app.services import analysis

    new_uow = app.extensions["basra_uow"]
    work = int(app.config["ANALYSIS_WORK"])
    lease = float(app.config["ANALYSIS_LEASE_SECONDS"])
    pool = JudgePool(judge_log, int(app.config["ANALYSIS_WORKERS"]))
    # Who holds a lease: this app in this process on this machine.
    owner = f"{socket.gethostname()[:32]}:{os.getpid()}:{secrets.token_hex(4)}"

    def judge(job: analysis.Job) -> Iterable[list[list[object]]]:
        return pool.ordered([
            (job.rules, job.players, job.events, job.seats, start, stop, work)
            for start, stop in job.slices()
        ])  # fmt: skip

    app.extensions["basra_analysis_pool"] = pool
    app.extensions["basra_analyses"] = AnalysisRunner(
        lambda game_id: analysis.analyse(new_uow, game_id, owner, judge, lease),
        queue_size=int(app.config["ANALYSIS_QUEUE"]),
        threads=max(1, pool.workers),
        hooks=metrics.analysis_event,
    )


def _install_sweeper(app: Flask) -> None:
    """Every app can sweep deadlines (tests call ``sweep_once``); the thread runs only where
    ``SWEEPER`` is on (the served app), and stops when the process exits."""
    import atexit
    from datetime import UTC, datetime

    from app.background.sweeper import Sweeper
    from app.services.progress import sweep
    from app.services.retention import compact_logs, expire_idempotency, forget_guests

    app.config.setdefault("CLOCK", lambda: datetime.now(UTC))
    new_uow = app.extensions["basra_uow"]
    keep = float(app.config["IDEMPOTENCY_SECONDS"])
    compact_after = float(app.config["LOG_COMPACTION_SECONDS"])
    guests_kept = float(app.config["GUEST_SECONDS"])

    def sweep_once(now: datetime) -> int:
        expire_idempotency(new_uow(), now, keep)
        compact_logs(new_uow(), now, compact_after)
        forget_guests(new_uow(), now, guests_kept)
        return sweep(new_uow(), now)

    sweeper = Sweeper(sweep_once, app.config["SWEEP_INTERVAL_SECONDS"])
    app.extensions["basra_sweeper"] = sweeper
    if app.config["SWEEPER"]:
        sweeper.start()
        atexit.register(sweeper.stop)


def _install_matchmaker(app: Flask) -> None:
    """Pairing passes after each new seek, and every ``MATCH_INTERVAL_SECONDS`` where
    ``SWEEPER`` is on; the seeks a pass settles wake this process's long polls at once
    (app/live/seek_waits.py), the others' hear of it through the database."""
    import atexit

    from app.background.matchmaker import Matchmaker

    matchmaker = Matchmaker(
        app.extensions["basra_uow"], app.extensions["basra_hub"].seeks,
        lambda: app.config["CLOCK"](), interval=app.config["MATCH_INTERVAL_SECONDS"],
    )  # fmt: skip
    app.extensions["basra_matchmaker"] = matchmaker
    if app.config["SWEEPER"]:
        matchmaker.start()
        atexit.register(matchmaker.stop)


def _register_web(app: Flask) -> None:
    from app.web import bp

    app.register_blueprint(bp)
