"""The pages in the players' languages: chosen from the browser's languages, switched in the
header and remembered; right to left in Arabic; plural forms for every category a language has;
names isolated from the figures beside them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

CATALOGUES = Path(__file__).resolve().parents[2] / "app" / "web" / "static" / "i18n"
LANGUAGES = ["en", "ar", "zu", "sw", "si", "tl", "gu"]


def words(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize(
    ("locale", "lang"),
    [("ar-EG", "ar"), ("sw-KE", "sw"), ("zu-ZA", "zu"), ("si-LK", "si"), ("fil-PH", "tl"),
     ("gu-IN", "gu"), ("fr-FR", "en")],
)  # fmt: skip
def test_the_language_comes_from_the_browser(
    live_server_url: str, new_page: Any, locale: str, lang: str
) -> None:
    page = new_page(locale=locale)
    page.goto(live_server_url + "/")
    page.wait_for_selector("#start:not([disabled])")
    assert page.get_attribute("html", "lang") == lang
    assert page.get_attribute("html", "dir") == ("rtl" if lang == "ar" else "ltr")
    assert page.text_content("#lobby-title") == words(lang)["lobby.title"]
    assert page.text_content("#start") == words(lang)["setup.start"]
    assert page.input_value("#lang") == lang


def test_a_language_chosen_in_the_header_is_remembered(live_server_url: str, new_page: Any) -> None:
    page = new_page(locale="en-US")
    page.goto(live_server_url + "/")
    page.wait_for_selector("#start:not([disabled])")
    with page.expect_navigation():
        page.select_option("#lang", "ar")
    page.wait_for_selector("#start:not([disabled])")
    assert page.get_attribute("html", "dir") == "rtl"
    assert page.text_content("#online-title") == words("ar")["online.title"]
    # Another page of the site, later: still Arabic, the choice outranks the browser's language.
    page.goto(live_server_url + "/profile")
    page.wait_for_selector("#main[data-ready=true]")
    assert page.get_attribute("html", "lang") == "ar"
    assert page.text_content("#leaderboard-title") == words("ar")["profile.leaderboard"]
    with page.expect_navigation():
        page.select_option("#lang", "sw")
    page.wait_for_selector("#main[data-ready=true]")
    assert page.get_attribute("html", "dir") == "ltr"
    assert page.text_content("#chart-title") == words("sw")["profile.chart"]


def test_every_plural_message_has_every_form_the_language_needs(
    live_server_url: str, new_page: Any
) -> None:
    page = new_page()
    page.goto(live_server_url + "/")
    page.wait_for_selector("#start:not([disabled])")
    for lang in LANGUAGES:
        needed = set(
            page.evaluate("l => new Intl.PluralRules(l).resolvedOptions().pluralCategories", lang)
        )
        for key, message in words(lang).items():
            if isinstance(message, dict):
                assert needed <= set(message), f"{lang} {key} lacks {needed - set(message)}"


def test_an_arabic_name_keeps_the_rating_beside_it_in_order(
    live_server_url: str, new_page: Any
) -> None:
    page = new_page(locale="en-US")
    page.add_init_script("localStorage.setItem('basra:name', 'عمر المصري')")
    page.goto(live_server_url + "/")
    page.wait_for_selector("#me-link:not([hidden]) bdi")
    assert page.text_content("#me-link bdi") == "عمر المصري"
    # The name is isolated: the rating after it is not pulled into the name's direction.
    bdi = page.locator("#me-link bdi").bounding_box()
    rating = page.locator("#me-link .me-rating").bounding_box()
    assert bdi is not None and rating is not None and rating["x"] >= bdi["x"] + bdi["width"] - 1
