"""Egyptian Basra as a pure library: cards, the fair shuffle, captures, the match as a
state machine, per-seat views and bots. Standard library only."""

from app.engine.capture import BASRA, JACK_BASRA, Capture, find_capture
from app.engine.cards import FULL_DECK, Card, parse_cards
from app.engine.commands import Deal, Play, Resign, TimeOut
from app.engine.errors import (
    CardNotInHand,
    EngineError,
    GameNotActive,
    InvalidCard,
    InvalidDeck,
    InvalidRules,
    NotDealing,
    NotYourTurn,
    TurnNotOver,
)
from app.engine.events import (
    EVENT_TYPES,
    CardPlayed,
    Event,
    Forfeited,
    HandsDealt,
    MatchEnded,
    Resigned,
    RoundDealt,
    RoundScored,
    SeatTakenByBot,
    TurnTimedOut,
    event_from_dict,
    event_to_dict,
)
from app.engine.evolution import apply, evolve, replay
from app.engine.game import Game, decide
from app.engine.plays import legal_captures
from app.engine.rules import Rules
from app.engine.state import DEALING, OVER, PLAYER_COUNTS, PLAYING, GameState, side_of
from app.engine.turn_clock import TAKEOVER_BOT, timeout_card, turn_deadline
from app.engine.views import SeatView, observe

EVENT_TYPES_BY_NAME = EVENT_TYPES

__all__ = [
    "BASRA", "DEALING", "EVENT_TYPES", "EVENT_TYPES_BY_NAME", "FULL_DECK", "JACK_BASRA", "OVER",
    "PLAYER_COUNTS", "PLAYING", "TAKEOVER_BOT", "Capture", "Card",
    "CardNotInHand", "CardPlayed", "Deal", "EngineError", "Event", "Forfeited", "Game",
    "GameNotActive",
    "GameState", "HandsDealt", "InvalidCard", "InvalidDeck", "InvalidRules", "MatchEnded",
    "NotDealing", "NotYourTurn", "Play", "Resign", "Resigned", "RoundDealt", "RoundScored",
    "Rules", "SeatTakenByBot", "SeatView", "TimeOut", "TurnNotOver",
    "TurnTimedOut", "apply", "decide", "event_from_dict", "event_to_dict", "evolve",
    "find_capture", "legal_captures", "observe", "parse_cards", "replay", "side_of",
    "timeout_card", "turn_deadline",
]  # fmt: skip
