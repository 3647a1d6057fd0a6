"""Analyses of finished games, computed in the background beside live play.

``AnalysisRunner`` is a bounded queue of games to analyse in this process, and a few threads
that take them in turn and run the use case ``create_app`` hands it (which takes the game's
lease in the database first, so that of every process of every instance one computes it). Past
``queue_size`` games waiting or running here, ``offer`` says no, and the API answers 503.

``JudgePool`` is where the CPU goes: a pool of ``workers`` processes (``spawn``ed, so nothing of
the serving process's threads or connections is copied), each lowered to ``nice`` so that the
scheduler gives live requests the cores first. A game is judged a slice of moves at a time, the
slices spread over the pool's processes and handed back in order. With ``workers`` at 0 the
slices are judged in the runner's own thread (tools and tests that want no process).
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

log = logging.getLogger("basra.analyses")

Analyse = Callable[[str], object]  # game id -> (stored or not); raises only on a bug
# (event, seconds) for the metrics: "queued", "started", then "done" (computed and stored
# here, with its duration) or "passed" (another process holds it, or it failed)
Hooks = Callable[[str, float], None]


PARENT_CHECK_SECONDS = 1.0


def _start_judge(nice: int, parent: int) -> None:
    """A judging process: lowered to ``nice``, and gone soon after the serving process that
    started it (a worker that gunicorn killed or restarted leaves none behind)."""
    os.nice(nice)
    threading.Thread(target=_follow_parent, args=(parent,), daemon=True).start()


def _follow_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)  # nothing of ours to flush: results go back through the pool alone


class JudgePool:
    """Runs ``work(*args)`` for each slice's arguments, in processes of low priority."""

    def __init__(self, work: Callable[..., Any], workers: int, nice: int = 19) -> None:
        self._work = work
        self.workers = workers
        self.nice = nice
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def ordered(self, slices: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        """Each slice's result, in the slices' order, as soon as it and those before are in."""
        if not self.workers:
            for args in slices:
                yield self._work(*args)
            return
        pool = self._executor()
        futures: list[Future[Any]] = [pool.submit(self._work, *args) for args in slices]
        try:
            for future in futures:
                yield future.result()
        finally:
            for future in futures:
                future.cancel()

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_judge,
                    initargs=(self.nice, os.getpid()),
                )
                atexit.register(self.shutdown)
            return self._pool

    def shutdown(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


class AnalysisRunner:
    def __init__(
        self, analyse: Analyse, *, queue_size: int, threads: int = 1,
        hooks: Hooks | None = None,
    ) -> None:  # fmt: skip
        self._analyse = analyse
        self.queue_size = queue_size
        self.threads = max(1, threads)
        self._hooks = hooks or (lambda event, seconds: None)
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._pending: set[str] = set()  # waiting or running here
        self._lock = threading.Lock()
        self._workers: list[threading.Thread] = []

    def offer(self, game_id: str) -> bool:
        """Queue the game here unless it already is; False when the queue is full."""
        with self._lock:
            if game_id in self._pending:
                return True
            if len(self._pending) >= self.queue_size:
                return False
            self._pending.add(game_id)
            self._start()
        self._hooks("queued", 0.0)
        self._queue.put(game_id)
        return True

    def has_room(self, game_id: str) -> bool:
        """Whether ``offer`` would take the game now."""
        with self._lock:
            return game_id in self._pending or len(self._pending) < self.queue_size

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._pending)

    def stop(self, timeout: float = 5.0) -> None:
        with self._lock:
            workers, self._workers = self._workers, []
        for _ in workers:
            self._queue.put(None)
        for worker in workers:
            worker.join(timeout)

    def _start(self) -> None:
        """Start the threads on the first offer (held lock)."""
        if self._workers:
            return
        for index in range(self.threads):
            worker = threading.Thread(target=self._run, name=f"basra-analyses-{index}",
                                      daemon=True)  # fmt: skip
            worker.start()
            self._workers.append(worker)
        atexit.register(self.stop)

    def _run(self) -> None:
        while True:
            game_id = self._queue.get()
            if game_id is None:
                return
            self._hooks("started", 0.0)
            started = time.monotonic()
            stored: object = False
            try:
                stored = self._analyse(game_id)
            except Exception:  # one bad game must not stop the others
                log.exception("analysis of %s failed", game_id)
            finally:
                with self._lock:
                    self._pending.discard(game_id)
                self._hooks("done" if stored else "passed", time.monotonic() - started)
