"""The embedded default under load: gunicorn's 4 workers writing one SQLite file, their writers
queued at the write gate (app/persistence/write_gate.py) across processes. Many clients each play
their own games for a bounded time; every answer is a 201 or a documented refusal, every game's
log verifies and holds exactly the moves its client was told were applied, and the gate's file
sits beside the database."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from .load import Http, SoloPlayer, Stats, check_solo_players
from .load import run_clients as run_all
from .servers import Gunicorn, migrate
from .support import write_report

pytestmark = [pytest.mark.slow]


def test_32_clients_on_their_own_games_share_one_sqlite_file(tmp_path: Path) -> None:
    database = tmp_path / "basra.sqlite3"
    url = f"sqlite:///{database}"
    migrate(url)
    server = Gunicorn(url, tmp_path, workers=4)
    stats = Stats()
    try:
        server.start()
        deadline = time.monotonic() + 6
        players = [
            SoloPlayer(Http(server.url, stats), random.Random(2000 + n), deadline)
            for n in range(32)
        ]
        run_all([player.run for player in players])
        assert stats.errors == [], stats.errors[:5]
        assert stats.lost == 0
        checked = check_solo_players(server.url, players)
    finally:
        server.stop()
    assert checked["moves"] > 100, checked
    assert (tmp_path / "basra.sqlite3.write-gate").exists()
    write_report("sqlite_writers", {"clients": 32, "seconds": 6, **checked, **stats.summary()})
