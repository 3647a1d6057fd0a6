"""The expert's review of a game: each move judged from the seat's own knowledge alone."""

from __future__ import annotations

import random

from bot_helpers import position, random_positions

from app.engine import Game, GameState, Rules, observe, parse_cards
from app.engine.bots.analysis import appraise, count_positions, judge_log, knowledge_seed
from app.engine.events import event_to_dict
from app.engine.fairness import shuffled_deck

WORK = 600  # card plays a move: enough to tell cards apart, fast enough for the suite


def redealt(state: GameState, seed: int) -> GameState:
    """The same position for the seat to move, the other hands and the stock dealt anew."""
    other = state.copy()
    hidden = [c for s, hand in enumerate(state.hands) if s != state.turn for c in hand]
    hidden += state.stock
    random.Random(seed).shuffle(hidden)
    for seat, hand in enumerate(state.hands):
        if seat != state.turn:
            other.hands[seat], hidden = hidden[: len(hand)], hidden[len(hand) :]
    other.stock = hidden
    return other


def test_the_same_knowledge_gets_the_same_values_however_the_hidden_cards_lay() -> None:
    for state in random_positions(6, 2, seed=81):
        seat = state.turn
        values = appraise(observe(state, seat), WORK)
        for seed in (1, 2):
            again = redealt(state, seed)
            assert again.hands[seat] == state.hands[seat] and again.stock != state.stock
            assert appraise(observe(again, seat), WORK) == values


def test_the_order_a_hand_was_dealt_in_changes_nothing() -> None:
    state = next(iter(random_positions(1, 2, seed=82)))
    seat = state.turn
    values = appraise(observe(state, seat), WORK)
    shuffled = state.copy()
    shuffled.hands[seat] = list(reversed(state.hands[seat]))
    assert appraise(observe(shuffled, seat), WORK) == values
    assert knowledge_seed(observe(shuffled, seat)) == knowledge_seed(observe(state, seat))


def test_four_players_are_judged_from_the_seat_alone_too() -> None:
    state = next(iter(random_positions(1, 4, seed=83)))
    values = appraise(observe(state, state.turn), WORK)
    assert appraise(observe(redealt(state, 3), state.turn), WORK) == values


def test_every_card_of_the_hand_has_a_value_and_cards_of_a_rank_share_it() -> None:
    state = position(["5D", "5C", "KS", "7D"], ["2H", "3S"])
    values = appraise(observe(state, 0), WORK)
    assert set(values) == set(parse_cards(["5D", "5C", "KS", "7D"]))
    five_d, five_c = parse_cards(["5D", "5C"])
    assert values[five_d] == values[five_c]


def test_a_basra_is_worth_more_than_a_trail() -> None:
    state = position(["5D", "KS", "QH", "8C"], ["2H", "3S"])
    values = appraise(observe(state, 0), WORK)
    five, king = parse_cards(["5D", "KS"])
    assert max(values, key=values.__getitem__) == five
    assert values[five] - values[king] > 5  # the basra's 10, less what may follow


def test_a_different_seat_or_score_is_different_knowledge() -> None:
    state = next(iter(random_positions(1, 2, seed=84)))
    view = observe(state, state.turn)
    scored = state.copy()
    scored.scores = [30, 0]
    assert knowledge_seed(observe(scored, state.turn)) != knowledge_seed(view)


def recorded_match(seed: int, target: int = 1) -> list[tuple[str, dict[str, object]]]:
    """A match of two seats that play their first card, as the log's engine events."""
    game = Game(Rules.from_dict({"target_score": target}), 2)
    events = []
    deal = 1
    while not game.is_over:
        if game.needs_deal:
            events += game.deal(shuffled_deck(f"analysis-{seed}".encode(), "", deal))
            deal += 1
            continue
        seat = game.state.turn
        assert seat is not None
        events += game.play(seat, game.state.hands[seat][0])
    return [(type(event).__name__, event_to_dict(event)) for event in events]


def test_a_log_is_judged_move_by_move_for_the_seats_asked_and_in_slices_alike() -> None:
    log = recorded_match(85)
    rules = Rules.from_dict({"target_score": 1}).to_dict()
    played = [data for kind, data in log if kind == "CardPlayed"]
    assert count_positions(rules, 2, log, [1]) == sum(1 for d in played if d["seat"] == 1)
    whole = judge_log(rules, 2, log, [0, 1], work=WORK)
    assert [(n, seat, card) for n, seat, card, _ in whole] == [
        (d["n"], d["seat"], d["card"]) for d in played
    ]
    for _, _, card, pairs in whole:
        assert card in dict(pairs)
    sliced = judge_log(rules, 2, log, [0, 1], 0, 10, WORK) + judge_log(
        rules, 2, log, [0, 1], 10, None, WORK
    )
    assert sliced == whole


def test_a_card_the_clock_played_for_a_seat_is_not_judged() -> None:
    from datetime import UTC, datetime

    from app.engine.bots.analysis import positions

    game = Game(Rules.from_dict({"turn_seconds": 30}), 2)
    events = list(game.deal(shuffled_deck(b"clock", "", 1)))
    at = datetime(2026, 12, 5, tzinfo=UTC)
    events += game.time_out(0, at, at)  # seat 0's first card, played by the server
    events += game.play(1, game.state.hands[1][0])
    events += game.play(0, game.state.hands[0][0])
    judged = [(p.n, p.seat) for p in positions(game.state.rules, 2, events, frozenset({0, 1}))]
    assert judged == [(2, 1), (3, 0)]
