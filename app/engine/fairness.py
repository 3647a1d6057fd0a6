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
from collections.abc import Callable, Iterator, Sequence

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
    # ``random_words`` and ``uniform``, inlined: a deal is 51 draws, on every round. The
    # words are read a digest (eight words) at a time, with the rejection limits of
    # ``uniform`` looked up; the same words are drawn and kept as that pair would.
    prefix = f"{ALGORITHM}|{client}|{round_number}|"
    digest, unpack, limits = _hmac_sha256(server_seed), _EIGHT_WORDS.unpack, _LIMITS
    words: tuple[int, ...] = ()
    position, block = 8, 0  # 8: no words left, the next digest is due
    deck = list(FULL_DECK)
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = limits[n]
        while True:
            if position == 8:
                words = unpack(digest(f"{prefix}{block}".encode()))
                position = 0
                block += 1
            word = words[position]
            position += 1
            if word < limit:
                break
        j = word % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def _hmac_sha256(key: bytes) -> Callable[[bytes], bytes]:
    """``hmac.digest(key, message, "sha256")`` as a function of the message: a deal takes
    seven digests under one key, so the key is set up once and the keyed state copied for
    each message (the standard library's own HMAC, in C; the same bytes)."""
    keyed = hmac.new(key, digestmod=hashlib.sha256)

    def digest(message: bytes) -> bytes:
        mac = keyed.copy()
        mac.update(message)
        return mac.digest()

    return digest


# uniform's rejection limit for each n a deal draws in [0, n), 2..52.
_LIMITS = [_TWO_32 - (_TWO_32 % n) if n else 0 for n in range(len(FULL_DECK) + 1)]


def seed_matches(server_seed_hex: str, published_commitment: str) -> bool:
    try:
        seed = bytes.fromhex(server_seed_hex)
    except ValueError:
        return False
    return hmac.compare_digest(commitment(seed), published_commitment)
