"""The log's hashes are taken over a canonical JSON text, and a stream record's data is sent
as compact JSON. Both were the standard library's and are now orjson's: every hash ever stored
must still verify, and no stream's data line may change, so the two must write the same bytes
for anything a log entry can hold."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from app.live.records import Record
from app.services.log import canonical_json, event_hash

# What a log entry's data is made of: names (any text a player may send, accents, emoji,
# quotes, backslashes and control characters included), card codes, integers, flags, null.
leaves = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=30)


def _containers(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5)


values = st.recursive(leaves, _containers, max_leaves=25)


def standard_library(body: dict[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@settings(max_examples=examples(150), deadline=None)
@given(st.dictionaries(st.text(max_size=12), values, max_size=8))
def test_the_canonical_text_is_the_standard_librarys(body):
    assert canonical_json(body) == standard_library(body)


def test_a_stored_hash_is_the_one_the_standard_library_gave():
    data = {"seat": 1, "name": 'Amira \u00e9\u0301 \U0001f0a1 "q" \\ \n\t\x01', "seed": None}
    body = {"game": "g1", "seq": 2, "type": "SeatJoined", "data": data,
            "at": "2026-11-30T17:00:00.000000Z", "prev": "0" * 64}  # fmt: skip
    expected = hashlib.sha256(standard_library(body)).hexdigest()
    assert event_hash("g1", 2, "SeatJoined", data, body["at"], "0" * 64) == expected


@settings(max_examples=examples(150), deadline=None)
@given(st.dictionaries(st.text(max_size=12), values, max_size=8))
def test_a_stream_records_text_is_the_standard_librarys_compact_json(data):
    # Record.json went from json.dumps to orjson: a stream's data lines must not change.
    expected = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    assert Record(1, "joined", data).json == expected
