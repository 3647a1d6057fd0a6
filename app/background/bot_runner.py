"""Plays games of bots alone in the background, outside the request that created them.

``POST /games`` with bots in every seat answers 201 at once (status ``active``); this runner
then plays the match in short slices (``slice_seconds`` of moves per transaction), so every
slice is committed, streamed and visible, and no request ever waits for a whole match.

One thread per process (``threading``, so it runs under sync, gthread and gevent workers
alike). It starts on demand, when this process creates such a game, and ends after
``idle_seconds`` with nothing to do; a served app (``app.wsgi``) starts it at once and keeps it
running, and only then also sweeps every ``sweep_seconds`` for games nobody is playing:
active bots-only games whose last change is older than ``stale_seconds`` (their process died,
or the server restarted). ``claim`` takes such a game with a version-checked update, so of all
the processes of every instance exactly one picks each up.

The CPU it takes is bounded per machine: a slice is played only while holding ``lock_path``
(an exclusive ``flock``, freed by the kernel if the process dies), so of all the worker
processes on one machine one plays at a time, and after each slice it rests, still holding it, as
long as the slice took (``duty`` 0.5): at most half a core for every bots-only game on the
machine, the rest is left to requests. Past ``BOT_BACKLOG`` active games of bots alone, a new one
is refused (503 with ``Retry-After``) rather than queued behind them.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial

log = logging.getLogger("basra.bot_runner")

Play = Callable[[str, float], bool]  # (game id, seconds) -> True while the match goes on
Claim = Callable[[], list[str]]  # stale games this process now owns


class BotRunner:
    def __init__(
        self,
        play: Play,
        claim: Claim,
        *,
        slice_seconds: float = 0.25,
        duty: float = 0.5,
        sweep_seconds: float = 5.0,
        idle_seconds: float = 30.0,
        lock_path: str | None = None,
    ) -> None:
        self._play = play
        self._claim = claim
        self.slice_seconds = slice_seconds
        self.duty = duty
        self.sweep_seconds = sweep_seconds
        self.idle_seconds = idle_seconds
        self._queue: queue.Queue[str] = queue.Queue()
        self._queued: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._keep_running = False
        self._lock_path = lock_path

    # ------------------------------------------------------------ control
    def start(self, keep_running: bool = True) -> None:
        """Run now; ``keep_running``: never stop for idleness (a served app)."""
        with self._lock:
            self._keep_running = self._keep_running or keep_running
            if self._thread is not None and self._thread.is_alive():
                return
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="basra-bot-runner",
                                            daemon=True)  # fmt: skip
            self._thread.start()
        atexit.register(self.stop)

    def wake(self, game_id: str) -> None:
        """A game of bots alone to play (this process just made it)."""
        self._enqueue(game_id)
        self.start(keep_running=False)

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def forget(self) -> None:
        """Drop every queued game (a served app's sweep would pick them up again)."""
        with self._lock:
            self._queued.clear()
            while not self._queue.empty():
                self._queue.get_nowait()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # ------------------------------------------------------------ the loop
    def _enqueue(self, game_id: str) -> None:
        with self._lock:
            if game_id in self._queued:
                return
            self._queued.add(game_id)
        self._queue.put(game_id)

    def _run(self) -> None:
        next_sweep = time.monotonic()
        idle_since = time.monotonic()
        while not self._stop.is_set():
            now = time.monotonic()
            if self._keep_running and now >= next_sweep:
                claimed = self._guarded(self._claim, "claiming stale games")
                for game_id in claimed if isinstance(claimed, list) else []:
                    self._enqueue(game_id)
                next_sweep = now + self.sweep_seconds
            try:
                game_id = self._queue.get(timeout=max(0.05, min(0.5, next_sweep - now)))
            except queue.Empty:
                if not self._keep_running and time.monotonic() - idle_since > self.idle_seconds:
                    with self._lock:  # nothing to do: end, a new game starts it again
                        if self._queue.empty():
                            self._thread = None
                            return
                continue
            with self._lock:
                self._queued.discard(game_id)
            with self._machine_turn():
                started = time.monotonic()
                more = self._guarded(partial(self._play, game_id, self.slice_seconds), game_id)
                # The rest is taken holding the machine's turn too: resting outside it, another
                # process would play meanwhile, and the machine would spend a whole core.
                self._stop.wait((time.monotonic() - started) * (1 / self.duty - 1))
            if more:
                self._enqueue(game_id)  # round robin with the other games
            idle_since = time.monotonic()

    @contextlib.contextmanager
    def _machine_turn(self) -> Iterator[None]:
        """Wait for this machine's one turn to play bots (no lock path: no waiting)."""
        if self._lock_path is None:
            yield
            return
        with open(self._lock_path, "a+b") as handle:
            while True:  # polled, not blocking: a blocked flock would stall a gevent worker
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if self._stop.wait(0.05):
                        break
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _guarded(self, work: Callable[[], object], what: str) -> object:
        try:
            return work()
        except Exception:  # one bad game must not stop the others
            log.exception("bot runner: %s failed", what)
            return None
