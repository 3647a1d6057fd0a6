"""Real processes for the load and fault tests: gunicorn serving the app, and a PostgreSQL
cluster of the test's own (never the machine's shared one) that can be restarted at will.

Everything listens on 127.0.0.1 only, every wait is bounded, and every process started here is
stopped (and every directory removed) in a ``finally``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

# A PostgreSQL database of its own for a test's servers (tests/conftest.py, on the path as the
# rootdir conftest).
from conftest import migrated_postgres as migrated_postgres

from app.persistence.schema import migrate_database

from .support import ROOT

VENV_BIN = ROOT / ".venv" / "bin"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def fresh_sqlite(tmp_path_factory: pytest.TempPathFactory, name: str) -> tuple[Path, str]:
    """A folder of its own holding a migrated SQLite database: (the folder, the database's URL)."""
    folder = tmp_path_factory.mktemp(name)
    url = f"sqlite:///{folder / 'basra.sqlite3'}"
    migrate_database(url)
    return folder, url


def migrate(database_url: str) -> None:
    """To the newest migration, in this process (a fifth of a second; `basra migrate` in a
    process of its own takes seven times as long, and the browser tests' set-up runs it)."""
    migrate_database(database_url)


class Gunicorn:
    """``gunicorn -c gunicorn.conf.py app.asgi:app`` (``make run``'s entrance) on a free port,
    its log kept in a file; ``app.wsgi:app`` (the REST workers of a deployment) where a test
    picks a gunicorn worker class of its own, or names that app."""

    def __init__(
        self,
        database_url: str,
        log_dir: Path,
        workers: int = 4,
        args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
        app: str | None = None,
    ) -> None:
        self.port = free_port()
        self.app = app
        self.args = args  # more gunicorn options, e.g. ("--worker-class", "gthread")
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_dir / f"gunicorn-{self.port}.log"
        self.env = {
            **os.environ,
            "PORT": str(self.port),
            "HOST": "127.0.0.1",
            "DATABASE_URL": database_url,
            "RATE_LIMIT": "off",
            "WEB_CONCURRENCY": str(workers),
        }
        self.env.pop("REDIS_URL", None)
        self.env.update(env or {})
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60) -> None:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [str(VENV_BIN / "gunicorn"), "-c", "gunicorn.conf.py", *self.args, self.target],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.wait_healthy(timeout)

    @property
    def target(self) -> str:
        chosen = "--worker-class" in self.args or "GUNICORN_WORKER_CLASS" in self.env
        return self.app or ("app.wsgi:app" if chosen else "app.asgi:app")

    def wait_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None and self.process.poll() is None, self.log()[-3000:]
            with contextlib.suppress(requests.RequestException):
                if requests.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            time.sleep(0.05)
        raise AssertionError(
            f"gunicorn did not become healthy in {timeout}s:\n{self.log()[-3000:]}"
        )

    def workers(self) -> list[int]:
        """The worker processes' ids (children of the master), read from /proc."""
        assert self.process is not None
        pid = self.process.pid
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            return []
        return [int(child) for child in children]

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def freeze(self) -> None:
        """SIGSTOP the master and every worker: connections are still accepted by the kernel, and
        requests sent to it wait, unanswered, until it is continued or killed."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGSTOP)

    def kill(self) -> None:
        """SIGKILL the master and every worker at once, as a crashed machine would."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)  # the master's own session only
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)  # the master's own session only
            self.process.wait(timeout=10)


@contextlib.contextmanager
def gunicorn(
    database_url: str,
    log_dir: Path,
    workers: int = 4,
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    app: str | None = None,
) -> Iterator[Gunicorn]:
    server = Gunicorn(database_url, log_dir, workers, args, env, app)
    try:
        server.start()
        yield server
    finally:
        server.stop()


def held_by(pid: int, server: Gunicorn, clients: list[socket.socket]) -> int:
    """How many of these clients' connections the process still holds a socket for.

    The server's end of each is found in /proc/net/tcp by its two ports; once the worker closes
    it, the kernel keeps it (FIN_WAIT2) with no inode, or forgets it. Counting the worker's file
    descriptors instead counted whatever else it opened meanwhile (a pooled database connection,
    a thread's), and once failed a clean run."""
    ours = set()
    for link in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(link)
            if target.startswith("socket:["):
                ours.add(int(target[8:-1]))
    client_ports = {sock.getsockname()[1] for sock in clients}
    held = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local_port = int(fields[1].split(":")[1], 16)
        remote_port = int(fields[2].split(":")[1], 16)
        inode = int(fields[9])
        if local_port == server.port and remote_port in client_ports and inode in ours:
            held += 1
    return held


def _postgres_bin() -> Path:
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    if not versions:
        raise FileNotFoundError("no /usr/lib/postgresql/*/bin/pg_ctl")
    return versions[-1].parent


class PostgresCluster:
    """A throwaway cluster: initdb into a temporary directory, trust auth, 127.0.0.1 only."""

    def __init__(self) -> None:
        self.bin = _postgres_bin()
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="basra-pg-"))
        self.data = self.root / "data"
        self.logfile = self.root / "postgres.log"
        self.as_postgres: list[str] = []
        if os.geteuid() == 0:  # initdb refuses to run as root
            shutil.chown(self.root, "postgres", "postgres")
            self.as_postgres = ["runuser", "-u", "postgres", "--"]
        self.server_url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str, timeout: float = 60) -> None:
        subprocess.run(
            [*self.as_postgres, *args],
            check=True,
            timeout=timeout,
            capture_output=True,
            cwd=self.root,
        )

    def init(self) -> None:
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8",
            timeout=120,
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c max_connections=200"
        )
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.logfile),
            "-o",
            options,
            "-w",
            "-t",
            "60",
            "start",
            timeout=90,
        )

    def stop(self, mode: str = "fast") -> None:
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-m",
            mode,
            "-w",
            "-t",
            "60",
            "stop",
            timeout=90,
        )

    def running(self) -> bool:
        result = subprocess.run(
            [*self.as_postgres, str(self.bin / "pg_ctl"), "-D", str(self.data), "status"],
            capture_output=True,
            timeout=30,
        )
        return result.returncode == 0

    def create_database(self, name: str) -> str:
        from sqlalchemy import create_engine, text

        engine = create_engine(self.server_url, isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as connection:
                connection.execute(text(f'CREATE DATABASE "{name}"'))
        finally:
            engine.dispose()
        return self.server_url.rsplit("/", 1)[0] + f"/{name}"

    def destroy(self) -> None:
        try:
            if self.data.exists() and self.running():
                self.stop("immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


@contextlib.contextmanager
def postgres_cluster() -> Iterator[PostgresCluster]:
    cluster = PostgresCluster()
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        cluster.destroy()
