"""The play page's step() (app/web/static/step.js) repeats a little of the rules to play moves back
one at a time: run under node, it must give, move by move, what the server's next view shows.

Whole games of two and four seats are played through the API; every move within a round is
stepped from the view before it and compared with the view after it on every field step() keeps
(the floor, the stock, the turn, this seat's hand, each seat's hand size, each side's captures
and Basras, the last move). A round's last move is left out: the next view is already the next
deal, and the page jumps to it as well."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from app import create_app
from app.persistence.schema import migrate_database

MODULE = Path(__file__).resolve().parents[2] / "app" / "web" / "static" / "step.js"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    url = f"sqlite:///{tmp_path_factory.mktemp('step') / 'basra.sqlite3'}"
    migrate_database(url)
    application = create_app({"DATABASE_URL": url, "RATE_LIMIT": "off"})
    yield application
    application.extensions["basra_hub"].shutdown()
    application.extensions["basra_matchmaker"].stop()
    application.extensions["basra_bot_runner"].stop()
    application.extensions["basra_db"].dispose()


def played_steps(app: Flask, players: int, seed: str) -> list[dict[str, Any]]:
    """Each move of a whole game with its seat 0's views before and after it."""
    web = app.test_client()
    seats = [{"name": f"P{i}", "seed": f"{seed}-{i}"} for i in range(players)]
    created = web.post("/games", json={"players": seats, "rules": {"target_score": 1}}).get_json()
    game_id = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}

    def view_of(seat: int) -> dict[str, Any]:
        answer = web.get(f"/games/{game_id}", headers={"Authorization": f"Bearer {tokens[seat]}"})
        return dict(answer.get_json())

    steps = []
    before = view_of(0)
    for n in range(1, 1000):
        if before["status"] != "active":
            break
        turn = before["turn"]
        legal = view_of(turn)["legal_moves"]
        card = legal[(n * 7) % len(legal)]["card"]  # not always the first: captures and trails
        played = web.post(
            f"/games/{game_id}/moves",
            json={"card": card},
            headers={"Authorization": f"Bearer {tokens[turn]}"},
        )
        assert played.status_code == 201, played.get_json()
        after = view_of(0)
        move = played.get_json()["moves"][0]
        if after["status"] == "active" and after["round"] == before["round"]:
            steps.append({"before": before, "move": move, "after": after})
        before = after
    assert before["status"] == "finished"
    return steps


def run_step(steps: list[dict[str, Any]], tmp_path: Path) -> list[dict[str, Any]]:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is missing (CI=true)")
        pytest.skip("node is missing")
    cases = tmp_path / "steps.json"
    cases.write_text(json.dumps(steps))
    script = f"""
import {{ readFileSync }} from "node:fs";
import {{ step }} from {json.dumps(MODULE.as_uri())};
const steps = JSON.parse(readFileSync({json.dumps(str(cases))}, "utf8"));
console.log(JSON.stringify(steps.map((s) => step(s.before, s.move, s.after))));
"""
    done = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def kept(view: dict[str, Any]) -> dict[str, Any]:
    """The fields step() works out."""
    return {
        "floor": view["floor"],
        "stock": view["stock"],
        "turn": view["turn"],
        "hand": view.get("hand"),
        "hand_sizes": [s["hand_size"] for s in view["seats"]],
        "sides": [(s["captured"], s["basras"], s["jack_basras"]) for s in view["sides"]],
        "last_move": view["last_move"],
    }


@pytest.mark.parametrize(
    ("players", "seed"), [(2, "a"), (2, "b"), (2, "c"), (4, "d"), (4, "e")]
)  # fmt: skip
def test_step_gives_the_servers_next_view(
    app: Flask, players: int, seed: str, tmp_path: Path
) -> None:
    steps = played_steps(app, players, seed)
    assert len(steps) > 20
    assert any(s["move"]["captured"] for s in steps), "captures"
    assert any(not s["move"]["captured"] for s in steps), "trails"
    assert any(s["after"]["stock"] < s["before"]["stock"] for s in steps), "a new deal in a round"
    for n, (case, stepped) in enumerate(zip(steps, run_step(steps, tmp_path), strict=True)):
        assert kept(stepped) == kept(case["after"]), (n, case["move"])
