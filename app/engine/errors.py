"""One exception class per kind of refusal. The HTTP layer maps each ``code`` to a status."""

from __future__ import annotations


class EngineError(Exception):
    """A command the rules refuse. Nothing was changed."""

    code = "engine_error"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class InvalidCard(EngineError):
    code = "invalid_card"

    def __init__(self, text: object) -> None:
        super().__init__(f"{text!r} is not a card code (rank A,2..10,J,Q,K then suit S,H,D,C)")


class InvalidDeck(EngineError):
    code = "invalid_deck"


class InvalidRules(EngineError):
    code = "invalid_rules"

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{key}: {why}" for key, why in sorted(errors.items())))
        self.errors = errors


class GameNotActive(EngineError):
    code = "game_not_active"


class NotYourTurn(EngineError):
    code = "not_your_turn"


class CardNotInHand(EngineError):
    code = "card_not_in_hand"


class NotDealing(EngineError):
    """A deck was offered while no round is waiting to be dealt."""

    code = "not_dealing"


class TurnNotOver(EngineError):
    """A timeout was claimed before the turn's deadline."""

    code = "turn_not_over"
