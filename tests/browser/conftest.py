"""Browser tests: Debian's chromium, driven by Playwright, against the real app served in a thread.

A test that needs a seat without going through the lobby creates the game through the HTTP API
(short games: `"rules": {"target_score": 1}`) and hands the seat's token to the page the way the
page itself keeps it: `localStorage["basra:seat:<game id>"] = {"seat": <n>, "token": "<token>"}`,
set by an init script before `/play/<game id>` loads (see `open_seat`).

Without /usr/bin/chromium or playwright the tests skip, unless CI=true, where they fail.
`BASRA_BROWSER_BASE_URL=http://host:port` runs them against a server that is already running.
`SCREENSHOTS=1` saves full-page screenshots into docs/screenshots/.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 667}
TIMEOUT_MS = 15_000


def unavailable(reason: str) -> None:
    """Skip on a developer's machine, fail in CI: CI must really run the browser tests."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true, so this is a failure, not a skip)")
    pytest.skip(reason)


def _migrate(url: str) -> None:
    try:
        from app.persistence.schema import migrate_database
    except ImportError:
        env = {**os.environ, "DATABASE_URL": url}
        subprocess.run([sys.executable, "-m", "app.cli", "migrate"], env=env, cwd=ROOT, check=True)
    else:
        migrate_database(url)


@pytest.fixture(scope="session")
def live_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    external = os.environ.get("BASRA_BROWSER_BASE_URL")
    if external:
        yield external.rstrip("/")
        return
    import socket

    import uvicorn

    from app import create_app
    from app.asgi import build

    url = f"sqlite:///{tmp_path_factory.mktemp('browser') / 'b.sqlite3'}"
    _migrate(url)
    # As a served app does: the sweeper plays expired turns with no request (API.md item 13).
    # Analyses with a small search a move (docs/bots.md, "Analysis"), as in every test.
    app = create_app({"DATABASE_URL": url, "RATE_LIMIT": "off", "SWEEPER": True,
                      "SWEEP_INTERVAL_SECONDS": 0.5, "ANALYSIS_WORK": 300})  # fmt: skip
    # The entrance `make run` serves (app/asgi.py): streams on an event loop, the rest in threads.
    server = uvicorn.Server(uvicorn.Config(build(app, threads=16), log_level="warning"))
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]},
                              name="browser-live-server", daemon=True)  # fmt: skip
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline and thread.is_alive():
        time.sleep(0.05)
    assert server.started, "the entrance did not start"
    try:
        yield f"http://127.0.0.1:{listening.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        listening.close()
        app.extensions["basra_sweeper"].stop()
        app.extensions["basra_analysis_pool"].shutdown()


class Api:
    """The documented HTTP API, for setting up games and checking what the page shows."""

    def __init__(self, base: str) -> None:
        self.base = base

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(
            self.base + path, data=data, headers=headers, method=method
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as err:
            with err:
                raise AssertionError(
                    f"{method} {path} -> {err.code}: {err.read()[:500]!r}"
                ) from None

    def create(self, players: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return self.call("POST", "/games", {"players": players, **extra})

    def view(self, game_id: str, token: str | None = None) -> dict[str, Any]:
        return self.call("GET", f"/games/{game_id}", token=token)

    def finished_game(self, name: str = "Rae", seed: str = "rae's seed", **extra: Any) -> str:
        """A short game against a bot, played to its end through the API; returns its id."""
        created = self.create(
            [{"name": name, "seed": seed}, {"bot": "greedy"}], rules={"target_score": 1}, **extra
        )
        token = next(s["token"] for s in created["seats"] if s.get("token"))
        view = created["state"]
        for _ in range(2000):
            if view["status"] == "finished":
                return str(created["id"])
            if view.get("turn") == view.get("you") and view.get("hand"):
                answer = self.call(
                    "POST", f"/games/{created['id']}/moves", {"card": view["hand"][0]}, token
                )
                view = answer["state"]
            else:
                time.sleep(0.05)
                view = self.view(created["id"], token)
        raise AssertionError("the game did not finish")


@pytest.fixture(scope="session")
def api(live_server_url: str) -> Api:
    return Api(live_server_url)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed (pip install playwright)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def new_page(browser: Any) -> Iterator[Callable[..., Any]]:
    """Opens a page in a fresh browser context (its own localStorage); JS errors and CSP
    violations fail the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(
        viewport: dict[str, int] | None = None,
        pace: int = 0,
        locale: str = "en-US",
        touch: bool = False,
        summary_seconds: int = 0,
    ) -> Any:
        """``pace``: milliseconds per bot play shown (0 shows every answer at once);
        ``locale``: the browser's language; ``touch``: a phone's touch screen (no hover);
        ``summary_seconds``: how long a round's summary waits for "Continue"."""
        context = browser.new_context(
            viewport=viewport or DESKTOP, locale=locale, has_touch=touch, is_mobile=touch
        )
        context.set_default_timeout(TIMEOUT_MS)
        context.add_init_script(
            f"localStorage.setItem('basra:pace', '{int(pace)}');"
            f"localStorage.setItem('basra:summary-seconds', '{int(summary_seconds)}');"
        )
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        # Everything must run under the pages' Content-Security-Policy (no inline script/style).
        page.on(
            "console",
            lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None,
        )
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors in the page: {errors}"


@pytest.fixture
def open_seat(live_server_url: str) -> Callable[[Any, str, dict[str, Any]], None]:
    """Opens /play/<id> as a seat whose token came from the API, kept as the page keeps it."""

    def go(page: Any, game_id: str, seat: dict[str, Any]) -> None:
        key = json.dumps(f"basra:seat:{game_id}")
        value = json.dumps(json.dumps({"seat": seat["seat"], "token": seat["token"]}))
        page.context.add_init_script(f"localStorage.setItem({key}, {value});")
        page.goto(f"{live_server_url}/play/{game_id}")
        page.wait_for_selector("#game:not([hidden])")

    return go


@pytest.fixture
def screenshot() -> Callable[[Any, str], None]:
    """Saves a full-page screenshot into docs/screenshots/<name>.png when SCREENSHOTS=1."""

    def take(page: Any, name: str) -> None:
        if os.environ.get("SCREENSHOTS") != "1":
            return
        folder = ROOT / "docs" / "screenshots"
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{name}.png"), full_page=True)

    return take
