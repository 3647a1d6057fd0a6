"""Rules.from_dict keeps each set of options it has checked: every load of a game reads its
rules. What it kept must never let through a value it would refuse."""

from __future__ import annotations

import pytest

from app.engine import InvalidRules, Rules


def test_a_kept_set_of_rules_is_the_same_as_one_checked_anew() -> None:
    options = {"target_score": 31, "seven_on_floor": "plain"}
    assert Rules.from_dict(options) == Rules.from_dict(dict(options)) == Rules._checked(options)


@pytest.mark.parametrize(
    ("accepted", "refused"),
    [
        ({"target_score": 1}, {"target_score": True}),  # True == 1, but it is no target
        ({"basra_on_final_play": True}, {"basra_on_final_play": 1}),
        ({"target_score": 101}, {"target_score": 101.0}),
        ({"turn_seconds": 5}, {"turn_seconds": 5.0}),
    ],
)
def test_a_value_equal_to_a_kept_one_but_of_another_type_is_still_refused(
    accepted: dict[str, object], refused: dict[str, object]
) -> None:
    Rules.from_dict(accepted)
    with pytest.raises(InvalidRules):
        Rules.from_dict(refused)


def test_refused_rules_are_refused_every_time() -> None:
    for _ in range(3):
        with pytest.raises(InvalidRules) as refused:
            Rules.from_dict({"target_score": 0, "nonsense": 1})
        assert set(refused.value.errors) == {"target_score", "nonsense"}


def test_an_unhashable_value_is_refused_not_a_crash() -> None:
    with pytest.raises(InvalidRules):
        Rules.from_dict({"target_score": [101]})
    with pytest.raises(InvalidRules):
        Rules.from_dict({"capture": {"auto": True}})
