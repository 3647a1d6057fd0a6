"""The one normaliser of names (app/services/names.py), pinned by a table: what a name becomes,
what is refused, and which names read as a bot's."""

from __future__ import annotations

import re

import pytest

from app.services.names import NameRefused, normal_name, reads_as_bot


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("Amira", "Amira"),
        ("  Amira  ", "Amira"),
        ("Amira \u2003  Badr", "Amira Badr"),  # an em space among them
        ("Amira\u00a0Badr", "Amira Badr"),  # a no-break space is a space
        ("\uff21mira", "Amira"),  # a full-width A
        ("\ufb01sh", "fish"),  # a ligature
        ("x" * 24, "x" * 24),
        ("أميرة", "أميرة"),
    ],
)
def test_a_name_is_kept_nfkc_normalised_trimmed_and_its_spaces_collapsed(given, kept):
    assert normal_name(given) == kept


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("", "visible"),
        ("   ", "visible"),
        ("\u00a0\u3000", "visible"),
        ("x" * 25, "longer than 24"),
        ("Am\u200bira", "U+200B"),  # a zero-width space
        ("\u202eArima", "U+202E"),  # a right-to-left override
        ("Amira\x07", "U+0007"),
        ("Am\ud800ira", "surrogate"),
    ],
)
def test_a_name_that_cannot_be_kept_is_refused_saying_why(given, why):
    with pytest.raises(NameRefused, match=re.escape(why)):
        normal_name(given)


def test_a_seats_name_may_be_longer():
    assert normal_name("x" * 40, longest=40) == "x" * 40


@pytest.mark.parametrize(
    "name",
    ["Expert bot", "expert bot", "Expert bot ", "EXPERT  BOT", "Expert\u00a0bot", "Expert-Bot",
     "expertbot", "\u0395xpert bot", "Gr\u0435edy bot", "Rand\u043em bot", "Rand0m bot",
     "\uff33killed bot"],
)  # fmt: skip
def test_a_name_that_reads_as_a_bots_look_alikes_included_is_kept_for_bots(name):
    assert reads_as_bot(name)


@pytest.mark.parametrize("name", ["Amira", "Expert", "Bot", "Random bots", "Greedy Badr"])
def test_other_names_do_not_read_as_a_bots(name):
    assert not reads_as_bot(name)
