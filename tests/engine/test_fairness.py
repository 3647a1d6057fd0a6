"""The fair shuffle basra-shuffle-v1 of FAIRNESS.md, checked against its test vectors."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator

import pytest

from app.engine import FULL_DECK, fairness
from app.engine.fairness import (
    ALGORITHM,
    client_seed,
    commitment,
    new_server_seed,
    random_words,
    seed_matches,
    shuffled_deck,
    uniform,
)

ZERO_SEED = bytes(32)
ZERO_COMMITMENT = "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"


@pytest.mark.parametrize(
    ("client", "round_number", "top"),
    [
        ("", 1, "7D AD 9S 3H 2D"),
        ("", 2, "6H 8D 10H KS KC"),
        ("alice||bob", 1, "8C 5S 2D 4C 3C"),
    ],
    ids=["empty-round-1", "empty-round-2", "alice-bob-round-1"],
)
def test_the_deck_matches_the_published_test_vector(
    client: str, round_number: int, top: str
) -> None:
    deck = shuffled_deck(ZERO_SEED, client, round_number)
    assert " ".join(str(card) for card in deck[:5]) == top


def test_a_shuffled_deck_holds_every_card_once() -> None:
    for round_number in range(1, 20):
        deck = shuffled_deck(ZERO_SEED, "x", round_number)
        assert sorted(deck) == list(FULL_DECK)


def test_the_commitment_is_the_hex_sha256_of_the_raw_seed() -> None:
    assert commitment(ZERO_SEED) == ZERO_COMMITMENT
    seed = new_server_seed()
    assert commitment(seed) == hashlib.sha256(seed).hexdigest()
    assert commitment(seed) == commitment(seed).lower()


def test_a_server_seed_is_32_fresh_bytes() -> None:
    seeds = {new_server_seed() for _ in range(20)}
    assert len(seeds) == 20
    assert all(len(seed) == 32 for seed in seeds)


def test_the_revealed_seed_is_checked_against_the_commitment() -> None:
    assert seed_matches("00" * 32, ZERO_COMMITMENT)
    assert not seed_matches("01" + "00" * 31, ZERO_COMMITMENT)
    assert not seed_matches("not hex", ZERO_COMMITMENT)


@pytest.mark.parametrize(
    ("seeds", "joined"),
    [
        (["alice", None, "bob"], "alice||bob"),
        ([None, None], "|"),
        (["", ""], "|"),
        (["a", "b", "c", "d"], "a|b|c|d"),
        (["only", None, None, None], "only|||"),
    ],
)
def test_the_client_seed_joins_the_seats_seeds_in_seat_order(
    seeds: list[str | None], joined: str
) -> None:
    assert client_seed(seeds) == joined


def test_the_stream_is_hmac_sha256_blocks_read_as_big_endian_words() -> None:
    words = random_words(ZERO_SEED, "c", 3)
    expected: list[int] = []
    for block in range(3):
        message = f"{ALGORITHM}|c|3|{block}".encode()
        digest = hmac.new(ZERO_SEED, message, hashlib.sha256).digest()
        expected += [int.from_bytes(digest[i : i + 4], "big") for i in range(0, 32, 4)]
    assert [next(words) for _ in range(24)] == expected


def test_different_rounds_and_client_seeds_give_different_decks() -> None:
    decks = {
        tuple(shuffled_deck(ZERO_SEED, client, r)) for client in ("", "a", "a|") for r in (1, 2)
    }
    assert len(decks) == 6


@pytest.mark.parametrize("n", [3, 7, 52, 3 * 2**30])
def test_uniform_discards_every_word_at_or_above_the_rejection_limit(n: int) -> None:
    limit = 2**32 - (2**32 % n)
    rejected = [limit, (limit + 2**32 - 1) // 2, 2**32 - 1]
    words: Iterator[int] = iter([*rejected, 11, 12])
    assert uniform(words, n) == 11 % n
    assert next(words) == 12  # the rejected words were read and thrown away, nothing more


def test_uniform_rejects_a_quarter_of_the_words_for_three_quarters_of_two_to_the_32() -> None:
    n = 3 * 2**30  # 2^32 mod n = 2^30, so words from n up are discarded
    words = iter([n, n + 1, 2**32 - 1, n - 1])
    assert uniform(words, n) == n - 1


def test_uniform_keeps_the_last_word_below_the_limit() -> None:
    n = 52
    limit = 2**32 - (2**32 % n)
    words = iter([limit - 1, 5])
    assert uniform(words, n) == (limit - 1) % n
    assert next(words) == 5


@pytest.mark.parametrize("n", [1, 2, 3, 7, 13, 51, 52])
def test_uniform_reduces_an_accepted_word_modulo_n(n: int) -> None:
    for word in (0, 1, n - 1, n, 123456789, 2**31):
        assert uniform(iter([word]), n) == word % n


def test_uniform_with_n_a_power_of_two_never_discards() -> None:
    assert uniform(iter([2**32 - 1]), 4) == 3


def test_fisher_yates_uses_uniform_from_51_down_to_1() -> None:
    """Re-derive one deck by hand from the stream, as a third party would."""
    words = random_words(ZERO_SEED, "", 1)
    deck = list(FULL_DECK)
    for i in range(51, 0, -1):
        limit = 2**32 - (2**32 % (i + 1))
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    assert tuple(deck) == shuffled_deck(ZERO_SEED, "", 1)


def _deck_from_uniform(server_seed: bytes, client: str, round_number: int) -> tuple[object, ...]:
    """FAIRNESS.md's Fisher-Yates spelled with ``random_words`` and ``uniform``."""
    words = random_words(server_seed, client, round_number)
    deck = list(FULL_DECK)
    for i in range(51, 0, -1):
        j = uniform(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def test_the_deck_is_the_one_random_words_and_uniform_give_for_many_seeds() -> None:
    for number in range(300):
        seed = hashlib.sha256(str(number).encode()).digest()
        client = ("", "a|b", "x||y|z")[number % 3]
        assert shuffled_deck(seed, client, number % 7 + 1) == _deck_from_uniform(
            seed, client, number % 7 + 1
        )


def test_the_deck_reads_on_past_rejected_words_across_digests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rejections are one in 80 million for a real deck, so forge a stream full of them:
    a word of each digest, chosen by the digest, at or above every limit."""
    real = fairness._EIGHT_WORDS

    class Forged:
        @staticmethod
        def unpack(digest: bytes) -> tuple[int, ...]:
            words = list(real.unpack(digest))
            for index in range(digest[0] % 3, 8, 3):
                words[index] = 2**32 - 1
            return tuple(words)

    monkeypatch.setattr(fairness, "_EIGHT_WORDS", Forged)
    for number in range(20):
        seed = bytes([number]) * 32
        assert shuffled_deck(seed, "", number + 1) == _deck_from_uniform(seed, "", number + 1)


@pytest.mark.parametrize("key_bytes", [0, 1, 32, 63, 64, 65, 200])
def test_the_shuffles_hmac_is_hmac_sha256_for_any_key(key_bytes: int) -> None:
    key = hashlib.sha256(str(key_bytes).encode()).digest() * 7
    key = key[:key_bytes]
    digest = fairness._hmac_sha256(key)
    for message in (b"", b"basra-shuffle-v1||1|0", bytes(range(200))):
        assert digest(message) == hmac.digest(key, message, "sha256")
