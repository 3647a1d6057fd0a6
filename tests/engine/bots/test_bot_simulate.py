"""``basra simulate``: bot-against-bot matches and their table."""

from __future__ import annotations

import json

import pytest

from app.engine.bots.simulate import main
from app.engine.bots.stats import wilson


def test_simulate_plays_two_quick_matches_and_prints_the_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--a", "expert", "--b", "greedy", "--matches", "2", "--target", "20"]) == 0
    out = capsys.readouterr().out
    assert "expert (a) vs greedy (b): 2 matches to 20" in out
    assert "win rate (95% CI)" in out
    assert "decisions/s" in out
    assert "points per round, a - b" in out


def test_simulate_prints_json_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--a", "greedy", "--b", "random", "--matches", "4", "--target", "30", "--json"]
    assert main([*argv, "--seed", "5"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["matches"] == 4
    assert result["a"]["wins"] + result["b"]["wins"] + result["draws"] == 4
    low, high = result["a"]["ci"]
    assert low <= result["a"]["win_rate"] <= high
    assert main([*argv, "--seed", "5"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["a"]["wins"] == result["a"]["wins"]
    assert again["margin_per_round"] == result["margin_per_round"]


def test_simulate_runs_four_players_on_two_processes(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--a", "greedy", "--b", "random", "--matches", "4", "--target", "20"]
    assert main([*argv, "--players", "4", "--jobs", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["matches"] == 4


def test_simulate_refuses_an_unknown_bot(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--a", "grandmaster"])
    assert "invalid choice" in capsys.readouterr().err


def test_the_wilson_interval_holds_the_rate_and_stays_in_bounds() -> None:
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)
    low, high = wilson(510, 600)
    assert low < 0.85 < high
    assert high - low < 0.06
