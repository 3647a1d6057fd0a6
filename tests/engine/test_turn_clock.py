"""The turn clock and resignation as game rules (API.md items 13 and 14): the card played
for a seat whose time ran out, timeouts in a row, the bot taking a seat, resigning.

The engine never reads a clock: every ``TimeOut`` carries the deadline and ``now``.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from app.engine import (
    OVER,
    PLAYING,
    CardPlayed,
    Forfeited,
    Game,
    GameNotActive,
    GameState,
    InvalidRules,
    MatchEnded,
    NotYourTurn,
    Resigned,
    Rules,
    SeatTakenByBot,
    TimeOut,
    TurnNotOver,
    TurnTimedOut,
    apply,
    decide,
    event_from_dict,
    event_to_dict,
    observe,
    replay,
    timeout_card,
    turn_deadline,
)
from app.engine.bots import choose_card
from app.engine.fairness import shuffled_deck

from .helpers import all_cards, position

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
LATE = T0 + timedelta(seconds=31)
CLOCK = Rules(turn_seconds=30, max_timeouts=3)


def dealt_game(rules: Rules = CLOCK, players: int = 2, seed: bytes = b"\x07" * 32) -> Game:
    game = Game(rules, players)
    game.deal(shuffled_deck(seed, "", 1))
    return game


def time_out(game: Game) -> list[Any]:
    seat = game.state.turn
    assert seat is not None
    return game.time_out(seat, T0, LATE)


# ---- the rules options


@pytest.mark.parametrize("seconds", [None, 5, 30, 3600])
def test_turn_seconds_is_null_or_5_to_3600(seconds: int | None) -> None:
    assert Rules.from_dict({"turn_seconds": seconds}).turn_seconds == seconds


@pytest.mark.parametrize("seconds", [0, 4, 3601, "30", True, 30.0, -5])
def test_a_turn_seconds_outside_5_to_3600_is_refused(seconds: Any) -> None:
    with pytest.raises(InvalidRules) as raised:
        Rules.from_dict({"turn_seconds": seconds})
    assert set(raised.value.errors) == {"turn_seconds"}


@pytest.mark.parametrize(("value", "ok"), [(1, True), (3, True), (10, True), (0, False),
                                           (11, False), (None, False), ("3", False)])  # fmt: skip
def test_max_timeouts_is_1_to_10_and_3_by_default(value: Any, ok: bool) -> None:
    assert Rules().max_timeouts == 3
    if ok:
        assert Rules.from_dict({"max_timeouts": value}).max_timeouts == value
    else:
        with pytest.raises(InvalidRules):
            Rules.from_dict({"max_timeouts": value})


# ---- the card played for a seat whose time ran out


@pytest.mark.parametrize(
    ("hand", "floor", "played"),
    [
        ("4S AC 3H", "4D 9C", "AC"),  # trails before capturing; the lowest rank trails
        ("3H 3S", "9C", "3S"),  # equal ranks: the first suit (S, H, D, C)
        ("9S 5H", "5D 4C 9D", "5H"),  # every card captures: the fewest floor cards
        ("JS QH", "QD 2C", "QH"),  # Q takes one card, the Jack would take two
        ("KC 10D", "", "10D"),  # empty floor: everything trails, the lowest rank
        ("7D AS", "5H 2C", "AS"),  # the 7D sweeps; an ace trails
    ],
)
def test_the_timed_out_seat_plays_its_card_that_takes_least_then_the_lowest(
    hand: str, floor: str, played: str
) -> None:
    state = position(hands=[hand, "2D"], floor=floor)
    assert str(timeout_card(state)) == played


def test_a_timeout_logs_turn_timed_out_then_the_move_of_that_card() -> None:
    game = dealt_game()
    card = timeout_card(game.state)
    events = time_out(game)
    assert events[0] == TurnTimedOut(0, card, 1, "2026-11-30T12:00:00Z")
    assert isinstance(events[1], CardPlayed)
    assert (events[1].seat, events[1].card, events[1].n) == (0, card, 1)
    assert game.state.turn == 1 and game.state.timeouts == [1, 0]


def test_a_timeout_before_the_deadline_is_refused_and_changes_nothing() -> None:
    game = dealt_game()
    before = game.state.to_dict()
    with pytest.raises(TurnNotOver):
        game.time_out(0, T0, T0 - timedelta(microseconds=1))
    assert game.state.to_dict() == before


def test_only_the_seat_to_move_can_time_out_and_only_while_the_match_is_on() -> None:
    game = dealt_game()
    with pytest.raises(NotYourTurn):
        game.time_out(1, T0, LATE)
    game.resign(1)
    with pytest.raises(GameNotActive):
        game.time_out(0, T0, LATE)


def test_the_deadline_runs_only_on_a_human_turn_its_clock_or_else_its_idle_limit() -> None:
    game = dealt_game()
    assert turn_deadline(game.state, T0, bots=()) == T0 + timedelta(seconds=30)
    assert turn_deadline(game.state, T0, bots={0}) is None  # seat 0 moves, and is a bot
    no_clock = dealt_game(Rules()).state
    assert turn_deadline(no_clock, T0, bots=()) == T0 + timedelta(days=1)  # the idle limit
    assert turn_deadline(no_clock, T0, bots={0}) is None
    soon = T0 + timedelta(minutes=3, seconds=7)  # rounded up to the quarter hour: unchanged
    assert turn_deadline(no_clock, soon, bots=()) == T0 + timedelta(days=1, minutes=15)
    assert turn_deadline(GameState.new(CLOCK, 2), T0, bots=()) is None  # nothing dealt


@pytest.mark.parametrize(("value", "ok"), [(86400, True), (5, True), (2592000, True),
                                           (4, False), (2592001, False), (None, False),
                                           (True, False)])  # fmt: skip
def test_the_idle_limit_is_5_s_to_30_days_and_a_day_by_default(value: Any, ok: bool) -> None:
    assert Rules().idle_seconds == 86400
    if ok:
        assert Rules.from_dict({"idle_seconds": value}).idle_seconds == value
    else:
        with pytest.raises(InvalidRules):
            Rules.from_dict({"idle_seconds": value})


@pytest.mark.parametrize(("players", "seat"), [(2, 0), (2, 1), (4, 3)])
def test_with_no_clock_the_idle_seat_forfeits_for_its_side(players: int, seat: int) -> None:
    game = dealt_game(Rules(idle_seconds=60), players)
    while game.state.turn != seat:
        game.play(game.state.turn, game.state.hands[game.state.turn][0])
    with pytest.raises(TurnNotOver):
        game.time_out(seat, LATE, T0)
    side = seat % 2
    events = game.time_out(seat, T0, LATE)
    assert events == [Forfeited(seat, side, "idle"), MatchEnded(1 - side)]  # no card played
    assert game.state.phase == OVER and game.state.winner == 1 - side
    assert game.state.resigned == side and game.state.turn is None
    assert replay(game.state.rules, players, game.events).to_dict() == game.state.to_dict()


# ---- timeouts in a row, and the bot taking the seat


def test_a_card_of_its_own_ends_a_seats_run_of_timeouts() -> None:
    game = dealt_game()
    time_out(game)  # seat 0 leads
    game.play(1, game.state.hands[1][0])
    assert game.state.timeouts == [1, 0]
    game.play(0, game.state.hands[0][0])
    assert game.state.timeouts == [0, 0]
    game.play(1, game.state.hands[1][0])
    assert time_out(game)[0].in_a_row == 1


def test_after_max_timeouts_in_a_row_the_greedy_bot_takes_the_seat() -> None:
    game = dealt_game(Rules(turn_seconds=5, max_timeouts=2))
    first = time_out(game)
    assert not any(isinstance(event, SeatTakenByBot) for event in first)
    game.play(1, game.state.hands[1][0])
    second = time_out(game)
    assert second[0].in_a_row == 2
    assert second[-1] == SeatTakenByBot(0, "greedy")
    assert game.state.taken_by_bot == [0]
    game.play(1, game.state.hands[1][0])
    assert game.state.turn == 0
    assert turn_deadline(game.state, T0, bots=()) is None  # the bot's turn has no clock


def test_a_timeout_that_ends_the_match_hands_no_seat_to_a_bot() -> None:
    # The round's last card, timed out for the max_timeouts-th time, with target 1 reached.
    state = position(hands=["", "5H"], floor="5C", turn=1, rules=Rules(
        target_score=1, turn_seconds=5, max_timeouts=1))  # fmt: skip
    events = decide(state, TimeOut(1, T0, LATE))
    assert isinstance(events[-1], MatchEnded)
    assert not any(isinstance(event, SeatTakenByBot) for event in events)


@pytest.mark.parametrize(("players", "bots", "winner"), [(4, {1, 2, 3}, 1), (2, {1}, 1)])
def test_when_the_bot_takes_the_last_human_seat_its_side_forfeits(
    players: int, bots: set[int], winner: int
) -> None:
    """One human among bots walks away: the match ends there, not played on by bots alone."""
    game = dealt_game(Rules(turn_seconds=5, max_timeouts=1, target_score=10000), players)
    assert game.state.turn == 0
    events = game.time_out(0, T0, LATE, frozenset(bots))
    assert events[-3:] == [SeatTakenByBot(0, "greedy"), Forfeited(0, 0, "abandoned"),
                           MatchEnded(winner)]  # fmt: skip
    assert game.state.phase == OVER and game.state.winner == winner
    assert game.state.resigned == 0
    assert replay(game.state.rules, players, game.events).to_dict() == game.state.to_dict()


def test_a_human_left_playing_keeps_the_match_going_after_a_takeover() -> None:
    game = dealt_game(Rules(turn_seconds=5, max_timeouts=1), 4)
    events = game.time_out(0, T0, LATE, frozenset({1, 3}))  # seat 2 is a human still
    assert events[-1] == SeatTakenByBot(0, "greedy") and game.state.phase == PLAYING


def test_when_every_human_of_both_sides_walked_away_nobody_wins() -> None:
    game = dealt_game(Rules(turn_seconds=5, max_timeouts=1, target_score=10000))
    game.time_out(0, T0, LATE)  # seat 0 taken; seat 1 still a human
    assert game.state.phase == PLAYING
    events = game.time_out(1, T0, LATE)
    assert events[-2:] == [Forfeited(1, 1, "abandoned"), MatchEnded(None)]
    assert game.state.winner is None


# ---- resignation


@pytest.mark.parametrize(("players", "seat", "winner"), [(2, 0, 1), (2, 1, 0), (4, 2, 1),
                                                         (4, 3, 0)])  # fmt: skip
def test_resigning_makes_the_seats_side_lose_now(players: int, seat: int, winner: int) -> None:
    game = dealt_game(Rules(), players)
    events = game.resign(seat)
    assert events == [Resigned(seat, seat % 2), MatchEnded(winner)]
    assert game.state.phase == OVER and game.state.winner == winner
    assert game.state.resigned == seat % 2 and game.state.turn is None


def test_nobody_resigns_a_match_that_is_over_or_not_yet_dealt() -> None:
    with pytest.raises(GameNotActive):
        Game(Rules()).resign(0)
    game = dealt_game()
    game.resign(1)
    with pytest.raises(GameNotActive):
        game.resign(0)


def test_a_resigned_match_shows_the_resigning_side_in_every_view() -> None:
    game = dealt_game()
    game.resign(1)
    assert observe(game.state, None).to_dict()["resigned"] == 1
    assert observe(game.state, 0).to_dict()["winner"] == 0


# ---- replay: the log of a clocked match rebuilds it exactly


def clocked_match(rules: Rules, players: int, seed: bytes, choices: int,
                  away: float) -> Game:  # fmt: skip
    """Humans who let their clock run out with probability ``away`` per turn; taken seats
    played by the greedy bot, as the server does."""
    game = Game(rules, players)
    rng = random.Random(choices)
    while game.needs_deal and game.state.round < 30:
        game.deal(shuffled_deck(seed, "", game.state.round + 1))
        while game.state.phase == PLAYING:
            state = game.state
            seat = state.turn
            assert seat is not None
            if seat in state.taken_by_bot:
                game.play(seat, choose_card("greedy", observe(state, seat), rng))
            elif rng.random() < away:
                game.time_out(seat, T0, LATE)
            else:
                game.play(seat, rng.choice(state.hands[seat]))
    return game


clocked = st.tuples(
    st.sampled_from([2, 4]),
    st.integers(1, 10),
    st.binary(min_size=32, max_size=32),
    st.integers(0, 2**32),
    st.sampled_from([0.0, 0.3, 0.9, 1.0]),
)


@settings(max_examples=examples(60), deadline=None)
@given(case=clocked)
def test_replaying_a_clocked_match_gives_its_state_and_the_cards_stay_whole(
    case: tuple[int, int, bytes, int, float],
) -> None:
    players, max_timeouts, seed, choices, away = case
    rules = Rules(target_score=31, turn_seconds=5, max_timeouts=max_timeouts)
    game = clocked_match(rules, players, seed, choices, away)
    state = GameState.new(rules, players)
    for event in game.events:
        apply(state, event)
        held = all_cards(state)
        assert len(held) == 52 and set(held.values()) == {1}
        assert all(0 <= count <= max_timeouts for count in state.timeouts)
        data = json.loads(json.dumps(event_to_dict(event)))
        assert event_from_dict(type(event).__name__, data) == event
    assert state.to_dict() == game.state.to_dict()
    assert replay(rules, players, game.events).to_dict() == game.state.to_dict()
    assert GameState.from_dict(json.loads(json.dumps(state.to_dict()))) == game.state
    timed_out = [event for event in game.events if isinstance(event, TurnTimedOut)]
    for event in timed_out:  # each is followed by the move of the card it names
        following = game.events[game.events.index(event) + 1]
        assert isinstance(following, CardPlayed) and following.card == event.card
    if away == 1.0:  # everyone walked away: the bots took every seat, the match ended
        assert game.state.phase == OVER
        assert game.state.taken_by_bot == list(range(players))


def test_a_snapshot_from_before_the_clock_existed_still_loads() -> None:
    record = dealt_game(Rules()).state.to_dict()
    for key in ("timeouts", "taken_by_bot", "timed_out", "resigned"):
        del record[key]
    del record["rules"]["turn_seconds"], record["rules"]["max_timeouts"]
    state = GameState.from_dict(record)
    assert state.timeouts == [0, 0] and state.taken_by_bot == [] and state.resigned is None
    assert state.rules.turn_seconds is None
