"""One normaliser for every name a player or a seat is given, whoever gives it: a request's
body, or the name claim of an integrator's signed token.

A name is NFKC-normalised (a full-width or a ligature letter becomes its plain one, a no-break
space a space), trimmed, its inner runs of spaces made one, and then holds 1 to ``longest``
characters, none of them a control or format character (a right-to-left override or a
zero-width space could make one name pass for another) or a lone surrogate (text no database
stores). ``reads_as_bot`` says whether a name reads as a bot level's, look-alike letters
included (a Greek Epsilon for an E, a Cyrillic o for an o), by the Unicode confusables that
``confusable-homoglyphs`` keeps: such a name is kept for the bots.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from confusable_homoglyphs import confusables

from app.engine.bots import BOT_NAMES

PLAYER_NAME_MAX = 24  # a player's name (POST /players, PATCH /players/me, a signed token's)
SEAT_NAME_MAX = 40  # a seat's name given in POST /games or a join
HIDDEN = ("Cc", "Cf")  # Unicode categories refused in names: control and format characters


class NameRefused(ValueError):
    """Why a name cannot be taken, in a sentence."""


def normal_name(text: str, longest: int = PLAYER_NAME_MAX) -> str:
    """The name as it is kept (``NameRefused`` if it cannot be)."""
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise NameRefused("must not contain lone surrogates")
    bad = sorted({f"U+{ord(c):04X}" for c in text if unicodedata.category(c) in HIDDEN})
    if bad:
        raise NameRefused(f"must not contain control or format characters ({', '.join(bad)})")
    name = " ".join(unicodedata.normalize("NFKC", text).split())
    if not name:
        raise NameRefused("must hold a visible character")
    if len(name) > longest:
        raise NameRefused(f"longer than {longest} characters once normalised (NFKC)")
    return name


def reads_as_bot(name: str) -> bool:
    """Whether the name reads as a bot level's: the same letters and digits once each
    look-alike is read as the Latin letter it imitates, case, spaces and punctuation aside."""
    return _skeleton(name) in _bot_skeletons()


@cache
def _bot_skeletons() -> frozenset[str]:
    return frozenset(_skeleton(name) for name in BOT_NAMES.values())


def _skeleton(text: str) -> str:
    read = [_latin(c) for c in unicodedata.normalize("NFKC", text)]
    return "".join(c for c in "".join(read).casefold() if c.isalnum())


@cache
def _latin(character: str) -> str:
    """The ASCII letter or digit ``character`` imitates, or itself."""
    if character.isascii() and character.isalpha():
        return character
    found = confusables.is_confusable(character, greedy=True, preferred_aliases=[]) or []
    plain = [glyph["c"] for entry in found for glyph in entry["homoglyphs"]
             if glyph["c"].isascii() and glyph["c"].isalnum()]  # fmt: skip
    return plain[0] if plain else character
