"""Building a new game: checking what was asked, the seats and their tokens, the record
and the genesis entry of its log."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.engine import PLAYER_COUNTS, Card, GameState, InvalidDeck, InvalidRules, Rules, parse_cards
from app.engine.bots import BOT_NAMES
from app.engine.fairness import ALGORITHM, commitment, new_server_seed
from app.engine.game import check_deck
from app.engine.rules import check_can_score
from app.services.access import hash_token, new_token
from app.services.errors import AlreadySeated, InvalidRequest
from app.services.log import GAME_CREATED, GENESIS_HASH
from app.services.model import WAITING, GameRecord, Seat, bot_player_id


@dataclass(frozen=True, slots=True)
class Player:
    """One entry of a new game's players: a human seated now, a bot, or an open seat."""

    name: str | None = None
    seed: str | None = None
    bot: str | None = None
    open: bool = False
    player_id: str | None = None  # a human seat held by this player (its name is ``name``)


# The turn clock of a game between players who need not know each other (a matched one, a
# rated one) when its rules name none: so that nobody can hold the other up for a day.
DEFAULT_CLOCK: dict[str, Any] = {"turn_seconds": 30, "max_timeouts": 2}


def with_default_clock(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """``options`` with ``DEFAULT_CLOCK`` where they say nothing of ``turn_seconds`` (null
    says no clock); ``max_timeouts`` is taken with it, unless they give their own."""
    chosen = dict(options or {})
    if "turn_seconds" in chosen:
        return chosen
    return DEFAULT_CLOCK | chosen


def checked_rules(options: Mapping[str, Any] | None, players: Sequence[Player]) -> Rules:
    if len(players) not in PLAYER_COUNTS:
        raise InvalidRequest("a game has 2 or 4 players", errors={"players": "2 or 4 entries"})
    try:
        rules = Rules.from_dict(options)
        check_can_score(rules)
    except InvalidRules as error:  # every bad key at once
        raise InvalidRequest(error.detail, errors={"rules": error.errors}) from error
    return rules


def checked_deck(deck: Sequence[str] | None, players: Sequence[Player]) -> tuple[Card, ...] | None:
    """A creator's deck for round 1 (top first), or None for the fair shuffle."""
    if deck is None:
        return None
    if any(player.open for player in players):
        # Whoever fixes the deck knows every hand: only a creator who holds every seat may.
        message = "a game with a fixed deck can have no open seat"
        raise InvalidRequest(message, errors={"deck": [message]})
    cards = parse_cards(deck)
    try:
        check_deck(cards)
    except InvalidDeck as error:
        raise InvalidRequest(error.detail, errors={"deck": error.detail}) from error
    return cards


def check_rated(rated: bool, players: Sequence[Player], deck: object | None) -> None:
    """A player holds at most one seat; a rated game's every human seat is a player's, now
    or once joined, and its deals are the fair shuffle's."""
    held = [player.player_id for player in players if player.player_id is not None]
    if len(held) != len(set(held)):
        raise AlreadySeated("a player holds at most one seat of a game")
    if not rated:
        return
    if deck is not None:
        message = "a rated game is dealt by the fair shuffle: it takes no deck"
        raise InvalidRequest(message, errors={"deck": [message]})
    if any(not (p.bot or p.open or p.player_id) for p in players) or all(p.bot for p in players):
        # Bots alone would move their own ratings with nobody at the table.
        message = 'a rated game has human seats, each a player\'s: {"player": "me"} or open'
        raise InvalidRequest(message, errors={"players": [message]})


def seat_players(players: Sequence[Player]) -> tuple[list[Seat], dict[int, str]]:
    """The seats, and the bearer token of each human seated now (shown once)."""
    seats: list[Seat] = []
    tokens: dict[int, str] = {}
    for number, player in enumerate(players):
        if player.bot:
            seats.append(Seat(number, player.name or BOT_NAMES[player.bot], bot=player.bot,
                              player_id=bot_player_id(player.bot)))  # fmt: skip
        elif player.open:
            seats.append(Seat(number))
        else:
            tokens[number] = new_token()
            seats.append(Seat(number, player.name, seed=player.seed,
                              token_hash=hash_token(tokens[number]),
                              player_id=player.player_id))  # fmt: skip
    return seats, tokens


def new_game(
    rules: Rules,
    seats: list[Seat],
    deck: tuple[Card, ...] | None,
    rated: bool = False,
    rematch_of: str | None = None,
) -> GameRecord:
    """A waiting game whose log holds its genesis entry: who sits where, the rules, and
    the commitment to the server seed that will shuffle every deck (and, for a rematch, the
    game it follows)."""
    seed = new_server_seed()
    now = datetime.now(UTC)
    game = GameRecord(
        id=secrets.token_hex(8),
        status=WAITING,
        version=0,
        server_seed=seed.hex(),
        commitment=commitment(seed),
        client_seed=None,
        custom_deck=[str(card) for card in deck] if deck else None,
        winner=None,
        last_hash=GENESIS_HASH,
        created_at=now,
        updated_at=now,
        seats=seats,
        state_now=GameState.new(rules, len(seats)),
        rated=rated,
        rematch_of=rematch_of,
    )
    rematch = {"rematch_of": rematch_of} if rematch_of is not None else {}
    game.record(GAME_CREATED, {**rematch,
        "players": [{**seat.public(), "seed": seat.seed} for seat in seats],
        "rules": rules.to_dict(),
        "algorithm": ALGORITHM,
        "commitment": game.commitment,
        "custom_deck": deck is not None,
        "rated": rated,
    })  # fmt: skip
    return game
