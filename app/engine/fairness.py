"""The fair shuffle ``basra-shuffle-v1`` of FAIRNESS.md, exactly.

The server seed is drawn from the OS CSPRNG and committed to by its SHA-256 before any
deal; each round's deck is a Fisher-Yates shuffle driven by an HMAC-SHA256 stream keyed
by that seed. Anyone given the revealed seed can re-derive every deck with this module.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Iterator, Sequence

from app.engine.cards import FULL_DECK, Card

ALGORITHM = "basra-shuffle-v1"
SEED_BYTES = 32
_TWO_32 = 1 << 32
_EIGHT_WORDS = struct.Struct(">8I")  # a SHA-256 digest as eight big-endian 32-bit words


def new_server_seed() -> bytes:
    return secrets.token_bytes(SEED_BYTES)


def commitment(server_seed: bytes) -> str:
    return hashlib.sha256(server_seed).hexdigest()


def client_seed(seat_seeds: Sequence[str | None]) -> str:
    """The seats' seeds in seat order, ``""`` for none (and for bots), joined with ``|``."""
    return "|".join(seed or "" for seed in seat_seeds)


def random_words(server_seed: bytes, client: str, round_number: int) -> Iterator[int]:
    """The round's stream of unsigned 32-bit big-endian integers."""
    prefix = f"{ALGORITHM}|{client}|{round_number}|"
    block = 0
    while True:
        # hmac.digest is the one-shot C form of hmac.new(...).digest(): same bytes.
        yield from _EIGHT_WORDS.unpack(
            hmac.digest(server_seed, f"{prefix}{block}".encode(), "sha256")
        )
        block += 1


def uniform(words: Iterator[int], n: int) -> int:
    """An unbiased integer in [0, n): rejection keeps every residue equally likely."""
    limit = _TWO_32 - (_TWO_32 % n)
    while True:
        word = next(words)
        if word < limit:
            return word % n


def shuffled_deck(server_seed: bytes, client: str, round_number: int) -> tuple[Card, ...]:
    """Round ``round_number``'s deck (1-based), index 0 the top card."""
    words = random_words(server_seed, client, round_number)
    deck = list(FULL_DECK)
    for i in range(len(deck) - 1, 0, -1):
        # ``uniform(words, i + 1)`` inlined: a deal is 51 of these, on every round.
        n = i + 1
        limit = _TWO_32 - (_TWO_32 % n)
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def seed_matches(server_seed_hex: str, published_commitment: str) -> bool:
    try:
        seed = bytes.fromhex(server_seed_hex)
    except ValueError:
        return False
    return hmac.compare_digest(commitment(seed), published_commitment)
