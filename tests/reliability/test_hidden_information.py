"""Hidden information: over many random games played through the API (bots, humans playing random
cards, spectators, wrong moves on purpose), no view, event feed, move list, live stream record or
error shows a card its caller cannot know, and no log line shows a token or a card.

Every answer is kept with the game version it describes. Once the game is over its whole log is
open: folding it through the engine gives every hand and the stock at every version, so each
answer is checked against exactly what was hidden from that caller at that moment.
"""

from __future__ import annotations

import logging
import random
import secrets
from dataclasses import dataclass, field
from typing import Any

import pytest
from api.sse import LiveReader, records

from app.engine import EVENT_TYPES, GameState, Rules, apply, event_from_dict
from app.engine.cards import FULL_DECK, codes
from app.engine.rules import CHOICES

from .support import assert_problem, bearer, card_codes, write_report

ALL_CARDS = [str(card) for card in FULL_DECK]


@dataclass
class Answer:
    seat: int | None  # None: a spectator
    version: int
    body: Any
    sent: str | None = None  # a card the caller itself named in the request


@dataclass
class Tally:
    games: int = 0
    requests: int = 0
    answers_checked: int = 0
    probes: int = 0
    stream_records: int = 0
    leaks: list[str] = field(default_factory=list)


def _random_players(rng: random.Random) -> tuple[list[dict[str, Any]], bool]:
    seats = rng.choice([2, 4])
    humans = rng.randint(1, 2 if seats == 2 else 3)
    kinds: list[dict[str, Any]] = [
        {"name": f"Human {i}", "seed": secrets.token_hex(4)} for i in range(humans)
    ]
    kinds += [
        {"bot": rng.choice(["random", "greedy", "greedy", "expert"])} for _ in range(seats - humans)
    ]
    rng.shuffle(kinds)
    late = humans > 1 and rng.random() < 0.4  # one human joins after the creation
    if late:
        index = next(i for i, kind in enumerate(kinds) if "name" in kind)
        kinds[index] = {"open": True}
    return kinds, late


def _random_rules(rng: random.Random) -> dict[str, Any]:
    rules: dict[str, Any] = {"target_score": rng.choice([1, 8, 20, 45])}  # 1 to ~3 rounds
    for name, options in CHOICES.items():
        if rng.random() < 0.5:
            rules[name] = rng.choice(options)
    return rules


class Player:
    """Drives one random game and keeps every answer with the version it describes."""

    def __init__(self, client: Any, rng: random.Random, tally: Tally) -> None:
        self.client, self.rng, self.tally = client, rng, tally
        self.answers: list[Answer] = []
        self.tokens: dict[int, str] = {}
        self.game_id = ""
        self.stream: LiveReader | None = None  # a spectator following the game live

    def request(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> Any:
        headers = {**kwargs.pop("headers", {}), **(bearer(token) if token else {})}
        self.tally.requests += 1
        return getattr(self.client, method)(path, headers=headers, **kwargs)

    def keep(self, seat: int | None, version: int, response: Any, sent: str | None = None) -> Any:
        body = response.get_json()
        self.answers.append(Answer(seat, version, body, sent))
        return body

    def play(self) -> None:
        players, late = _random_players(self.rng)
        response = self.request(
            "post", "/games", json={"players": players, "rules": _random_rules(self.rng)}
        )
        assert response.status_code == 201, response.get_json()
        created = response.get_json()
        self.game_id = created["id"]
        self.tokens = {s["seat"]: s["token"] for s in created["seats"] if "token" in s}
        creator = min(self.tokens) if self.tokens else None
        self.keep(creator, created["state"]["version"], response)
        self.stream = LiveReader(self.client, f"/games/{self.game_id}/stream")
        if late:
            invite = created["invite"]  # the game is not public: joining needs it
            joined = self.request(
                "post", f"/games/{self.game_id}/join", json={"name": "Late", "invite": invite}
            )
            assert joined.status_code == 201, joined.get_json()
            body = self.keep(None, joined.get_json()["state"]["version"], joined)
            self.tokens[body["seat"]] = body["token"]
            self.answers[-1].seat = body["seat"]
        for _ in range(600):
            if not self.turn():
                return
        raise AssertionError(f"game {self.game_id} did not finish")

    def turn(self) -> bool:
        """Look at everything as everyone, try some wrong moves, play one card."""
        path = f"/games/{self.game_id}"
        public = self.keep(None, -1, self.request("get", path))
        version = public["version"]
        self.answers[-1].version = version
        if public["status"] == "finished":
            return False
        views = {
            seat: self.keep(seat, version, self.request("get", path, token))
            for seat, token in self.tokens.items()
        }
        self.keep(None, version, self.request("get", f"{path}/events"))
        seat = self.rng.choice(list(self.tokens))
        self.keep(seat, version, self.request("get", f"{path}/events", self.tokens[seat]))
        self.keep(None, version, self.request("get", f"{path}/moves"))
        turn = public["turn"]
        assert turn in self.tokens, "bots must have moved inside the previous request"
        self.probe(version, turn, views[turn]["hand"])
        self.move(turn, views[turn]["hand"])
        return True

    def probe(self, version: int, turn: int, hand: list[str]) -> None:
        """Wrong moves: the refusal must not tell where a card is."""
        path = f"/games/{self.game_id}/moves"
        others = [seat for seat in self.tokens if seat != turn]
        if others and self.rng.random() < 0.3:
            other = self.rng.choice(others)
            card = self.rng.choice(ALL_CARDS)
            response = self.request("post", path, self.tokens[other], json={"card": card})
            assert_problem(response, 409, "not_your_turn")
            self.keep(other, version, response, sent=card)
            self.tally.probes += 1
        if self.rng.random() < 0.3:
            details = set()
            for card in self.rng.sample([c for c in ALL_CARDS if c not in hand], 2):
                response = self.request("post", path, self.tokens[turn], json={"card": card})
                body = assert_problem(response, 422, "card_not_in_hand")
                self.keep(turn, version, response, sent=card)
                details.add(body["detail"].replace(card, "<card>"))
                self.tally.probes += 1
            assert len(details) == 1, f"the refusal differs with where the card is: {details}"
        if self.rng.random() < 0.1:
            response = self.request("post", path, "not-a-token", json={"card": hand[0]})
            self.keep(None, version, response, sent=hand[0])

    def move(self, seat: int, hand: list[str]) -> None:
        card = self.rng.choice(hand)
        sent = card.lower() if self.rng.random() < 0.2 else card
        headers = {"Idempotency-Key": secrets.token_hex(8)} if self.rng.random() < 0.3 else {}
        path = f"/games/{self.game_id}/moves"
        response = self.request(
            "post", path, self.tokens[seat], json={"card": sent}, headers=headers
        )
        assert response.status_code == 201, response.get_json()
        body = self.keep(seat, response.get_json()["state"]["version"], response)
        if headers and self.rng.random() < 0.5:  # a retry answers the first answer again
            again = self.request(
                "post", path, self.tokens[seat], json={"card": sent}, headers=headers
            )
            assert (again.status_code, again.get_json()) == (201, body)

    def check(self) -> None:
        """Fold the now-open log and hold every kept answer to what its caller could know."""
        path = f"/games/{self.game_id}"
        events = self.request("get", f"{path}/events?limit=1000").get_json()["events"]
        hidden = _hidden_by_version(events)
        seq_of_move = {e["data"]["n"]: e["seq"] for e in events if e["type"] == "CardPlayed"}
        self.keep_stream()
        for answer in self.answers:
            self.tally.answers_checked += 1
            viewer = answer.seat if answer.seat is not None else -1
            sent = {answer.sent.upper()} if answer.sent else set()
            for code, seq in _dated_codes(answer.body, answer.version, seq_of_move):
                if code in hidden[seq][viewer] - sent:
                    self.tally.leaks.append(
                        f"game {self.game_id} v{answer.version} seat "
                        f"{answer.seat}: {code} (hidden at {seq}) in "
                        f"{str(answer.body)[:300]}"
                    )
        verdict = self.request("get", f"{path}/verify").get_json()
        assert verdict["ok"], verdict

    def keep_stream(self) -> None:
        """The records the spectator's stream got while the game was on: each speaks of the
        version it is, and together they are the whole stream (nothing missed)."""
        assert self.stream is not None
        assert self.stream.ended.wait(10), "the stream did not end after the game"
        got = [self.stream.received.get_nowait() for _ in range(self.stream.received.qsize())]
        whole = self.client.get(f"/games/{self.game_id}/stream").get_data(as_text=True)
        assert got == records(whole)
        for record in got:
            secret = {"hand", "hands", "deck", "stock", "legal_moves", "seed", "server_seed"}
            assert not secret & set(record.data), record
            self.answers.append(Answer(None, record.id, {record.event: record.data}))
            self.tally.stream_records += 1


def _dated_codes(body: Any, version: int, seq_of_move: dict[int, int]) -> list[tuple[str, int]]:
    """Every card code in an answer with the version it speaks of: an event or a move speaks of
    its own time (a card played last round may be in a hand again now), the rest of now."""
    found: list[tuple[str, int]] = []

    def walk(item: Any, seq: int) -> None:
        if isinstance(item, dict):
            if {"seq", "type", "data"} <= set(item):
                seq = item["seq"]
            elif {"n", "round", "seat", "card", "captured"} <= set(item):
                seq = seq_of_move[item["n"]]
            for key, inner in item.items():
                if key != "token":
                    walk(inner, seq)
        elif isinstance(item, list):
            for inner in item:
                walk(inner, seq)
        elif isinstance(item, str):
            found.extend((code, seq) for code in card_codes(item))

    walk(body, version)
    return found


def _hidden_by_version(events: list[dict[str, Any]]) -> dict[int, dict[int, set[str]]]:
    """For each version: per seat (-1: a spectator) the cards in other hands and in the stock."""
    created = events[0]["data"]
    players = len(created["players"])
    state = GameState.new(Rules.from_dict(created["rules"]), players)
    hidden: dict[int, dict[int, set[str]]] = {}
    for event in events:
        if event["type"] in EVENT_TYPES:
            apply(state, event_from_dict(event["type"], event["data"]))
        hands = [set(codes(hand)) for hand in state.hands]
        stock = set(codes(state.stock))
        everyone = stock.union(*hands)
        hidden[event["seq"]] = {
            -1: everyone,
            **{seat: everyone - hands[seat] for seat in range(players)},
        }
    return hidden


def _assert_logs_are_clean(records: list[logging.LogRecord], tokens: set[str]) -> None:
    for record in records:
        line = record.getMessage() + (record.exc_text or "")
        assert not any(token in line for token in tokens), f"a token in the log: {line[:300]}"
        assert not card_codes(line), f"a card in the log: {line[:300]}"


def play_games(client: Any, games: int, seed: int) -> tuple[Tally, list[Player]]:
    tally = Tally()
    rng = random.Random(seed)
    players = []
    for _ in range(games):
        player = Player(client, rng, tally)
        players.append(player)
        player.play()
        player.check()
        tally.games += 1
    return tally, players


def _run(client: Any, backend: str, caplog: Any, games: int, name: str) -> None:
    caplog.set_level(logging.DEBUG)
    rng_seed = 20260 + games
    tally, players = play_games(client, games, rng_seed)
    assert tally.leaks == [], "\n".join(tally.leaks[:5])
    tokens = {token for player in players for token in player.tokens.values()}
    _assert_logs_are_clean(caplog.records, tokens)
    write_report(
        f"{name}-{backend}",
        {
            "games": tally.games,
            "requests": tally.requests,
            "answers_checked": tally.answers_checked,
            "wrong_moves_probed": tally.probes,
            "stream_records_checked": tally.stream_records,
            "leaks": len(tally.leaks),
            "log_records": len(caplog.records),
            "seed": rng_seed,
        },
    )


@pytest.mark.slow
def test_no_answer_shows_a_card_its_caller_cannot_know(
    client: Any, backend: str, caplog: Any
) -> None:
    _run(client, backend, caplog, games=10, name="hidden_information")


@pytest.mark.soak
def test_soak_no_answer_shows_a_card_its_caller_cannot_know(
    client: Any, backend: str, caplog: Any
) -> None:
    _run(client, backend, caplog, games=300, name="hidden_information-soak")


def test_a_planted_leak_is_found(client: Any, monkeypatch: Any) -> None:
    """The detector itself: views that also show the top of the stock must be caught."""
    from app.services import views

    real = views.observe

    class Leaky:
        def __init__(self, state: Any, seat: int | None) -> None:
            self.view, self.peek = real(state, seat), codes(state.stock[:1])

        def to_dict(self) -> dict[str, Any]:
            return {**self.view.to_dict(), "peek": self.peek}

    monkeypatch.setattr(views, "observe", Leaky)
    tally, _ = play_games(client, games=1, seed=7)
    assert tally.leaks, "a view showing the stock's top card went unnoticed"


def test_a_planted_stream_leak_is_found(client: Any, monkeypatch: Any) -> None:
    """The detector sees the stream too: `dealt` records that show the first dealt card."""
    from app.live import records

    def leaky_dealt(data: dict[str, Any], _game: Any) -> dict[str, Any]:
        return {"round": data["round"], "dealer": data["dealer"], "top": data["deck"][0]}

    monkeypatch.setitem(records.MAPPERS, "RoundDealt", ("dealt", leaky_dealt))
    tally, _ = play_games(client, games=1, seed=7)
    assert tally.leaks, "a stream record showing a dealt card went unnoticed"
