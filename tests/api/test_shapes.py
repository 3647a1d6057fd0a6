"""One definition per shape: what the services build (the view, a move, a log entry, a
list entry, ...) is exactly what the schemas document in openapi.yaml, field for field.

The builders are the source (``build_view``, ``CardPlayed.to_dict``, ``EventRecord.to_dict``,
``GameSummary.to_dict``, ``problem``); the schemas only describe them, and these tests fail
the moment one has a field the other lacks. Samples come from the use cases on the
in-memory unit of work: no database, no HTTP.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask
from marshmallow import Schema, fields

from app.api import schemas, view_schemas
from app.api.errors import problem
from app.persistence.memory import MemoryUnitOfWork
from app.services import audit, bots, games, playing
from app.services.creation import Player


def agree(schema: Schema, sample: Any, where: str = "") -> None:
    """Every field of ``sample`` is in ``schema`` and every required one is in ``sample``;
    nested schemas are checked the same way, all the way down."""
    assert isinstance(sample, dict), f"{where or 'top'}: not an object"
    declared = schema.fields
    extra = set(sample) - set(declared)
    missing = {name for name, field in declared.items() if field.required} - set(sample)
    assert not extra, f"{where or 'top'}: written but not documented: {sorted(extra)}"
    assert not missing, f"{where or 'top'}: documented as required but not written: {missing}"
    for name, value in sample.items():
        _agree_field(declared[name], value, f"{where}.{name}")


def _agree_field(field: fields.Field, value: Any, where: str) -> None:
    if value is None:
        assert field.allow_none, f"{where}: null but not documented as nullable"
    elif isinstance(field, fields.Nested):
        nested = field.schema
        for item in value if field.many else [value]:
            agree(nested, item, where)
    elif isinstance(field, fields.List):
        assert isinstance(value, list), f"{where}: not a list"
        for item in value:
            _agree_field(field.inner, item, f"{where}[]")


@pytest.fixture(scope="module")
def samples() -> dict[str, Any]:
    uow = MemoryUnitOfWork()
    two_bots = [Player(bot="random", name="Rami"), Player(bot="greedy")]
    finished = games.create_game(uow, two_bots, rules={"target_score": 1}).game_id
    while bots.play_bots(uow, finished, seconds=5.0):  # as the background runner does
        pass
    created = games.create_game(uow, [Player(name="Amira"), Player(bot="greedy")])
    token = created.seats[0]["token"]
    played = playing.play_card(
        uow, playing.PlayCard(created.game_id, token, created.state["hand"][0])
    )
    waiting = games.create_game(uow, [Player(name="Amira"), Player(open=True)])
    joined = games.join_game(uow, waiting.game_id, "Badr", seed="b", invite=waiting.invite)
    return {
        "created": created,
        "played": played,
        "joined": joined,
        "own view": audit.view(uow, created.game_id, token),
        "spectator view": audit.view(uow, created.game_id, None),
        "finished view": audit.view(uow, finished, None),
        "replay": audit.replay_step(uow, finished, 3),
        "replay end": audit.replay_step(uow, finished, len(audit.moves(uow, finished))),
        "moves": audit.moves(uow, finished),
        "events": audit.events(uow, finished, None),
        "live events": audit.events(uow, created.game_id, token),
        "page": audit.list_games(uow, None, 2, None),
        "fairness": audit.fairness(uow, finished),
        "verify": audit.verify(uow, finished),
    }


def test_the_view_is_documented_field_for_field(samples):
    for name in ("own view", "spectator view", "finished view"):
        agree(view_schemas.ViewSchema(), samples[name], name)
    assert "legal_moves" in samples["own view"], "the sample covers the seat's own turn"
    assert samples["finished view"]["rounds"], "the sample covers finished rounds"


def test_the_answers_of_create_join_and_play_are_documented(samples):
    from app.api.games import created_body

    agree(schemas.CreatedGameSchema(), created_body(samples["created"]), "created")
    joined = samples["joined"]
    body = {"seat": joined.seat, "token": joined.token, "moves": joined.moves,
            "state": joined.state}  # fmt: skip
    agree(schemas.JoinedSchema(), body, "joined")
    agree(schemas.MoveResultSchema(), samples["played"].to_dict(), "played")
    assert samples["played"].moves, "the sample has moves"


def test_moves_and_log_entries_are_documented(samples):
    agree(schemas.MovesSchema(), {"moves": samples["moves"]})
    agree(schemas.EventsSchema(), samples["events"], "events")
    agree(schemas.EventsSchema(), samples["live events"], "live events")


def test_replay_list_fairness_and_verify_are_documented(samples):
    agree(schemas.ReplaySchema(), samples["replay"].to_dict(), "replay")
    agree(schemas.ReplaySchema(), samples["replay end"].to_dict(), "replay end")
    agree(schemas.GamesPageSchema(), samples["page"], "page")
    agree(schemas.FairnessSchema(), samples["fairness"], "fairness")
    agree(schemas.VerifySchema(), samples["verify"], "verify")


def test_a_problem_is_documented_field_for_field():
    with Flask(__name__).app_context():
        body = json.loads(problem("version_mismatch", "stale", version=3).get_data())
    agree(schemas.ProblemSchema(), body, "problem")
