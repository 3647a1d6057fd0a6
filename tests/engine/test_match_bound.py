"""Every match ends: rules under which nobody can score are refused, and a match lasts at
most MAX_ROUNDS rounds, after which the highest total wins and equal totals draw."""

from __future__ import annotations

import random

import pytest

from app.engine import Game, InvalidRules, MatchEnded, RoundScored, Rules
from app.engine.bots import choose_card
from app.engine.fairness import shuffled_deck
from app.engine.rules import MAX_ROUNDS, check_can_score
from app.engine.scoring import match_end
from app.engine.state import GameState
from app.engine.views import observe


@pytest.mark.parametrize(
    "options",
    [
        {"majority_points": 0, "basra_points": 0, "jack_basra_points": 0},
        {"majority_points": 0, "basra_points": 0, "jack_basra": "off"},
        {"majority_points": 0, "basra_points": 0, "jack_basra_points": 30, "jack_basra": "off"},
    ],
    ids=["all-zero", "only-jack-basras-but-off", "jack-points-but-off"],
)
def test_rules_under_which_nobody_can_score_are_refused_with_the_point_fields(
    options: dict[str, object],
) -> None:
    with pytest.raises(InvalidRules) as raised:
        check_can_score(Rules.from_dict(options))
    assert set(raised.value.errors) == {"majority_points", "basra_points", "jack_basra_points"}


@pytest.mark.parametrize(
    "options",
    [
        {"majority_points": 1, "basra_points": 0, "jack_basra_points": 0},
        {"majority_points": 0, "basra_points": 1, "jack_basra_points": 0},
        {"majority_points": 0, "basra_points": 0, "jack_basra_points": 1},
    ],
)
def test_rules_where_one_kind_of_point_can_be_won_are_accepted(options: dict[str, int]) -> None:
    check_can_score(Rules.from_dict(options))


def test_stored_rules_load_whatever_they_hold_so_old_games_still_open() -> None:
    Rules.from_dict({"majority_points": 0, "basra_points": 0, "jack_basra_points": 0})


def _scored(round_number: int, points: tuple[int, int]) -> RoundScored:
    return RoundScored(round_number, (), None, (26, 26), (0, 0), (0, 0), None, points)


def _state(scores: list[int], target: int = 10000, end_tie: str = "play_on") -> GameState:
    state = GameState.new(Rules(target_score=target, end_tie=end_tie), 2)
    state.scores = scores
    return state


def test_before_the_last_round_a_match_far_from_its_target_goes_on() -> None:
    assert match_end(_state([500, 100]), _scored(MAX_ROUNDS - 1, (10, 0))) is None


def test_after_the_last_round_the_highest_total_wins_whatever_the_target() -> None:
    assert match_end(_state([500, 100]), _scored(MAX_ROUNDS, (0, 30))) == MatchEnded(0)
    assert match_end(_state([100, 100]), _scored(MAX_ROUNDS, (0, 30))) == MatchEnded(1)


def test_after_the_last_round_equal_totals_are_a_draw_even_under_play_on() -> None:
    assert match_end(_state([120, 120], target=101), _scored(MAX_ROUNDS, (0, 0))) == MatchEnded(
        None
    )


def test_a_match_to_an_unreachable_target_ends_after_max_rounds() -> None:
    rng = random.Random(7)
    game = Game(Rules(target_score=10000, majority_points=1, basra_points=0,
                      jack_basra_points=0), 2)  # fmt: skip
    while not game.is_over:
        if game.needs_deal:
            game.deal(shuffled_deck(bytes(32), "bound", game.state.round + 1))
            continue
        state = game.state
        assert state.turn is not None
        game.play(state.turn, choose_card("random", observe(state, state.turn), rng))
    assert game.state.round == MAX_ROUNDS
    assert max(game.state.scores) < 10000
    ended = game.events[-1]
    assert isinstance(ended, MatchEnded)
    scores = game.state.scores
    expected = None if scores[0] == scores[1] else scores.index(max(scores))
    assert ended.winner == expected
