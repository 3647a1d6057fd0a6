"""Who plays whom: the tables a pairing pass seats from the seeks waiting, with no database
and no clock of its own (docs/matchmaking.md).

Only seeks of one kind sit together: the same number of players, the same ``rated`` and the
same effective rules. Within a kind, seeks are taken in rating order, and a table is a run of
neighbours in that order (two, or four): of every run whose ratings are close enough, the
one whose ratings are closest is seated first, then the next among those left, and so on.

Close enough: the run's spread (highest rating minus lowest) is within the allowance of the
member that has waited longest, ``allowed_gap``: 1 point at once, 0.5 more for every second
waited, at most 20 (reached after 38 s). Ratings are openskill's ``mu`` (25 to start, a
deviation of 8.3); one point is about 50 on the Elo scale, so this is Elo's 50 + 25 a second,
up to 1000. A newcomer is paired at once with a player of nearly its rating, and with anyone
of its kind soon after.

A four-player table is split into the two teams whose rating totals are closest. Which team
takes side 0, and the order of each team's two seats, are drawn from the random generator the
caller gives (``secrets.SystemRandom`` in service): seats 0 and 2 are side 0, 1 and 3 side 1.

With ``bot_after``, a seek that no table took and that has waited that long sits with bots:
every other seat goes to the bot level whose rating is closest to its player's.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby

GAP_START = 1.0  # rating points allowed at once
GAP_PER_SECOND = 0.5  # ...and more for every second waited
GAP_MOST = 20.0


def allowed_gap(waited: float) -> float:
    """The rating spread a seek that has waited ``waited`` seconds accepts at its table."""
    return min(GAP_START + GAP_PER_SECOND * max(0.0, waited), GAP_MOST)


@dataclass(frozen=True, slots=True)
class Seeker:
    """A waiting seek as a pass sees it."""

    seek_id: str
    player_id: str
    rating: float
    waited: float  # seconds since it was made
    kind: str  # players, rated and effective rules together: only one kind sits together
    players: int  # 2 or 4
    bot_after: float | None = None  # seconds; None: humans only


@dataclass(frozen=True, slots=True)
class Sitter:
    """One seat of a table to be made: a seeker's player, or a bot level's."""

    player_id: str
    rating: float
    seek_id: str | None = None  # None: a bot
    bot: str | None = None  # the level, for a bot


@dataclass(frozen=True, slots=True)
class Table:
    """A game to create: its sitters in seat order."""

    sitters: tuple[Sitter, ...]
    kind: str
    with_bots: bool = False
    seek_ids: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        ids = tuple(s.seek_id for s in self.sitters if s.seek_id is not None)
        object.__setattr__(self, "seek_ids", ids)


def human_tables(waiting: Iterable[Seeker], rng: random.Random) -> list[Table]:
    """The tables of seekers alone that this pass seats, closest ratings first in each kind."""
    tables: list[Table] = []
    by_kind = sorted(waiting, key=lambda s: (s.kind, s.rating, s.seek_id))
    for kind, seekers in groupby(by_kind, key=lambda s: s.kind):
        for run in _runs(list(seekers)):
            tables.append(Table(seated([_sitter(s) for s in run], rng), kind))
    return tables


def _runs(seekers: list[Seeker]) -> list[list[Seeker]]:
    """Runs of neighbours in rating order (``seekers`` is sorted), the closest first: every
    run close enough waits in a heap, and a run taken out changes only the few runs that
    reached into it (a pass of a thousand seeks takes milliseconds)."""
    size, count = seekers[0].players, len(seekers)
    after, before = list(range(1, count + 1)), list(range(-1, count - 1))  # a linked list
    taken = [False] * count
    heap: list[tuple[float, float, int, tuple[int, ...]]] = []

    def run_from(first: int) -> tuple[int, ...]:
        members: list[int] = []
        at = first
        while at < count and len(members) < size:
            members.append(at)
            at = after[at]
        return tuple(members)

    def consider(first: int) -> None:
        members = run_from(first)
        if len(members) < size:
            return
        spread = seekers[members[-1]].rating - seekers[members[0]].rating
        longest = max(seekers[at].waited for at in members)
        if spread <= allowed_gap(longest):
            heapq.heappush(heap, (spread, -longest, first, members))

    for first in range(count):
        consider(first)
    runs = []
    while heap:
        *_, first, members = heapq.heappop(heap)
        if taken[first] or run_from(first) != members:
            continue  # a run that changed since: its new self was considered when it did
        runs.append([seekers[at] for at in members])
        for at in members:
            taken[at] = True
        left, right = before[members[0]], after[members[-1]]
        if left >= 0:
            after[left] = right
        if right < count:
            before[right] = left
        for _ in range(size - 1):  # the runs that reached into the ones taken
            if left < 0:
                break
            consider(left)
            left = before[left]
    return runs


def bot_tables(
    waiting: Iterable[Seeker], bots: Mapping[str, tuple[str, float]], rng: random.Random
) -> list[Table]:
    """A table with bots for each seeker whose ``bot_after`` has passed. ``bots``: each
    level's (player id, rating)."""
    tables = []
    for seeker in waiting:
        if seeker.bot_after is None or seeker.waited < seeker.bot_after:
            continue
        level = closest_level(seeker.rating, bots)
        player_id, rating = bots[level]
        others = [Sitter(player_id, rating, bot=level) for _ in range(seeker.players - 1)]
        sitters = seated([_sitter(seeker), *others], rng)
        tables.append(Table(sitters, seeker.kind, with_bots=True))
    return tables


def closest_level(rating: float, bots: Mapping[str, tuple[str, float]]) -> str:
    """The bot level whose rating is closest (the weaker of two as close)."""
    return min(bots, key=lambda level: (abs(bots[level][1] - rating), bots[level][1]))


def seated(sitters: Sequence[Sitter], rng: random.Random) -> tuple[Sitter, ...]:
    """Seat order: two players in a random order; four as the two teams of the closest
    rating totals, the teams' sides and each team's order drawn at random."""
    if len(sitters) == 2:
        first = rng.randrange(2)
        return sitters[first], sitters[1 - first]
    ours, theirs = balanced_teams(sitters)
    if rng.randrange(2):
        ours, theirs = theirs, ours
    ours, theirs = _shuffled(ours, rng), _shuffled(theirs, rng)
    return ours[0], theirs[0], ours[1], theirs[1]


def balanced_teams(sitters: Sequence[Sitter]) -> tuple[list[Sitter], list[Sitter]]:
    """The split of four into two pairs whose rating totals are closest (the first sitter's
    partner is the one that makes it so; the first of two as close)."""
    first, rest = sitters[0], list(sitters[1:])

    def difference(partner: int) -> float:
        team = first.rating + rest[partner].rating
        others = sum(s.rating for i, s in enumerate(rest) if i != partner)
        return abs(team - others)

    partner = min(range(3), key=difference)
    return [first, rest[partner]], [s for i, s in enumerate(rest) if i != partner]


def _shuffled(team: list[Sitter], rng: random.Random) -> list[Sitter]:
    return team if rng.randrange(2) == 0 else [team[1], team[0]]


def _sitter(seeker: Seeker) -> Sitter:
    return Sitter(seeker.player_id, seeker.rating, seek_id=seeker.seek_id)
