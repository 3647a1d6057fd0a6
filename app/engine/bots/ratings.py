"""Each bot level's rating, fitted to matches between the levels.

A Bradley-Terry fit (the model behind Elo): level i beats level j with odds
``strength[i] / strength[j]``, the strengths that make the matches played most likely,
found by the usual minorise-maximise iteration; a draw counts half a win to each. On the
Elo scale a rating is ``400 * log10(strength)``, anchored so that ``random`` is 1000: 200
points apart, the stronger wins about three matches in four.

``RATINGS`` holds the fit of the table in docs/bots.md (``bench/bots.py`` prints it).

``PLAYER_RATINGS`` is the one calibration of those onto the players' scale (openskill's mu,
docs/ratings.md): a new player's 25 stands for 1500 Elo, and openskill's beta (25/6) for the
200 Elo points at which the stronger wins three matches in four, so a point is 48 Elo. A bot
level's rating is that value for good: no game moves it (a bot learns nothing from a game,
and a rating that moved could be pumped by players losing to it on purpose).
"""

from __future__ import annotations

from collections.abc import Iterable
from math import log10

ANCHOR, ANCHOR_RATING = "random", 1000.0

RATINGS: dict[str, int] = {"random": 1000, "greedy": 1413, "skilled": 1550, "expert": 1814}
NEW_PLAYER_ELO, NEW_PLAYER_RATING = 1500, 25.0
ELO_PER_POINT = 200 / (25 / 6)


def on_players_scale(elo: float) -> float:
    """An Elo rating on the players' scale, to a tenth."""
    return round(NEW_PLAYER_RATING + (elo - NEW_PLAYER_ELO) / ELO_PER_POINT, 1)


PLAYER_RATINGS: dict[str, float] = {level: on_players_scale(elo) for level, elo in RATINGS.items()}


def fit(pairings: Iterable[tuple[str, str, float, int]], rounds: int = 2000) -> dict[str, float]:
    """Ratings from ``(a, b, a's wins, matches)`` tuples (draws as half wins); the levels
    must be joined by the pairings, and none may win or lose every match it played."""
    wins: dict[str, float] = {}
    games: dict[tuple[str, str], int] = {}
    for a, b, won, matches in pairings:
        wins[a] = wins.get(a, 0.0) + won
        wins[b] = wins.get(b, 0.0) + matches - won
        games[(a, b)] = games.get((a, b), 0) + matches
    levels = sorted(wins)
    strength = dict.fromkeys(levels, 1.0)
    for _ in range(rounds):
        for level in levels:
            played = sum(
                n / (strength[a] + strength[b]) for (a, b), n in games.items() if level in (a, b)
            )
            strength[level] = wins[level] / played
        norm = strength.get(ANCHOR, 1.0)
        strength = {level: s / norm for level, s in strength.items()}
    return {level: ANCHOR_RATING + 400 * log10(s) for level, s in strength.items()}
