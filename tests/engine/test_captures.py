"""What a played card takes: RULES.md sections 3 and 4, pinned by tables of positions.

Each row is (floor, played, took, basra). "took" lists floor cards only, "all" means the
whole floor, "-" means the card is trailed. Expected answers were worked out by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.engine import BASRA, JACK_BASRA, Card, Rules, find_capture

from .helpers import cards, codes

B, JB = BASRA, JACK_BASRA
Row = tuple[str, str, str, str | None]


def took(floor: str, took_text: str) -> list[str]:
    if took_text == "all":
        return floor.split()
    return took_text.split() if took_text != "-" else []


def check(row: Row, **options: Any) -> None:
    floor, played, expected, basra = row
    capture = find_capture(cards(floor), Card.parse(played), Rules.from_dict(options))
    assert sorted(codes(capture.captured)) == sorted(took(floor, expected))
    assert capture.basra == basra
    assert capture.card == Card.parse(played)
    assert capture.is_trail is (expected == "-")


def rows(table: dict[str, Row]) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("row", list(table.values()), ids=list(table))


# RULES.md section 8, row by row, under the default rules.
SECTION_8: dict[str, Row] = {
    "01-rank-and-sum-together": ("5C 2H 3S", "5D", "all", B),
    "02-rank": ("4H 9C QS", "4S", "4H", None),
    "03-sum": ("2H 3S 9C", "5D", "2H 3S", None),
    "04-rank-9-plus-group-A+5+3": ("AH 5S 9D 3C", "9S", "all", B),
    "05-two-groups": ("2C 2H 3S 3D", "5H", "all", B),
    "06-2+8-and-5+5": ("2D 8C 5S 5H", "10C", "all", B),
    "07-rank-plus-3+3": ("3S 3H 6D", "6C", "all", B),
    "08-K-takes-only-K": ("KS 5H", "KD", "KS", None),
    "09-Q-is-never-in-a-sum": ("QH 4C 6D", "10S", "4C 6D", None),
    "10-nothing-to-take": ("QH", "3C", "-", None),
    "11-empty-floor-jack": ("", "JC", "-", None),
    "12-lone-jack": ("JH", "JS", "JH", JB),
    "13-sweep-no-basra": ("JH 4C", "JS", "JH 4C", None),
    "14-the-jack-stays": ("JH 5C 2D", "7S", "5C 2D", None),
    "15-empty-floor-7D": ("", "7D", "-", None),
    "16-floor-7D-is-wild": ("7D", "4C", "7D", B),
    "17-jack-on-a-lone-7D": ("7D", "JC", "7D", JB),
    "18-7D-on-a-lone-jack": ("JH", "7D", "JH", JB),
    "19-a-9-would-take-all": ("2C 3H 4S", "7D", "all", B),
    "20-no-single-rank-clears-QS-5H": ("QS 5H", "7D", "all", None),
    "21-no-single-rank-clears-6C-5H": ("6C 5H", "7D", "all", None),
}


@rows(SECTION_8)
def test_every_worked_position_of_rules_section_8(row: Row) -> None:
    check(row)


def test_section_8_has_all_21_rows() -> None:
    assert len(SECTION_8) == 21


RANK: dict[str, Row] = {
    "two-of-the-rank-and-no-more": ("4H 4C 9C", "4S", "4H 4C", None),
    "three-of-the-rank-clear-the-floor": ("4H 4C 4D", "4S", "all", B),
    "tens-take-tens": ("10H 10D", "10S", "all", B),
    "an-ace-takes-aces-only": ("AH AD 9C 2S", "AS", "AH AD", None),
    "a-lone-ace": ("AH", "AS", "AH", B),
    "rank-beside-a-face-card": ("9C KH", "9D", "9C", None),
}

SUMS: dict[str, Row] = {
    "ace-and-nine-make-ten": ("AH 9C", "10S", "all", B),
    "three-aces-and-a-seven": ("AH AD AC 7S", "10S", "all", B),
    "a-four-needs-an-ace-that-is-not-there": ("2H 3S 4C 6D", "5D", "2H 3S", None),
    "cards-worth-more-than-v-are-never-taken": ("6H 7S 8C", "5D", "-", None),
    "rank-taken-higher-card-left": ("5H 6C 4D", "5S", "5H", None),
    "groups-of-three-and-two": ("AS 2H 3D 4C 2S", "6H", "AS 2H 3D 4C 2S", B),
    "one-group-of-four": ("AS 2H 3D 4C", "10H", "all", B),
    "two-groups-of-the-same-values": ("AS AH 4D 4C", "5S", "all", B),
    "a-sum-beside-a-rank": ("5H 3C 2D 5C", "5S", "all", B),
    "no-pair-sums-to-v": ("2S 2H", "5D", "-", None),
    "four-twos-make-two-fours": ("2S 2H 2D 2C", "4S", "all", B),
    "three-of-four-twos-make-a-six": ("2S 2H 2D 2C", "6S", "2S 2H 2D", None),
    "five-cards-in-two-tens": ("AS 2S 3S 4S 5S 5H", "10D", "all", B),
    "largest-subset-left-one": ("AS 2S 3S 4S 5S", "6D", "AS 5S 2S 4S", None),
}

FACES: dict[str, Row] = {
    "queen-takes-both-queens": ("QS QH 5C", "QD", "QS QH", None),
    "queen-clears-a-lone-queen": ("QS", "QD", "QS", B),
    "king-takes-king-not-queen": ("KS QH", "KD", "KS", None),
    "queen-takes-a-wild-7D-too": ("QS 7D", "QH", "all", B),
    "king-takes-a-wild-7D-alone": ("7D 5C", "KS", "7D", None),
    "king-on-a-lone-wild-7D-is-a-basra": ("7D", "KS", "7D", B),
    "queen-never-takes-number-cards": ("5C 5H", "QS", "-", None),
    "queen-never-in-a-sum-of-five": ("QS 2H 3C", "5S", "2H 3C", None),
    "faces-are-never-taken-by-a-number": ("JH QS KC", "10S", "-", None),
    "queen-never-takes-a-jack": ("JH", "QS", "-", None),
}

JACKS: dict[str, Row] = {
    "jack-sweeps-the-floor-without-a-basra": ("5C 2D 9H QS KS", "JD", "all", None),
    "jack-on-two-jacks-is-a-sweep": ("JH JD", "JS", "all", None),
    "jack-on-a-lone-queen-is-a-sweep": ("QS", "JC", "QS", None),
    "jack-on-a-lone-five-is-a-sweep": ("5C", "JC", "5C", None),
    "jack-on-a-7D-and-more-is-a-sweep": ("7D 5C", "JC", "all", None),
}

WILD_FLOOR_SEVEN: dict[str, Row] = {
    "7D-fills-a-group-of-three": ("7D 3C", "5H", "all", B),
    "7D-alone-beside-a-group": ("7D 2C 3H", "5S", "all", B),
    "7D-taken-higher-card-left": ("7D 9C", "5S", "7D", None),
    "7D-joins-the-higher-of-two-cards": ("7D 4C 2H", "5S", "7D 4C", None),
    "7D-joins-the-higher-of-six-and-five": ("7D 6C 5H", "7S", "7D 6C", None),
    "7D-beside-a-rank-card": ("7D 5C", "5S", "all", B),
    "7D-beside-a-sum-for-a-seven": ("7D 3C 4H", "7S", "all", B),
    "an-ace-takes-the-7D": ("7D", "AS", "7D", B),
    "7D-completes-two-groups-for-ten": ("7D 2C 8H 5S 4H", "10C", "all", B),
    "7D-joins-one-of-two-nines": ("7D 9C 9H", "10C", "7D 9H", None),
}

PLAIN_FLOOR_SEVEN: dict[str, Row] = {
    "a-plain-7D-is-too-big-for-a-four": ("7D", "4C", "-", None),
    "a-plain-7D-and-a-three-make-ten": ("7D 3C", "10S", "all", B),
    "a-plain-7D-is-taken-by-rank": ("7D", "7S", "7D", B),
    "a-plain-7D-and-a-two-make-nine": ("7D 2H", "9S", "all", B),
    "a-plain-7D-stays-under-a-king": ("7D 5C", "KS", "-", None),
    "a-plain-7D-stays-under-a-queen": ("QS 7D", "QH", "QS", None),
    "jack-on-a-lone-plain-7D-is-a-sweep": ("7D", "JC", "7D", None),
    "a-plain-7D-in-a-group-of-ten": ("7D 3C 2H", "5S", "3C 2H", None),
}

SEVEN_FROM_HAND_WILD: dict[str, Row] = {
    "a-pair-of-fives-clears": ("5C 5H", "7D", "all", B),
    "a-pair-of-kings-clears": ("KS KH", "7D", "all", B),
    "a-lone-queen-clears": ("QS", "7D", "QS", B),
    "king-and-queen-do-not-clear": ("KS QH", "7D", "all", None),
    "nine-and-ace-clear-as-a-ten": ("9C AH", "7D", "all", B),
    "nine-and-two-do-not-clear": ("9C 2H", "7D", "all", None),
    "four-aces-and-a-six-clear-as-a-ten": ("AS AH AD AC 6S", "7D", "all", B),
    "eights-and-twos-clear-as-ten": ("8S 8H 2C 2D", "7D", "all", B),
    "three-fours-and-a-three-do-not-clear": ("4S 4H 4D 3C", "7D", "all", None),
    "a-lone-six-clears": ("6S", "7D", "6S", B),
    "two-jacks-are-a-sweep": ("JH JS", "7D", "all", None),
    "jack-and-a-five-are-a-sweep": ("JH 5C", "7D", "all", None),
    "A-2-3-4-clear-as-a-ten": ("AS 2H 3D 4C", "7D", "all", B),
    "three-threes-clear": ("3S 3H 3D", "7D", "all", B),
    "a-ten-and-a-five-do-not-clear": ("10S 5H", "7D", "all", None),
}

SEVEN_FROM_HAND_SUM_LE_10: dict[str, Row] = {
    "nine-in-all-is-a-basra": ("2C 3H 4S", "7D", "all", B),
    "ten-in-all-is-a-basra": ("5C 5H", "7D", "all", B),
    "a-lone-ten-is-a-basra": ("10S", "7D", "10S", B),
    "eleven-is-a-sweep": ("9C 2H", "7D", "all", None),
    "six-and-five-is-a-sweep": ("6C 5H", "7D", "all", None),
    "a-queen-is-not-a-number": ("QS", "7D", "QS", None),
    "a-lone-jack-is-a-sweep": ("JH", "7D", "JH", None),
    "a-pair-of-kings-is-a-sweep": ("KS KH", "7D", "all", None),
    "empty-floor-trails": ("", "7D", "-", None),
}

SEVEN_FROM_HAND_JACK: dict[str, Row] = {
    "a-clearable-floor-is-still-a-sweep": ("2C 3H 4S", "7D", "all", None),
    "a-lone-jack-is-a-sweep": ("JH", "7D", "JH", None),
    "a-lone-five-is-a-sweep": ("5H", "7D", "5H", None),
    "empty-floor-trails": ("", "7D", "-", None),
}

SEVEN_FROM_HAND_PLAIN: dict[str, Row] = {
    "an-ordinary-seven-takes-three-and-four": ("2C 3H 4S", "7D", "3H 4S", None),
    "an-ordinary-seven-takes-sevens": ("7S 7H", "7D", "all", B),
    "an-ordinary-seven-trails-on-a-jack": ("JH", "7D", "-", None),
    "an-ordinary-seven-leaves-the-queen": ("5C 2H QS", "7D", "5C 2H", None),
    "an-ordinary-seven-takes-a-group-of-three": ("AS 2S 4S", "7D", "all", B),
}


@rows(RANK)
def test_a_number_card_takes_every_card_of_its_rank(row: Row) -> None:
    check(row)


@rows(SUMS)
def test_a_number_card_takes_the_largest_set_of_disjoint_groups(row: Row) -> None:
    check(row)


@rows(FACES)
def test_a_queen_or_king_takes_only_its_rank_and_a_wild_7d(row: Row) -> None:
    check(row)


@rows(JACKS)
def test_a_jack_sweeps_the_floor(row: Row) -> None:
    check(row)


@rows(WILD_FLOOR_SEVEN)
def test_a_7d_on_the_floor_is_wild_by_default(row: Row) -> None:
    check(row)


@rows(PLAIN_FLOOR_SEVEN)
def test_a_7d_on_the_floor_is_an_ordinary_seven_under_plain(row: Row) -> None:
    check(row, seven_on_floor="plain")


@rows(SEVEN_FROM_HAND_WILD)
def test_the_7d_played_clears_like_a_single_rank_or_sweeps(row: Row) -> None:
    check(row)


@rows(SEVEN_FROM_HAND_SUM_LE_10)
def test_the_7d_under_sum_le_10_is_a_basra_on_ten_or_less(row: Row) -> None:
    check(row, seven_diamonds="sum_le_10")


@rows(SEVEN_FROM_HAND_JACK)
def test_the_7d_under_jack_sweeps_without_a_basra(row: Row) -> None:
    check(row, seven_diamonds="jack")


@rows(SEVEN_FROM_HAND_PLAIN)
def test_the_7d_under_plain_is_an_ordinary_seven(row: Row) -> None:
    check(row, seven_diamonds="plain")


JACK_BASRA_OFF: dict[str, Row] = {
    "jack-on-a-lone-jack-is-a-sweep": ("JH", "JS", "JH", None),
    # Literal reading kept by the engine: `off` turns off every jack basra of 4.2.
    "jack-on-a-lone-wild-7D-is-a-sweep": ("7D", "JC", "7D", None),
    "7D-on-a-lone-jack-is-a-sweep": ("JH", "7D", "JH", None),
    "number-basras-still-count": ("5C 2H 3S", "5D", "all", B),
}


@rows(JACK_BASRA_OFF)
def test_jack_basra_off_leaves_only_sweeps(row: Row) -> None:
    check(row, jack_basra="off")


TIE_BREAKS: dict[str, Row] = {
    # 4+6 has the higher values, but A+2+3+4 takes more cards.
    "more-cards-beat-higher-values": ("AS 2H 3D 4C 6S", "10H", "AS 2H 3D 4C", None),
    # A+9 and 2+8 (two groups) against A+2+3+4 (one group): four cards each.
    "more-groups-beat-one-group": ("AS 2H 3D 4C 8S 9H", "10C", "AS 2H 8S 9H", None),
    # A+2+7 against A+3+6: three cards and one group each; 7 beats 6.
    "higher-values-break-a-tie": ("AS 2H 7S 3D 6C", "10S", "AS 2H 7S", None),
    # 5+1 and 4+2 against 3+2+1: two groups beat one, three stays.
    "two-pairs-beat-a-triple-for-six": ("AS 2S 3S 4S 5S", "6H", "AS 2S 4S 5S", None),
    # A+2+6 against A+3+5 (the ace is in both): 6 beats 5.
    "six-two-ace-beat-five-three-ace": ("AS 2S 6S 3S 5S", "9H", "AS 2S 6S", None),
}


@rows(TIE_BREAKS)
def test_ties_prefer_more_cards_then_more_groups_then_higher_values(row: Row) -> None:
    check(row)


SUITS: dict[str, Row] = {
    "two-of-three-fives-spades-first": ("5C 5D 5H", "10S", "5H 5D", None),
    "hearts-before-clubs": ("AC AH 9S", "10D", "AH 9S", None),
    "spades-before-clubs": ("2C 2S 8H", "10D", "2S 8H", None),
    "diamonds-before-clubs": ("3C 3D 4S", "7H", "3D 4S", None),
    "three-of-four-aces-for-a-three": ("AC AD AH AS 2S", "3S", "AS 2S AH AD AC", B),
}


@rows(SUITS)
def test_among_equal_values_the_suit_goes_in_order_s_h_d_c(row: Row) -> None:
    check(row)


FIFTEEN = "10S 10H 10D 10C KS QS 9S 8S 7S 6S 5S 4S 3S 2S AS"
FIFTEEN_CARD_FLOOR: dict[str, Row] = {
    "nine-takes-its-rank-and-four-pairs": (FIFTEEN, "9H", "9S 8S AS 7S 2S 6S 3S 5S 4S", None),
    "eight-takes-three-pairs-and-leaves-the-four": (FIFTEEN, "8H", "8S 7S AS 6S 2S 5S 3S", None),
    "seven-takes-its-rank-and-three-pairs": (FIFTEEN, "7H", "7S 6S AS 5S 2S 4S 3S", None),
    "six-leaves-the-three": (FIFTEEN, "6H", "6S 5S AS 4S 2S", None),
    "five-takes-two-pairs": (FIFTEEN, "5H", "5S 4S AS 3S 2S", None),
    "four-takes-three-and-ace": (FIFTEEN, "4H", "4S 3S AS", None),
    "three-takes-two-and-ace": (FIFTEEN, "3H", "3S 2S AS", None),
    "two-takes-the-two-only": (FIFTEEN, "2H", "2S", None),
    "ace-takes-the-ace-only": (FIFTEEN, "AH", "AS", None),
    "king-takes-the-king": (FIFTEEN, "KH", "KS", None),
    "queen-takes-the-queen": (FIFTEEN, "QH", "QS", None),
    "jack-sweeps-fifteen": (FIFTEEN, "JH", "all", None),
    "7D-sweeps-fifteen": (FIFTEEN, "7D", "all", None),
}


@rows(FIFTEEN_CARD_FLOOR)
def test_the_largest_default_floor_of_fifteen_cards(row: Row) -> None:
    check(row)


def test_a_trail_keeps_nothing_and_takes_nothing() -> None:
    capture = find_capture(cards("QH"), Card.parse("3C"), Rules())
    assert capture.captured == ()
    assert capture.is_trail


def test_captured_cards_come_back_in_floor_order() -> None:
    floor = cards("3S 9C 2H 5C")
    capture = find_capture(floor, Card.parse("5D"), Rules())
    assert codes(capture.captured) == ["3S", "2H", "5C"]


def test_the_search_is_exact_on_a_floor_of_all_36_cards_ace_to_nine() -> None:
    floor = [c for c in cards(" ".join(f"{r}{s}" for s in "SHDC" for r in "A23456789"))]
    capture = find_capture(floor, Card.parse("10S"), Rules())
    # A..9 of four suits total 180 = 18 tens and the wild 7D fills a group on its own.
    assert len(capture.captured) == 36
    assert capture.basra == B
    plain = find_capture(floor, Card.parse("10S"), Rules(seven_on_floor="plain"))
    assert len(plain.captured) == 36


def test_the_search_on_36_cards_leaves_the_odd_one_when_the_sum_is_not_a_multiple() -> None:
    floor = cards(" ".join(f"{r}{s}" for s in "SHDC" for r in "A23456789" if f"{r}{s}" != "AS"))
    capture = find_capture(floor, Card.parse("10S"), Rules(seven_on_floor="plain"))
    # 179 in all: the best leaves cards worth 9, and one 9 alone is the fewest cards.
    assert len(capture.captured) == 34
    left = [c for c in floor if c not in capture.captured]
    assert codes(left) == ["9C"]
