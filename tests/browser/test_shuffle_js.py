"""The browser's basra-shuffle-v1 (app/web/static/shuffle.js) agrees with FAIRNESS.md and with an
independent Python reading of it; run under node, whose WebCrypto is the browser's API."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

MODULE = Path(__file__).resolve().parents[2] / "app" / "web" / "static" / "shuffle.js"
ZERO_SEED = "00" * 32


def reference_deck(seed: bytes, client_seed: str, round_number: int) -> list[str]:
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    deck = [rank + suit for suit in "SHDC" for rank in ranks]
    words: list[int] = []
    block = 0
    for i in range(51, 0, -1):
        n = i + 1
        while True:
            if not words:
                msg = f"basra-shuffle-v1|{client_seed}|{round_number}|{block}".encode()
                digest = hmac.new(seed, msg, hashlib.sha256).digest()
                words = [int.from_bytes(digest[k : k + 4], "big") for k in range(0, 32, 4)]
                block += 1
            u = words.pop(0)
            if u < 2**32 - 2**32 % n:
                break
        j = u % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def run_node(cases: list[tuple[str, str, int]]) -> dict[str, object]:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is missing (CI=true)")
        pytest.skip("node is missing")
    script = f"""
import {{ deriveDeck, sha256Hex, hexToBytes }} from {json.dumps(MODULE.as_uri())};
const cases = {json.dumps(cases)};
const decks = [];
for (const [seed, client, round] of cases) decks.push(await deriveDeck(seed, client, round));
console.log(JSON.stringify({{ commitment: await sha256Hex(hexToBytes(cases[0][0])), decks }}));
"""
    done = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_the_fairness_test_vectors_are_reproduced_in_javascript() -> None:
    out = run_node([(ZERO_SEED, "", 1), (ZERO_SEED, "", 2), (ZERO_SEED, "alice||bob", 1)])
    assert out["commitment"] == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    decks = out["decks"]
    assert isinstance(decks, list)
    assert decks[0][:5] == ["7D", "AD", "9S", "3H", "2D"]
    assert decks[1][:5] == ["6H", "8D", "10H", "KS", "KC"]
    assert decks[2][:5] == ["8C", "5S", "2D", "4C", "3C"]


def test_whole_decks_agree_with_an_independent_python_reading() -> None:
    seed = hashlib.sha256(b"a seed for the browser test").hexdigest()
    cases = [(seed, "ann|", r) for r in (1, 2, 7)] + [(seed, "\u00e9t\u00e9|x", 3)]
    decks = run_node(cases)["decks"]
    assert isinstance(decks, list)
    for (hex_seed, client, round_number), deck in zip(cases, decks, strict=True):
        assert deck == reference_deck(bytes.fromhex(hex_seed), client, round_number)
        assert sorted(deck) == sorted(reference_deck(bytes(32), "", 1))
