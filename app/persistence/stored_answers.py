"""A move's first answer, kept for the retries of its Idempotency-Key, as one compact value:
what ``idempotent_responses.answer`` holds.

A retry gets the first answer again byte for byte, so the answer is kept as the JSON it was
(orjson, as the API writes it), read back into the same document. It is rarely read again (only
by a client that lost it), and a finished match leaves one a move for a day, so it is kept
deflated: an answer of some 1.2 KB deflated alone is still ~480 B (its keys repeat from answer
to answer, not within one), and ~180 B against a dictionary that holds an answer's usual text:
its keys, the bots' seats, a few moves and round results (docs/performance.md, "Stored answers").

A value is one byte naming its format (and so its dictionary), then zlib's stream with its
checksum: a changed or cut value fails to read rather than answer something else. A dictionary
never changes once written: a better one is a new format, read beside the old for as long as
answers are kept.
"""

from __future__ import annotations

import zlib
from typing import Any

import orjson

from app.persistence.statements import json_bytes

FORMAT = 1
# An answer of a two-player match against a bot with a turn clock, with a four-player game's
# seats and sides and a finished match's round results before it: deflate refers back to the
# text nearest the end most cheaply, so what nearly every answer holds comes last.
_DICTIONARY_1 = (
    b'{"seat":2,"side":0,"hand_size":4,"name":"","bot":null,"open":false,"player":null},'
    b'{"seat":3,"side":1,"hand_size":4,"name":"Random bot","bot":"random","open":true,'
    b'"player":"bot-random"}],"sides":[{"side":0,"seats":[0,2],"captured":0,"basras":0,'
    b'"jack_basras":0,"score":0},{"side":1,"seats":[1,3],"status":"finished","winner":1,'
    b'"rounds":[{"round":1,"points":[10,30],"cards":[26,26],"majority":null,"basras":[1,0],'
    b'"jack_basras":[0,0]},{"round":2,"points":[0,30],"cards":[23,29],"majority":1,'
    b'"basras":[0,0],"jack_basras":[0,0]}],"name":"Expert bot","bot":"expert",'
    b'"player":"bot-expert"},{"moves":[{"n":10,"round":1,"seat":0,"card":"10D",'
    b'"captured":["5S","5H"],"basra":"basra"},{"n":11,"round":1,"seat":1,"card":"JC",'
    b'"captured":["QH","7D"],"basra":"jack_basra"}],"state":{"id":"","status":"active",'
    b'"version":12,"custom_deck":false,"round":1,"dealer":1,"turn":0,"floor":["9C","2H","3S"],'
    b'"stock":32,"target_score":101,"seats":[{"seat":0,"side":0,"hand_size":3,"name":"",'
    b'"bot":null,"open":false,"player":null},{"seat":1,"side":1,"hand_size":3,'
    b'"name":"Greedy bot","bot":"greedy","open":false,"player":"bot-greedy"}],'
    b'"sides":[{"side":0,"seats":[0],"captured":0,"basras":0,"jack_basras":0,"score":0},'
    b'{"side":1,"seats":[1],"captured":6,"basras":0,"jack_basras":0,"score":0}],'
    b'"last_capturer":1,"last_move":{"n":11,"round":1,"seat":1,"card":"AS","captured":["AC"],'
    b'"basra":null},"rounds":[],"winner":null,"resigned":null,"you":0,"hand":["JS","KC","4D"],'
    b'"legal_moves":[{"card":"JS","captured":["8H"],"basra":null},{"card":"KC","captured":[],'
    b'"basra":null},{"card":"4D","captured":[],"basra":null}],'
    b'"deadline":"2026-12-05T21:45:00.000000Z","rated":false,"ratings":null}}'
)
_DICTIONARIES = {FORMAT: _DICTIONARY_1}


class UnreadableAnswer(ValueError):
    """The stored value is not an answer this code wrote (changed, cut short, unknown format)."""


def packed(game_id: str, answer: dict[str, Any]) -> bytes:
    """The value that keeps ``answer``, an answer of the game ``game_id``."""
    deflate = zlib.compressobj(9, zdict=_dictionary(FORMAT, game_id))
    return bytes([FORMAT]) + deflate.compress(json_bytes(answer)) + deflate.flush()


def unpacked(game_id: str, value: bytes) -> dict[str, Any]:
    """The answer ``packed`` kept in ``value`` for the game ``game_id``, as the same document."""
    if not value or value[0] not in _DICTIONARIES:
        raise UnreadableAnswer(f"no stored answer format {value[:1]!r}")
    inflate = zlib.decompressobj(zdict=_dictionary(value[0], game_id))
    try:
        text = inflate.decompress(value[1:]) + inflate.flush()
    except zlib.error as error:
        raise UnreadableAnswer(str(error)) from error
    if not inflate.eof or inflate.unused_data:
        raise UnreadableAnswer("the stored answer is cut short, or followed by more")
    answer: dict[str, Any] = orjson.loads(text)
    return answer


def _dictionary(form: int, game_id: str) -> bytes:
    """The format's dictionary, and last the game's id as every answer of it writes it."""
    return _DICTIONARIES[form] + b'"state":{"id":"' + game_id.encode() + b'",'
