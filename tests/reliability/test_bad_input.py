"""Bad input: schemathesis generates requests from the committed openapi.yaml and sends them to
the app (in process, on SQLite and on PostgreSQL) with every one of its checks, plus ours: every
refusal is a problem document with a code of API.md. The cases reach real games: a generated
game id is swapped, case by case, for a waiting, an active, a four-seat or a finished game, and
the request carries that game's token, another game's, a made-up one, or none.

What a schema cannot say is allowed explicitly (SEMANTIC_REFUSALS): whether a card is in your
hand, whether a version is current, an opaque cursor, a deck that is 52 codes but not 52 cards,
a rated game whose seats are not players', a join that sends neither a name nor a player's bearer.
"""

from __future__ import annotations

import inspect
import json
import re
import zlib
from dataclasses import asdict, dataclass, field
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation import GenerationMode
from schemathesis.openapi.checks import RejectedPositiveData

from .support import ROOT, assert_problem, problem_errors, write_report

# The live stream of an active game never ends, so a generated case could not wait for its
# body; tests/api/test_stream.py covers its answers and refusals.
SCHEMA = schemathesis.openapi.from_path(ROOT / "openapi.yaml").exclude(
    path="/games/{game_id}/stream"
)
SCHEMA.config.generation.update(allow_x00=True)  # NUL in every string: PostgreSQL refuses it
load_all_checks()
# API.md orders the checks game (404) before token (401): schemathesis' missing_required_header
# expects 401 for a request without its token even when the game does not exist. A missing
# token on a real game is 401, pinned by tests/api/test_error_contract.py.
ALL_CHECKS = [
    check
    for check in CHECKS.get_all()
    if inspect.isfunction(check) and check.__name__ != "missing_required_header"
]
SHORT = settings(
    max_examples=50, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
SOAK = settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
# All-bot matches are played by the background runner (app/background/bot_runner.py); generated
# ones are kept short so that the runner's work during this test stays small.
ALL_BOT_TARGET_CAP = 50
NO_SCORING = {"majority_points", "basra_points", "jack_basra_points"}
# Names refused by rules of app/services/names.py that no JSON Schema pattern states: blank once
# trimmed, longer once NFKC-normalised, or reading as a bot's (look-alike letters included).
NAME_RULES = re.compile(r"visible character|once normalised|reads as a bot")
ASTRAL_FORMAT = re.compile(
    r"control or format characters \((?:U\+[0-9A-F]{4,6}, )*U\+[0-9A-F]{5,6}"
)


@dataclass
class Seen:
    cases: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    semantic_refusals: dict[str, int] = field(default_factory=dict)


@dataclass
class World:
    """Real games for the generated cases to hit, and what each run saw."""

    games: list[tuple[str, list[str]]] = field(default_factory=list)  # (id, human tokens)
    seen: dict[str, Seen] = field(default_factory=dict)  # "bad_input" or "bad_input-soak"


@pytest.fixture(scope="module")
def world(app: Any, database_url: str) -> Any:
    backend = "sqlite" if database_url.startswith("sqlite") else "postgresql"
    client = app.test_client()
    created = []
    for players, rules in [
        ([{"name": "Waits"}, {"open": True}], {}),
        ([{"name": "Plays"}, {"bot": "random"}], {}),
        ([{"name": "North"}, {"bot": "greedy"}, {"name": "South"}, {"bot": "random"}], {}),
        ([{"name": "Done"}, {"bot": "random"}], {"target_score": 1}),
    ]:
        response = client.post("/games", json={"players": players, "rules": rules})
        assert response.status_code == 201, response.get_json()
        body = response.get_json()
        tokens = [seat["token"] for seat in body["seats"] if "token" in seat]
        created.append((body["id"], tokens))
    _play_out(client, *created[3])
    state = World(games=created)
    yield state
    # The generated games of bots alone would be played on by the background runner for the
    # rest of the session: they have served their purpose.
    app.extensions["basra_bot_runner"].stop()
    app.extensions["basra_bot_runner"].forget()
    for run, seen in state.seen.items():
        write_report(f"{run}-{backend}", asdict(seen))


def _play_out(client: Any, game_id: str, tokens: list[str]) -> None:
    headers = {"Authorization": f"Bearer {tokens[0]}"}
    for _ in range(200):
        view = client.get(f"/games/{game_id}", headers=headers).get_json()
        if view["status"] == "finished":
            return
        client.post(f"/games/{game_id}/moves", json={"card": view["hand"][0]}, headers=headers)
    raise AssertionError("the finished-game fixture did not finish")


def _pick(case: Any, choices: int, salt: str) -> int:
    """A choice that is a function of the generated case, so a replay makes the same one."""
    seed = repr((case.operation.label, case.path_parameters, case.query, case.body, salt))
    return zlib.crc32(seed.encode()) % choices


def _positive(case: Any, location: ParameterLocation) -> bool:
    info = case.meta.components.get(location) if case.meta else None
    return info is not None and info.mode == GenerationMode.POSITIVE


def _aim_at_real_games(case: Any, world: World) -> dict[str, str]:
    """Point the case at a real game (or leave its made-up id); the headers to add."""
    if not case.path_parameters or not _positive(case, ParameterLocation.PATH):
        return {}
    target = _pick(case, len(world.games) + 1, "game")
    if target == len(world.games):
        return {}  # keep the generated id: an unknown game
    game_id, tokens = world.games[target]
    case.path_parameters["game_id"] = game_id
    other_tokens = world.games[(target + 1) % len(world.games)][1]
    choice = _pick(case, 4, "token")
    if choice == 0:
        return {"Authorization": f"Bearer {tokens[_pick(case, len(tokens), 'seat')]}"}
    if choice == 1:
        return {"Authorization": f"Bearer {other_tokens[0]}"}
    if choice == 2:
        return {"Authorization": "Bearer not-a-token"}
    return {}


def _keep_all_bot_games_short(case: Any) -> None:
    body = case.body
    if case.operation.label != "POST /games" or not _positive(case, ParameterLocation.BODY):
        return
    if not isinstance(body, dict) or not all("bot" in p for p in body.get("players", [])):
        return
    rules = body.setdefault("rules", {})
    rules["target_score"] = min(rules.get("target_score", 101), ALL_BOT_TARGET_CAP)


def _semantic(response: Any) -> str | None:
    """A refusal that depends on the game's state or on server data, not on the request's shape."""
    try:
        body = json.loads(response.content)
    except ValueError:
        return None
    code = body.get("code")
    if (response.status_code, code) in {
        (412, "version_mismatch"),
        (422, "card_not_in_hand"),
        (422, "idempotency_conflict"),
    }:
        return str(code)
    errors = body.get("errors")
    if code == "invalid_request" and isinstance(errors, dict) and len(errors) == 1:
        # a deck of 52 codes that are not the 52 cards, a cursor not issued here, a replay step
        # past the game's last move: valid shapes that name something that does not exist
        (key,) = errors
        if key in {"deck", "cursor", "step"}:
            return f"invalid_request:{key}"
        if ASTRAL_FORMAT.search(json.dumps(errors)):
            # a Cf code point above U+FFFF in a name: refused, but the documented pattern can
            # only list the BMP ones (schemathesis refuses astral characters in a class)
            return "invalid_request:astral_format_character"
        if NAME_RULES.search(json.dumps(errors)):
            return "invalid_request:name_rules"
        if key == "players" and "rated game" in str(body.get("detail")):
            # `rated` with a seat held by no player, or bots alone: a rule across two fields
            return "invalid_request:rated_players"
        if key == "name" and "player's bearer" in str(body.get("detail")):
            # a join with no name is a player's, and needs its bearer: a header, not the body
            return "invalid_request:nameless_join"
        if key == "rules" and set(errors["rules"]) == NO_SCORING:
            # every kind of point at 0: a rule across three fields no schema here can state
            return "invalid_request:rules"
    return None


def problem_documents(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every 4xx/5xx is application/problem+json with a code of API.md."""
    content_type = (response.headers.get("content-type") or [""])[0]  # lower-case keys, lists
    wrong = problem_errors(response.status_code, content_type, response.content)
    if wrong:
        raise AssertionError("; ".join(wrong))
    return None


def run_case(case: Any, app: Any, world: World, run: str) -> None:
    case.operation.schema.app = app  # the checks that send probes of their own send them here
    headers = _aim_at_real_games(case, world)
    _keep_all_bot_games_short(case)
    response = case.call(app=app, headers=headers)
    seen = world.seen.setdefault(run, Seen())
    seen.cases += 1
    key = str(response.status_code)
    seen.statuses[key] = seen.statuses.get(key, 0) + 1
    try:
        case.validate_response(
            response,
            checks=ALL_CHECKS,
            additional_checks=[problem_documents],
            headers=headers,
            transport_kwargs={"app": app, "headers": headers},
        )
    except FailureGroup as group:
        reason = _semantic(response)
        kept: list[Failure] = [
            f for f in group.exceptions if not (reason and isinstance(f, RejectedPositiveData))
        ]
        if kept:
            raise
        assert reason is not None
        seen.semantic_refusals[reason] = seen.semantic_refusals.get(reason, 0) + 1


@SCHEMA.parametrize()
@SHORT
def test_generated_requests_find_nothing(case: Any, app: Any, world: World) -> None:
    run_case(case, app, world, "bad_input")


@pytest.mark.soak
@SCHEMA.parametrize()
@SOAK
def test_soak_generated_requests_find_nothing(case: Any, app: Any, world: World) -> None:
    run_case(case, app, world, "bad_input-soak")


@pytest.mark.parametrize("path", ["/games", "/games/{id}/join", "/games/{id}/moves"])
def test_a_body_over_64_kib_is_refused_with_413(app: Any, world: World, path: str) -> None:
    game_id, tokens = world.games[0 if "join" in path else 1]
    body = json.dumps({"players": [{"name": "x" * (64 * 1024)}]}).encode()
    response = app.test_client().post(
        path.format(id=game_id),
        data=body,
        content_type="application/json",
        headers={"Authorization": f"Bearer {tokens[0]}"},
    )
    assert_problem(response, 413, "payload_too_large")


def test_a_body_just_under_64_kib_is_read_and_judged(app: Any) -> None:
    body = json.dumps({"players": [{"name": "x" * (60 * 1024)}, {"bot": "random"}]}).encode()
    response = app.test_client().post("/games", data=body, content_type="application/json")
    assert_problem(response, 422, "invalid_request")
