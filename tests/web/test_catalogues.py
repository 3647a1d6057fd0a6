"""The web client's message catalogues (app/web/static/i18n/<lang>.json): one per language, every
key in every catalogue, no key the English one lacks, the same placeholders in every translation,
plurals written as Intl.PluralRules categories, and every key the pages use present."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from app.engine.catalog import rule_options

STATIC = Path(__file__).resolve().parents[2] / "app" / "web" / "static"
CATALOGUES = STATIC / "i18n"
LANGUAGES = ["en", "ar", "zu", "sw", "si", "tl", "gu"]
CATEGORIES = {"zero", "one", "two", "few", "many", "other"}
PLACEHOLDER = re.compile(r"\{([a-zA-Z_]+)\}")
# A string literal in the pages' JavaScript that names a message: "<prefix>.<rest>".
KEY_LITERAL = re.compile(r"""["']([a-z]+\.[a-z_][a-zA-Z0-9_.]*)["']""")
# Keys the code builds from data it receives (a card's suit, a problem's code, ...), and the
# stems of a move's messages ("move.you" + ".took" / ".trailed").
BUILT = re.compile(
    r"^(suit|rank|error|bot\.level|bot\.help|games\.status|games\.result|rule|fair\.check)\."
    r"|^move\.(you|other|timeout_you|timeout_other)$"
)


def catalogue(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def variants(message: Any) -> list[str]:
    return list(message.values()) if isinstance(message, dict) else [message]


def placeholders(message: Any) -> set[str]:
    return {name for text in variants(message) for name in PLACEHOLDER.findall(text)}


def test_there_is_one_catalogue_per_language_and_no_other() -> None:
    assert sorted(p.stem for p in CATALOGUES.glob("*.json")) == sorted(LANGUAGES)


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_catalogue_has_exactly_the_english_keys(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    assert sorted(set(english) - set(other)) == [], f"{lang} lacks these keys"
    assert sorted(set(other) - set(english)) == [], f"{lang} has keys English lacks"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_messages_are_text_or_plural_forms_with_the_english_placeholders(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    for key, message in other.items():
        if isinstance(english[key], dict):
            assert isinstance(message, dict), f"{lang} {key}: a plural message in English"
            assert "other" in message and set(message) <= CATEGORIES, f"{lang} {key}"
        else:
            assert isinstance(message, str) and message.strip(), f"{lang} {key}"
        for text in variants(message):
            assert isinstance(text, str), f"{lang} {key}"
        # A translation may leave out the count where its words say it ("one card"), nothing else.
        assert placeholders(message) - {"count"} <= placeholders(english[key]), f"{lang} {key}"
        assert placeholders(english[key]) - {"count"} <= placeholders(message), f"{lang} {key}"


def test_the_game_has_its_own_words_in_every_language() -> None:
    for lang in LANGUAGES:
        words = catalogue(lang)
        for key in ["suit.S", "suit.H", "suit.D", "suit.C", "rank.A", "rank.J", "rank.Q", "rank.K"]:
            assert words[key], f"{lang} {key}"
    assert catalogue("ar")["rank.J"] == "ولد"  # Egyptian players' "walad": the jack
    assert catalogue("ar")["move.basra"].startswith("بصرة")
    assert catalogue("gu")["rank.J"] == "ગુલામ"


def used_keys() -> set[str]:
    keys: set[str] = set()
    english = catalogue("en")
    prefixes = {key.split(".")[0] for key in english}
    for script in STATIC.glob("*.js"):
        for key in KEY_LITERAL.findall(script.read_text(encoding="utf-8")):
            if key.split(".")[0] in prefixes and not key.endswith(".js") and not key.endswith("."):
                keys.add(key)
    for page in STATIC.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        keys.update(re.findall(r'data-i18n="([^"]+)"', text))
        for pairs in re.findall(r'data-i18n-attr="([^"]+)"', text):
            keys.update(pair.split("=", 1)[1] for pair in pairs.split(";"))
    return keys


def test_every_key_the_pages_use_is_in_the_catalogue() -> None:
    english = catalogue("en")
    missing = sorted(k for k in used_keys() if k not in english and not BUILT.match(k))
    assert missing == []


def test_the_keys_built_from_data_cover_what_the_api_sends() -> None:
    english = catalogue("en")
    for suit in "SHDC":
        assert f"suit.{suit}" in english
    for rank in "AJQK":
        assert f"rank.{rank}" in english
    for level in ["random", "greedy", "skilled", "expert"]:
        assert f"bot.level.{level}" in english and f"bot.help.{level}" in english
    for status in ["waiting", "active", "finished", "cancelled"]:
        assert f"games.status.{status}" in english
    for result in ["won", "lost", "drawn"]:
        assert f"games.result.{result}" in english
    for option in rule_options():  # the house rules GET /rules offers
        name = option["name"]
        assert f"rule.{name}.label" in english and f"rule.{name}.help" in english, name
        for value in option.get("values") or []:
            assert f"rule.{name}.{value}" in english and f"rule.{name}.{value}.help" in english
    for suffix in ["took", "trailed"]:
        for who in ["you", "other", "timeout_you", "timeout_other"]:
            assert f"move.{who}.{suffix}" in english


def test_every_problem_code_of_the_api_has_a_message() -> None:
    english = catalogue("en")
    contract = (Path(__file__).resolve().parents[2] / "openapi.yaml").read_text(encoding="utf-8")
    documented = [
        "bad_request",
        "invalid_request",
        "invalid_card",
        "card_not_in_hand",
        "unauthorized",
        "forbidden",
        "not_found",
        "not_your_turn",
        "game_not_active",
        "game_full",
        "game_not_finished",
        "version_mismatch",
        "payload_too_large",
        "idempotency_conflict",
        "rate_limited",
    ]
    for code in documented:
        assert code in contract
        assert f"error.{code}" in english, code
