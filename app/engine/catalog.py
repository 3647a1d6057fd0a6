"""What a game can be set up with, as data for clients (``GET /rules``).

Every option comes from the ``Rules`` dataclass itself (name, type, default) and from ``CHOICES``
and ``LIMITS`` (allowed values): an option added to ``Rules`` shows here without another edit.
Only the words a person reads (a label and a one-line explanation) are written down here.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any

from app.engine.bots import BOT_LEVELS
from app.engine.bots.ratings import PLAYER_RATINGS, RATINGS
from app.engine.rules import CHOICES, LIMITS, NULLABLE_LIMITS, Rules

PLAYER_COUNTS = (2, 4)
TARGET_PRESETS = (31, 61, 101, 151, 201)

# name -> (label, one-line explanation).
OPTION_HELP: dict[str, tuple[str, str]] = {
    "target_score": ("Target score", "The match ends after the round in which a side reaches it."),
    "capture": ("Capture", "Which capture a card makes: the largest one, automatically."),
    "seven_diamonds": (
        "7\u2666 from the hand",
        "What the seven of diamonds (al-komi) does when it is played.",
    ),
    "seven_on_floor": (
        "7\u2666 on the floor",
        "Whether a seven of diamonds lying on the floor counts as any value a number card needs.",
    ),
    "jack_basra": ("Jack basra", "Whether a Jack played onto a lone Jack is a jack basra."),
    "initial_floor": (
        "First floor",
        "Whether Jacks and the 7\u2666 dealt to the first floor are put back under the stock.",
    ),
    "majority_tie": (
        "Tie for most cards",
        "What happens to the majority points when both sides captured as many cards.",
    ),
    "basra_on_final_play": (
        "Basra on the last card",
        "Whether a basra made with the last card of a round counts.",
    ),
    "end_tie": (
        "Tie at the target",
        "What happens when the top sides are level once the target is reached.",
    ),
    "majority_points": ("Majority points", "Points for the side that captured the most cards."),
    "basra_points": ("Basra points", "Points for each basra (a capture that clears the floor)."),
    "jack_basra_points": ("Jack basra points", "Points for each jack basra."),
    "turn_seconds": (
        "Turn clock",
        "Seconds a player has for each move; when they run out the server plays for them.",
    ),
    "max_timeouts": (
        "Timeouts before a bot takes over",
        "After this many timeouts in a row the greedy bot plays that seat.",
    ),
    "idle_seconds": (
        "Idle limit",
        "With no turn clock: seconds a player may leave a turn before their side forfeits.",
    ),
}

VALUE_HELP: dict[str, dict[str, str]] = {
    "capture": {"auto": "the largest capture is made for you"},
    "seven_diamonds": {
        "wild": "takes a lone Jack (jack basra), clears the floor as a basra when one rank "
        "would, else sweeps like a Jack",
        "sum_le_10": "sweeps; a basra if the floor is numbers totalling 10 or less",
        "jack": "sweeps like a Jack, never a basra",
        "plain": "an ordinary seven",
    },
    "seven_on_floor": {"wild": "any value from 1 up", "plain": "an ordinary seven"},
    "jack_basra": {"lone_jack": "yes, worth the jack basra points", "off": "no, just a capture"},
    "initial_floor": {"bury": "yes, they are replaced", "allow": "no, they stay on the floor"},
    "majority_tie": {
        "none": "nobody gets them",
        "carry_over": "they go to the next round's majority",
    },
    "end_tie": {"play_on": "play more rounds until one side leads", "draw": "the match is drawn"},
}

# What each level does, in a line (GET /rules lists them weakest first, with their ratings).
BOT_HELP: dict[str, str] = {
    "random": "plays any of its cards at random: for learning the rules",
    "greedy": "takes the most it can right now and keeps its Jacks and the 7D",
    "skilled": "takes the most it can without leaving the next player an easy basra",
    "expert": "counts cards, weighs the hands it cannot see, plays the last deal perfectly "
    "and plays for the match",
}


def _kind(name: str, default: Any, annotation: str) -> dict[str, Any]:
    if name in CHOICES:
        values = list(CHOICES[name])
        helps = VALUE_HELP.get(name, {})
        return {
            "type": "choice",
            "values": values,
            "value_help": {v: helps.get(v, "") for v in values},
        }
    if name in LIMITS or name in NULLABLE_LIMITS:
        low, high = LIMITS.get(name) or NULLABLE_LIMITS[name]
        return {"type": "integer", "minimum": low, "maximum": high}
    if isinstance(default, bool) or "bool" in annotation:
        return {"type": "boolean"}
    return {"type": "integer" if "int" in annotation else "string"}


def rule_options() -> list[dict[str, Any]]:
    """Every option of ``Rules`` in its declared order, with its allowed values and default."""
    options = []
    for field in fields(Rules):
        default = field.default if field.default is not MISSING else None
        annotation = str(field.type)
        label, explanation = OPTION_HELP.get(
            field.name, (field.name.replace("_", " ").capitalize(), "")
        )
        options.append(
            {
                "name": field.name,
                "label": label,
                "help": explanation,
                "default": default,
                "nullable": default is None or "None" in annotation,
                **_kind(field.name, default, annotation),
            }
        )
    return options


def game_setup() -> dict[str, Any]:
    """The body of ``GET /rules``: what ``POST /games`` accepts, for building a lobby."""
    options = rule_options()
    target = next(option for option in options if option["name"] == "target_score")
    return {
        "players": list(PLAYER_COUNTS),
        "bots": [
            {
                "level": level,
                "help": BOT_HELP.get(level, ""),
                "rating": PLAYER_RATINGS[level],
                "elo": RATINGS[level],
            }
            for level in BOT_LEVELS
        ],
        "target_score": {
            "default": target["default"],
            "minimum": target.get("minimum"),
            "maximum": target.get("maximum"),
            "presets": [p for p in TARGET_PRESETS if target["minimum"] <= p <= target["maximum"]],
        },
        "options": options,
    }
