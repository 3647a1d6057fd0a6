"""End of a round and of the match: RULES.md sections 5 and 6, and the scoring examples
at the end of section 8. Positions are built by hand a card before the round ends."""

from __future__ import annotations

import random

import pytest

from app.engine import (
    BASRA,
    Card,
    CardPlayed,
    Game,
    GameState,
    MatchEnded,
    RoundScored,
    Rules,
    observe,
)
from app.engine.fairness import shuffled_deck

from .helpers import all_cards, codes, play_round, position


def last_play(state: GameState, seat: int, card: str) -> tuple[Game, list[object]]:
    """Play the round's last card from a hand-made position."""
    game = Game(state.rules, state.players)
    game.state = state
    events: list[object] = list(game.play(seat, Card.parse(card)))
    return game, events


def scored(events: list[object]) -> RoundScored:
    found = [event for event in events if isinstance(event, RoundScored)]
    assert len(found) == 1
    return found[0]


def ended(events: list[object]) -> MatchEnded | None:
    found = [event for event in events if isinstance(event, MatchEnded)]
    return found[0] if found else None


def final_trail(**options: object) -> GameState:
    """Seat 1 holds the last card, KH, onto an empty floor; seat 1 captured last."""
    defaults: dict[str, object] = {"hands": ["", "KH"], "turn": 1, "last_capturer": 1}
    defaults.update(options)
    return position(**defaults)  # type: ignore[arg-type]


def test_rules_example_28_and_24_cards_with_basras_score_80_and_10() -> None:
    state = final_trail(pile_sizes=(28, 23), basras=(2, 1), jack_basras=(1, 0))
    game, events = last_play(state, 1, "KH")
    result = scored(events)
    assert result.cards == (28, 24)
    assert result.majority == 0
    assert result.points == (80, 10)
    assert game.state.scores == [80, 10]


def test_rules_example_a_26_26_tie_gives_nobody_the_30() -> None:
    state = final_trail(pile_sizes=(26, 25))
    _, events = last_play(state, 1, "KH")
    result = scored(events)
    assert result.cards == (26, 26)
    assert result.majority is None
    assert result.points == (0, 0)


def test_rules_example_totals_95_99_and_a_round_of_20_10_make_115_109_and_a_wins() -> None:
    state = final_trail(pile_sizes=(26, 25), basras=(2, 1), scores=(95, 99))
    game, events = last_play(state, 1, "KH")
    assert scored(events).points == (20, 10)
    assert game.state.scores == [115, 109]
    assert ended(events) == MatchEnded(0)
    assert game.is_over
    assert game.state.winner == 0
    assert game.state.turn is None


@pytest.mark.parametrize(
    ("points", "basras", "jack_basras", "sizes", "expected"),
    [
        ((30, 10, 30), (0, 0), (0, 0), (27, 24), (30, 0)),
        ((30, 10, 30), (0, 3), (0, 0), (24, 27), (0, 60)),
        ((30, 10, 30), (1, 1), (1, 1), (27, 24), (70, 40)),
        ((5, 3, 7), (2, 1), (1, 2), (30, 21), (18, 17)),
        ((0, 0, 0), (4, 4), (1, 1), (30, 21), (0, 0)),
        ((30, 10, 30), (0, 0), (0, 0), (25, 26), (0, 30)),
    ],
    ids=["majority", "basras", "all-kinds", "custom-points", "all-zero", "b-majority"],
)
def test_round_points_are_majority_plus_basras_plus_jack_basras(
    points: tuple[int, int, int],
    basras: tuple[int, int],
    jack_basras: tuple[int, int],
    sizes: tuple[int, int],
    expected: tuple[int, int],
) -> None:
    rules = Rules(majority_points=points[0], basra_points=points[1], jack_basra_points=points[2])
    state = final_trail(rules=rules, pile_sizes=sizes, basras=basras, jack_basras=jack_basras)
    _, events = last_play(state, 1, "KH")
    assert scored(events).points == expected


def test_the_floor_left_at_the_end_goes_to_the_last_capturer_and_is_no_basra() -> None:
    state = position(hands=["", "5C"], floor="QS KH", turn=1, last_capturer=0, pile_sizes=(20, 29))
    game, events = last_play(state, 1, "5C")
    result = scored(events)
    assert codes(result.leftover) == ["QS", "KH", "5C"]
    assert result.leftover_side == 0
    assert result.cards == (23, 29)
    assert result.basras == (0, 0)
    assert game.state.floor == []
    assert codes(game.state.piles[0][-3:]) == ["QS", "KH", "5C"]
    assert all(count == 1 for count in all_cards(game.state).values())
    assert sum(all_cards(game.state).values()) == 52


def test_with_four_players_the_leftover_goes_to_the_last_capturers_team() -> None:
    state = position(
        hands=["", "", "", "5C"], floor="QS", turn=3, last_capturer=2, pile_sizes=(20, 30)
    )
    _, events = last_play(state, 3, "5C")
    result = scored(events)
    assert result.leftover_side == 0
    assert result.cards == (22, 30)


def test_a_capture_with_the_last_card_makes_its_seat_the_last_capturer() -> None:
    state = position(hands=["", "5S"], floor="5H 9C", turn=1, last_capturer=0, pile_sizes=(25, 24))
    _, events = last_play(state, 1, "5S")
    result = scored(events)
    assert codes(result.leftover) == ["9C"]
    assert result.leftover_side == 1
    assert result.cards == (25, 27)
    assert result.majority == 1


def test_if_nobody_captured_the_leftover_is_discarded() -> None:
    state = position(
        hands=["", "5C"], floor="QS KH", turn=1, last_capturer=None, pile_sizes=(25, 24)
    )
    game, events = last_play(state, 1, "5C")
    result = scored(events)
    assert result.leftover_side is None
    assert result.cards == (25, 24)
    assert codes(game.state.discarded) == ["QS", "KH", "5C"]
    assert sum(all_cards(game.state).values()) == 52


@pytest.mark.parametrize(
    ("on_final", "counted"), [(True, 1), (False, 0)], ids=["counts", "does-not-count"]
)
def test_a_basra_with_the_rounds_last_card_follows_basra_on_final_play(
    on_final: bool, counted: int
) -> None:
    rules = Rules(basra_on_final_play=on_final)
    state = position(
        rules=rules, hands=["", "5D"], floor="5C 2H 3S", turn=1, last_capturer=0,
        pile_sizes=(25, 23),
    )  # fmt: skip
    assert observe(state, 1).legal_moves[0].basra == (BASRA if on_final else None)
    _, events = last_play(state, 1, "5D")
    played = events[0]
    assert isinstance(played, CardPlayed)
    assert played.basra == (BASRA if on_final else None)
    assert scored(events).basras == (0, counted)


def test_basra_on_final_play_false_still_counts_a_jack_basra_on_the_last_card() -> None:
    """Literal reading of 4.3: the option names a basra, and a jack basra is another kind."""
    state = position(
        rules=Rules(basra_on_final_play=False), hands=["", "JS"], floor="JH", turn=1,
        last_capturer=0, pile_sizes=(25, 25),
    )  # fmt: skip
    _, events = last_play(state, 1, "JS")
    assert scored(events).jack_basras == (0, 1)


def test_basra_on_final_play_false_counts_a_basra_before_a_redeal() -> None:
    state = position(
        rules=Rules(basra_on_final_play=False), hands=["", "5D"], floor="5C 2H 3S",
        stock="AS 2S 4S 6S 7S 8S 9S 10S", turn=1, last_capturer=0, pile_sizes=(20, 20),
    )  # fmt: skip
    game, events = last_play(state, 1, "5D")
    assert events[0].basra == BASRA  # type: ignore[attr-defined]
    assert game.state.basras == [0, 1]


def play_one_round(game: Game, seed: int) -> None:
    game.deal(shuffled_deck(bytes(32), "", game.state.round + 1))
    play_round(game, random.Random(seed))


def test_a_tied_majority_carries_over_to_the_next_round_under_carry_over() -> None:
    rules = Rules(majority_tie="carry_over", target_score=10000)
    state = final_trail(rules=rules, pile_sizes=(26, 25), majority_carry=30)
    game, events = last_play(state, 1, "KH")
    assert scored(events).majority is None
    assert game.state.majority_carry == 60  # two tied rounds in a row
    carry, majorities = 60, 0
    for seed in range(40):
        play_one_round(game, seed)
        result = game.state.rounds[-1]
        for side in (0, 1):
            award = 30 + carry if result.majority == side else 0
            basras = result.basras[side] * 10 + result.jack_basras[side] * 30
            assert result.points[side] == basras + award
        carry = carry + 30 if result.majority is None else 0
        majorities += result.majority is not None
        assert game.state.majority_carry == carry
    assert majorities > 0


def test_a_carried_award_goes_to_the_side_with_the_next_majority() -> None:
    rules = Rules(majority_tie="carry_over")
    state = final_trail(rules=rules, pile_sizes=(27, 24), majority_carry=60)
    _, events = last_play(state, 1, "KH")
    assert scored(events).points == (90, 0)


def test_under_none_a_tied_majority_is_simply_lost() -> None:
    state = final_trail(pile_sizes=(26, 25))
    game, _ = last_play(state, 1, "KH")
    assert game.state.majority_carry == 0


@pytest.mark.parametrize(
    ("scores", "basras", "winner"),
    [
        ((95, 99), (2, 1), 0),
        ((95, 99), (1, 2), 1),
        ((100, 50), (1, 0), 0),
        ((91, 0), (1, 0), 0),
        ((50, 91), (0, 1), 1),
        ((150, 160), (0, 0), 1),
    ],
    ids=["both-cross-a-higher", "both-cross-b-higher", "one-crosses", "exactly-101",
         "b-reaches-101", "already-over-target"],
)  # fmt: skip
def test_the_strictly_highest_total_wins_once_a_side_reaches_the_target(
    scores: tuple[int, int], basras: tuple[int, int], winner: int
) -> None:
    state = final_trail(pile_sizes=(26, 25), basras=basras, scores=scores)
    game, events = last_play(state, 1, "KH")
    assert ended(events) == MatchEnded(winner)
    assert game.state.winner == winner
    assert game.state.scores[winner] > game.state.scores[1 - winner]


@pytest.mark.parametrize(
    ("scores", "basras"),
    [((70, 50), (1, 0)), ((90, 90), (1, 1)), ((0, 0), (0, 0))],
    ids=["below-target", "tied-below-target", "nothing-scored"],
)
def test_the_match_goes_on_while_nobody_has_reached_the_target(
    scores: tuple[int, int], basras: tuple[int, int]
) -> None:
    state = final_trail(pile_sizes=(26, 25), basras=basras, scores=scores)
    game, events = last_play(state, 1, "KH")
    assert ended(events) is None
    assert game.needs_deal
    assert game.state.winner is None


def test_a_top_tie_at_the_target_plays_on_by_default() -> None:
    state = final_trail(pile_sizes=(26, 25), basras=(1, 0), scores=(91, 101))
    game, events = last_play(state, 1, "KH")
    assert game.state.scores == [101, 101]
    assert ended(events) is None
    assert game.needs_deal
    rounds = 0
    while not game.is_over:
        rounds += 1
        play_one_round(game, rounds)
        assert rounds < 100
    totals = game.state.scores
    winner = game.state.winner
    assert winner is not None
    assert totals[winner] > totals[1 - winner]


def test_a_top_tie_at_the_target_is_a_draw_under_draw() -> None:
    rules = Rules(end_tie="draw")
    state = final_trail(rules=rules, pile_sizes=(26, 25), basras=(1, 0), scores=(91, 101))
    game, events = last_play(state, 1, "KH")
    assert ended(events) == MatchEnded(None)
    assert game.is_over
    assert game.state.winner is None


def test_a_lower_target_score_ends_the_match_sooner() -> None:
    state = final_trail(rules=Rules(target_score=30), pile_sizes=(27, 24))
    _, events = last_play(state, 1, "KH")
    assert ended(events) == MatchEnded(0)


def test_captures_of_both_seats_of_a_team_go_to_one_pile() -> None:
    state = position(
        hands=["9S", "", "5D", ""], floor="5C 2H 3S 9C", stock="AS 2S 4S 6S",
        turn=2, pile_sizes=(21, 21),
    )  # fmt: skip
    game = Game(state.rules, 4)
    game.state = state
    game.play(2, Card.parse("5D"))
    assert game.state.piles[0][-4:] == [Card.parse(c) for c in ("5C", "2H", "3S", "5D")]
    assert game.state.last_capturer == 2
    assert game.state.turn == 3
    assert game.state.basras == [0, 0]


def test_basras_of_both_seats_of_a_team_are_one_tally() -> None:
    state = position(
        hands=["9S 4D", "2C KD", "2H KH", "KC QH"], floor="AH 5S 9D 3C", stock="AS 2S 4S 6S",
        pile_sizes=(18, 18),
    )  # fmt: skip
    game = Game(state.rules, 4)
    game.state = state
    for seat, card in enumerate(("9S", "2C", "2H")):  # 2C is trailed on the emptied floor
        game.play(seat, Card.parse(card))
    assert game.state.basras == [2, 0]
    assert game.state.last_capturer == 2 and game.state.floor == []
    assert codes(game.state.piles[0][-2:]) == ["2C", "2H"]
