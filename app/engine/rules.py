"""The per-game options of RULES.md, with their defaults and allowed values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any

from app.engine.errors import InvalidRules

CHOICES: dict[str, tuple[str, ...]] = {
    "capture": ("auto",),
    "seven_diamonds": ("wild", "sum_le_10", "jack", "plain"),
    "seven_on_floor": ("wild", "plain"),
    "jack_basra": ("lone_jack", "off"),
    "initial_floor": ("bury", "allow"),
    "majority_tie": ("none", "carry_over"),
    "end_tie": ("play_on", "draw"),
}
# Every match ends after this many rounds at the latest (scoring.match_end): the highest total
# wins, equal totals draw. Real matches end long before (to 101: 3 to 8 rounds); the bound
# keeps the work a match can cause finite whatever its target and points.
MAX_ROUNDS = 100
LIMITS: dict[str, tuple[int, int]] = {
    "target_score": (1, 10000),
    "majority_points": (0, 1000),
    "basra_points": (0, 1000),
    "jack_basra_points": (0, 1000),
    "max_timeouts": (1, 10),
    "idle_seconds": (5, 30 * 24 * 60 * 60),
}
# Integers that may also be None. turn_seconds: None is no clock at all, else this many
# seconds per turn (API.md item 13).
NULLABLE_LIMITS: dict[str, tuple[int, int]] = {"turn_seconds": (5, 3600)}


@dataclass(frozen=True, slots=True)
class Rules:
    target_score: int = 101
    capture: str = "auto"
    seven_diamonds: str = "wild"
    seven_on_floor: str = "wild"
    jack_basra: str = "lone_jack"
    initial_floor: str = "bury"
    majority_tie: str = "none"
    basra_on_final_play: bool = True
    end_tie: str = "play_on"
    majority_points: int = 30
    basra_points: int = 10
    jack_basra_points: int = 30
    turn_seconds: int | None = None  # None: no clock
    max_timeouts: int = 3  # timeouts in a row before the greedy bot takes the seat
    # With no clock, how long the seat to move may leave its turn before its side forfeits,
    # so that a game with a human seat ends even when its players walk away.
    idle_seconds: int = 24 * 60 * 60

    @classmethod
    def from_dict(cls, options: Mapping[str, Any] | None) -> Rules:
        """Defaults overlaid with ``options``; any unknown key or bad value is refused.
        Every load of a game reads its rules: the same few sets, so each is checked once.
        The key keeps each value's type (``True == 1``, but 1 is a target and True is not)."""
        items = tuple((options or {}).items())
        try:
            return _checked_once(tuple((key, type(value), value) for key, value in items))
        except TypeError:  # an unhashable value (a list, an object) is refused, uncached
            return cls._checked(dict(items))

    @classmethod
    def _checked(cls, options: dict[str, Any]) -> Rules:
        errors: dict[str, str] = {}
        known = {field.name for field in fields(cls)}
        for key in options:
            if key not in known:
                errors[key] = "unknown rule"
        for key, allowed in CHOICES.items():
            if key in options and options[key] not in allowed:
                errors[key] = f"must be one of {', '.join(allowed)}"
        for key, (low, high) in LIMITS.items():
            value = options.get(key, low)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                errors[key] = f"must be an integer from {low} to {high}"
        for key, (low, high) in NULLABLE_LIMITS.items():
            value = options.get(key)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high
            ):
                errors[key] = f"must be null or an integer from {low} to {high}"
        if not isinstance(options.get("basra_on_final_play", True), bool):
            errors["basra_on_final_play"] = "must be true or false"
        if errors:
            raise InvalidRules(errors)
        return cls(**options)

    def to_dict(self) -> dict[str, Any]:
        # Every value is a str, int, bool or None: no deep copy (dataclasses.asdict) needed.
        return {name: getattr(self, name) for name in _FIELD_NAMES}

    @property
    def wild_floor_seven(self) -> bool:
        return self.seven_on_floor == "wild"


_FIELD_NAMES = tuple(field.name for field in fields(Rules))


@lru_cache(maxsize=256)
def _checked_once(typed_items: tuple[tuple[str, type, Any], ...]) -> Rules:
    """``Rules._checked`` of these options, kept (Rules is frozen, so it can be shared); an
    ``InvalidRules`` is raised each time, never kept."""
    return Rules._checked({key: value for key, _type, value in typed_items})


_SCORING = ("majority_points", "basra_points", "jack_basra_points")


def check_can_score(rules: Rules) -> None:
    """Refuse, for a new game, rules under which no side can ever score: such a match could
    never reach its target. (Stored games load with ``from_dict`` alone, whatever they hold.)

    With ``jack_basra`` off no jack basra is ever made (capture.py: the lone Jack, the lone
    floor 7D and the 7D of 3.5(a) all check it), so its points cannot be won either.
    """
    jack_basras = rules.jack_basra != "off"
    if rules.majority_points or rules.basra_points or (rules.jack_basra_points and jack_basras):
        return
    reason = "no side could ever score: give majority_points or basra_points a value above 0"
    raise InvalidRules({name: reason for name in _SCORING})
