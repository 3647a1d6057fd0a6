"""The capture search against a brute force that tries every subset and every split.

``reference.py`` reads RULES.md 3.2-3.5 the simplest way there is; on random floors of
up to nine cards the engine's count-based search must give exactly the same capture.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from app.engine import BASRA, FULL_DECK, Card, Rules, find_capture

from .reference import is_seven_of_diamonds, reference_capture, value

SMALL_NUMBERS = [card for card in FULL_DECK if 0 < card.value < 10]
rules_strategy = st.builds(
    Rules,
    seven_on_floor=st.sampled_from(["wild", "plain"]),
    seven_diamonds=st.sampled_from(["wild", "sum_le_10", "jack", "plain"]),
    jack_basra=st.sampled_from(["lone_jack", "off"]),
)
# Mostly small number cards, where the groups are many and the search is hard.
floor_strategy = st.one_of(
    st.lists(st.sampled_from(SMALL_NUMBERS), unique=True, max_size=9),
    st.lists(st.sampled_from(FULL_DECK), unique=True, max_size=9),
)
EXHAUSTIVE = settings(
    max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def positions(draw: st.DrawFn) -> tuple[list[Card], Card]:
    floor = draw(floor_strategy)
    card = draw(st.sampled_from([c for c in FULL_DECK if c not in floor]))
    return floor, card


@EXHAUSTIVE
@given(position=positions(), rules=rules_strategy)
def test_the_search_agrees_with_brute_force_on_small_floors(
    position: tuple[list[Card], Card], rules: Rules
) -> None:
    floor, card = position
    capture = find_capture(floor, card, rules)
    taken, basra = reference_capture(floor, card, rules)
    assert list(capture.captured) == taken
    assert capture.basra == basra


@EXHAUSTIVE
@given(
    floor=st.lists(st.sampled_from(SMALL_NUMBERS), unique=True, min_size=5, max_size=9),
    played=st.sampled_from(["6", "7", "8", "9", "10"]),
    suit=st.sampled_from("SHDC"),
    seven_on_floor=st.sampled_from(["wild", "plain"]),
)
def test_high_cards_on_crowded_floors_agree_with_brute_force(
    floor: list[Card], played: str, suit: str, seven_on_floor: str
) -> None:
    card = Card.parse(played + suit)
    if card in floor:
        return
    rules = Rules(seven_on_floor=seven_on_floor, seven_diamonds="plain")
    capture = find_capture(floor, card, rules)
    assert list(capture.captured) == reference_capture(floor, card, rules)[0]


@settings(max_examples=examples(500), deadline=None)
@given(position=positions(), rules=rules_strategy)
def test_a_number_card_never_takes_a_card_worth_more_or_a_face(
    position: tuple[list[Card], Card], rules: Rules
) -> None:
    floor, card = position
    capture = find_capture(floor, card, rules)
    assert set(capture.captured) <= set(floor)
    if not card.is_number or (is_seven_of_diamonds(card) and rules.seven_diamonds != "plain"):
        return
    wild = rules.seven_on_floor == "wild"
    for taken in capture.captured:
        assert (wild and is_seven_of_diamonds(taken)) or 0 < value(taken) <= value(card)
    same_rank = {c for c in floor if c.rank == card.rank}
    assert same_rank <= set(capture.captured)
    if wild:
        assert {c for c in floor if is_seven_of_diamonds(c)} <= set(capture.captured)
    assert (capture.basra == BASRA) is (bool(floor) and len(capture.captured) == len(floor))


@settings(max_examples=examples(300), deadline=None)
@given(position=positions(), rules=rules_strategy)
def test_the_capture_cache_never_changes_an_answer(
    position: tuple[list[Card], Card], rules: Rules
) -> None:
    from app.engine import capture as capture_module

    floor, card = position
    warm = find_capture(floor, card, rules)
    capture_module._CAPTURES.clear()
    capture_module._best.cache_clear()
    capture_module._best_with_joker.cache_clear()
    assert find_capture(floor, card, rules) == warm
