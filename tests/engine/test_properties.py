"""Properties over thousands of random matches, 2 and 4 players, random rule options.

Each example deals from the fair shuffle with a random server seed and plays random
cards from the hand of the seat to move, through the public ``Game`` API.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from app.engine import (
    FULL_DECK,
    PLAYING,
    Card,
    CardPlayed,
    Deal,
    Game,
    GameState,
    HandsDealt,
    MatchEnded,
    Play,
    RoundDealt,
    RoundScored,
    Rules,
    SeatView,
    apply,
    event_from_dict,
    event_to_dict,
    observe,
    replay,
)
from app.engine.fairness import shuffled_deck

from .helpers import all_cards

rules_strategy = st.builds(
    Rules,
    target_score=st.one_of(st.integers(1, 60), st.just(101)),
    seven_diamonds=st.sampled_from(["wild", "sum_le_10", "jack", "plain"]),
    seven_on_floor=st.sampled_from(["wild", "plain"]),
    jack_basra=st.sampled_from(["lone_jack", "off"]),
    initial_floor=st.sampled_from(["bury", "allow"]),
    majority_tie=st.sampled_from(["none", "carry_over"]),
    basra_on_final_play=st.booleans(),
    end_tie=st.sampled_from(["play_on", "draw"]),
    majority_points=st.sampled_from([0, 1, 30, 45]),
    basra_points=st.sampled_from([0, 5, 10]),
    jack_basra_points=st.sampled_from([0, 30]),
)
# A match of 0-point rules never ends, and one of 1-point rules to 101 takes a hundred rounds:
# stop it here. Each property holds event by event or round by round, so a longer match repeats
# what its first rounds check; four matches in five end sooner, and at 40 rounds the matches cut
# short took three fifths of these tests' time (the engine's own bound is in test_match_bound.py).
MAX_ROUNDS = 12
PLAYERS = pytest.mark.parametrize("players", [2, 4])


@dataclass
class Match:
    game: Game
    commands: list[Deal | Play]
    snapshots: list[tuple[int, GameState]]  # (events so far, a copy of the state then)


def play(rules: Rules, players: int, seed: bytes, choices: int, snapshots: bool) -> Match:
    """A random match, recording each command and, if asked, the state after it."""
    game = Game(rules, players)
    rng = random.Random(choices)
    match = Match(game, [], [])
    while game.needs_deal and game.state.round < MAX_ROUNDS:
        command: Deal | Play = Deal(shuffled_deck(seed, "", game.state.round + 1))
        while True:
            match.commands.append(command)
            game.execute(command)
            if snapshots:
                match.snapshots.append((len(game.events), game.state.copy()))
            state = game.state
            if state.phase != PLAYING:
                break
            assert state.turn is not None
            hand = state.hands[state.turn]
            command = Play(state.turn, hand[rng.randrange(len(hand))])
    return match


matches = st.tuples(rules_strategy, st.binary(min_size=32, max_size=32), st.integers(0, 2**32))
# In CI, 2 player counts x (3 cheap tests x 200 + 4 heavier ones x 100 + 60 + 30) = about 2,200
# random matches (some 12,000 rounds) per run; the fast loop plays a fifth of them.
PROPERTY = settings(max_examples=examples(200), deadline=None)
HEAVY_PROPERTY = settings(max_examples=examples(100), deadline=None)


@PROPERTY
@PLAYERS
@given(case=matches)
def test_the_52_cards_are_held_once_each_after_every_event(
    players: int, case: tuple[Rules, bytes, int]
) -> None:
    rules, seed, choices = case
    game = play(rules, players, seed, choices, snapshots=False).game
    state = GameState.new(rules, players)
    for event in game.events:
        apply(state, event)
        if isinstance(event, RoundDealt | CardPlayed | HandsDealt | RoundScored):
            held = all_cards(state)
            assert len(held) == 52 and set(held.values()) == {1}, event


@HEAVY_PROPERTY
@PLAYERS
@given(case=matches)
def test_replaying_the_events_gives_the_live_state_at_every_step(
    players: int, case: tuple[Rules, bytes, int]
) -> None:
    rules, seed, choices = case
    match = play(rules, players, seed, choices, snapshots=True)
    state = GameState.new(rules, players)
    applied = 0
    for count, live in match.snapshots:
        for event in match.game.events[applied:count]:
            apply(state, event)
        applied = count
        assert state == live
        if live.phase != PLAYING:  # at each round's end, compare the full records too
            assert state.to_dict() == live.to_dict()
    assert replay(rules, players, match.game.events).to_dict() == match.game.state.to_dict()


@HEAVY_PROPERTY
@PLAYERS
@given(case=matches)
def test_the_same_seed_and_commands_give_the_same_game(
    players: int, case: tuple[Rules, bytes, int]
) -> None:
    rules, seed, choices = case
    first = play(rules, players, seed, choices, snapshots=False)
    second = play(rules, players, seed, choices, snapshots=False)
    assert second.commands == first.commands
    assert second.game.events == first.game.events
    again = Game(rules, players)
    for command in first.commands:
        again.execute(command)
    assert again.events == first.game.events
    assert again.state.to_dict() == first.game.state.to_dict()


@HEAVY_PROPERTY
@PLAYERS
@given(case=matches)
def test_events_and_states_survive_a_json_round_trip(
    players: int, case: tuple[Rules, bytes, int]
) -> None:
    rules, seed, choices = case
    match = play(rules, players, seed, choices, snapshots=True)
    for event in match.game.events:
        data = json.loads(json.dumps(event_to_dict(event)))
        assert event_from_dict(type(event).__name__, data) == event
    for _, live in match.snapshots[:: max(1, len(match.snapshots) // 4)]:
        record = live.to_dict()
        restored = GameState.from_dict(json.loads(json.dumps(record)))
        assert restored == live
        assert restored.to_dict() == record


@settings(max_examples=examples(60), deadline=None)
@PLAYERS
@given(case=matches, stop=st.integers(0, 10**6))
def test_a_state_restored_from_its_dict_plays_on_exactly_like_the_live_one(
    players: int, case: tuple[Rules, bytes, int], stop: int
) -> None:
    rules, seed, choices = case
    match = play(rules, players, seed, choices, snapshots=False)
    commands = match.commands
    cut = stop % len(commands)
    head = Game(rules, players)
    for command in commands[:cut]:
        head.execute(command)
    restored = Game(rules, players)
    restored.state = GameState.from_dict(json.loads(json.dumps(head.state.to_dict())))
    tail = [event for command in commands[cut:] for event in restored.execute(command)]
    assert tail == match.game.events[len(head.events) :]
    assert restored.state.to_dict() == match.game.state.to_dict()


@PROPERTY
@PLAYERS
@given(case=matches)
def test_match_totals_are_the_sum_of_round_points_and_the_winner_is_strictly_highest(
    players: int, case: tuple[Rules, bytes, int]
) -> None:
    rules, seed, choices = case
    game = play(rules, players, seed, choices, snapshots=False).game
    state = game.state
    scored = [event for event in game.events if isinstance(event, RoundScored)]
    assert [r.points for r in state.rounds] == [event.points for event in scored]
    assert state.scores == [sum(r.points[side] for r in state.rounds) for side in (0, 1)]
    ended = [event for event in game.events if isinstance(event, MatchEnded)]
    if not game.is_over:
        assert not ended
        assert len(state.rounds) == MAX_ROUNDS
        return
    assert ended == [game.events[-1]]
    top = max(state.scores)
    assert top >= rules.target_score
    if state.winner is None:
        assert rules.end_tie == "draw"
        assert state.scores[0] == state.scores[1]
    else:
        assert state.scores[state.winner] == top > state.scores[1 - state.winner]
    # the match ended at the first round after which it could end
    running = [0, 0]
    for result in state.rounds[:-1]:
        running = [running[s] + result.points[s] for s in (0, 1)]
        if max(running) >= rules.target_score:
            assert running[0] == running[1] and rules.end_tie == "play_on"


@PROPERTY
@PLAYERS
@given(case=matches)
def test_every_round_plays_all_48_cards_in_the_right_number_of_deals(
    players: int, case: tuple[Rules, bytes, int]
) -> None:
    rules, seed, choices = case
    game = play(rules, players, seed, choices, snapshots=False).game
    per_round: dict[int, list[object]] = {}
    current = 0
    for event in game.events:
        if isinstance(event, RoundDealt):
            current = event.round
        per_round.setdefault(current, []).append(event)
    for events in per_round.values():
        plays = [e for e in events if isinstance(e, CardPlayed)]
        assert len(plays) == 48
        assert sum(isinstance(e, HandsDealt) for e in events) == (5 if players == 2 else 2)
        [result] = [e for e in events if isinstance(e, RoundScored)]
        for side in (0, 1):
            made = [p for p in plays if p.seat % 2 == side]
            assert result.basras[side] == sum(p.basra == "basra" for p in made)
            assert result.jack_basras[side] == sum(p.basra == "jack_basra" for p in made)
        discarded = len(result.leftover) if result.leftover_side is None else 0
        assert sum(result.cards) + discarded == 52
        last = plays[-1]
        if not rules.basra_on_final_play:
            assert last.basra != "basra"
        first = plays[0]
        dealt = events[0]
        assert isinstance(dealt, RoundDealt)
        assert first.seat == (dealt.dealer + 1) % players
        assert sorted(dealt.deck) == list(FULL_DECK)


def view_cards(view: SeatView) -> set[Card]:
    found = {*view.floor, *view.hand}
    for move in view.round_moves:
        found.add(move.card)
        found.update(move.captured)
    for legal in view.legal_moves:
        found.add(legal.card)
        found.update(legal.captured)
    return found


def view_codes(data: dict[str, Any]) -> set[str]:
    text = json.dumps(data)
    return {str(card) for card in FULL_DECK if f'"{card}"' in text}


@settings(max_examples=examples(30), deadline=None)
@PLAYERS
@given(case=matches)
def test_a_seats_view_never_holds_a_card_that_seat_cannot_know(
    players: int, case: tuple[Rules, bytes, int]
) -> None:
    rules, seed, choices = case
    game = Game(rules, players)
    rng = random.Random(choices)
    seen: set[Card] = set()  # every card that has lain face up this round
    while game.needs_deal and game.state.round < 3:
        game.deal(shuffled_deck(seed, "", game.state.round + 1))
        seen = set(game.state.floor)
        while game.state.phase == PLAYING:
            state = game.state
            for seat in (*range(players), None):
                knowable = seen | (set(state.hands[seat]) if seat is not None else set())
                view = observe(state, seat)
                assert view_cards(view) <= knowable
                assert view_codes(view.to_dict()) <= {str(card) for card in knowable}
            assert state.turn is not None
            hand = state.hands[state.turn]
            for event in game.play(state.turn, hand[rng.randrange(len(hand))]):
                if isinstance(event, CardPlayed):
                    seen.add(event.card)
                    seen.update(event.captured)


@HEAVY_PROPERTY
@PLAYERS
@given(case=matches)
def test_the_legal_moves_a_seat_is_shown_are_what_each_card_then_does(
    players: int, case: tuple[Rules, bytes, int]
) -> None:
    rules, seed, choices = case
    game = Game(rules, players)
    rng = random.Random(choices)
    while game.needs_deal and game.state.round < 3:
        game.deal(shuffled_deck(seed, "", game.state.round + 1))
        while game.state.phase == PLAYING:
            seat = game.state.turn
            assert seat is not None
            legal = observe(game.state, seat).legal_moves
            assert sorted(str(c.card) for c in legal) == sorted(map(str, game.state.hands[seat]))
            chosen = legal[rng.randrange(len(legal))]
            played = next(e for e in game.play(seat, chosen.card) if isinstance(e, CardPlayed))
            assert (played.card, played.captured, played.basra) == (
                chosen.card, chosen.captured, chosen.basra)  # fmt: skip
