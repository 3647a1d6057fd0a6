"""Debian's HAProxy on the project's own deploy/haproxy.cfg, in front of test gunicorns.

Loopback only, free ports, its own process session; stopped in a ``finally``. The config is the
very file docker-compose.yml mounts: only the addresses differ, passed in its environment.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from .servers import free_port
from .support import ROOT

HAPROXY = Path("/usr/sbin/haproxy")
CONFIG = ROOT / "deploy" / "haproxy.cfg"


def require_haproxy() -> None:
    if HAPROXY.exists():
        return
    message = "haproxy is not installed (scripts/ensure-haproxy installs it)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


class HAProxy:
    def __init__(
        self, upstreams: list[str], log_dir: Path, env: dict[str, str] | None = None
    ) -> None:
        self.port, self.stats_port = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_dir / f"haproxy-{self.port}.log"
        self.env = {
            **os.environ,
            "LB_BIND": f"127.0.0.1:{self.port}",
            "LB_STATS_BIND": f"127.0.0.1:{self.stats_port}",
            "API_1": upstreams[0],
            "API_2": upstreams[1],
            # The tests' servers are the entrance (app.asgi:app), which serves the whole API:
            # the stream backend goes to the same two unless a test names others.
            "LIVE_1": upstreams[0],
            "LIVE_2": upstreams[1],
            "LB_MAXCONN": "4096",  # within the open files a test machine allows
            **(env or {}),
        }
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            # -db: stay in the foreground, so the test owns the one process it started.
            self.process = subprocess.Popen(
                [str(HAPROXY), "-db", "-f", str(CONFIG)],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def states(self) -> dict[str, str]:
        """Each replica's state as HAProxy sees it: UP, DOWN, MAINT, ..."""
        text = requests.get(f"http://127.0.0.1:{self.stats_port}/stats;csv", timeout=5).text
        rows = csv.DictReader(io.StringIO(text.lstrip("# ")))
        return {
            row["svname"]: row["status"].split()[0]
            for row in rows
            if row["pxname"] == "replicas" and row["svname"] not in ("BACKEND", "FRONTEND")
        }

    def in_flight(self, name: str) -> int:
        """Requests HAProxy has handed to replica ``name`` and not yet had answered (scur)."""
        text = requests.get(f"http://127.0.0.1:{self.stats_port}/stats;csv", timeout=5).text
        rows = csv.DictReader(io.StringIO(text.lstrip("# ")))
        return next(
            int(row["scur"] or 0)
            for row in rows
            if row["pxname"] == "replicas" and row["svname"] == name
        )

    def wait_for(self, wanted: dict[str, str], timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        seen: dict[str, str] = {}
        while time.monotonic() < deadline:
            assert self.process is not None and self.process.poll() is None, self.log()[-2000:]
            with contextlib.suppress(requests.RequestException):
                seen = self.states()
                if all(seen.get(name) == state for name, state in wanted.items()):
                    return
            time.sleep(0.2)
        raise AssertionError(f"HAProxy saw {seen}, not {wanted}, within {timeout}s")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)  # its own session only
            self.process.wait(timeout=10)


@contextlib.contextmanager
def haproxy(
    upstreams: list[str], log_dir: Path, env: dict[str, str] | None = None
) -> Iterator[HAProxy]:
    require_haproxy()
    balancer = HAProxy(upstreams, log_dir, env)
    try:
        balancer.start()
        yield balancer
    finally:
        balancer.stop()
