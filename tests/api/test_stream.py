"""GET /games/{id}/stream (API.md item 12), through the test client; a stream that follows a
game in play, whose news comes from each database its own way, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from openapi_schema_validator import OAS31Validator
from openapi_spec import committed_spec
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from app import create_app
from app.api.record_schemas import STREAM_RECORDS
from app.live.records import MAPPERS

from .clock_support import clock_at, later
from .helpers import bearer, create, human_vs_bot
from .sse import LiveReader, raw_events, records
from .support import MOVE_FIELDS, assert_problem, finished_bot_game, moves, view

RECORD_NAMES = {"joined", "dealt", "move", "round", "timeout", "resigned", "over", "rematch"}
SPEC = committed_spec()
SPEC_REGISTRY: Registry[Any] = Registry().with_resource(
    "urn:basra", Resource.from_contents(SPEC, default_specification=DRAFT202012)
)


@pytest.fixture(scope="module")
def live_app(database_url: str) -> Iterator[Any]:
    """The app with a fast keep-alive and poll, so live tests wait little."""
    application = create_app(
        {
            "DATABASE_URL": database_url,
            "RATE_LIMIT": "off",
            "STREAM_KEEPALIVE_SECONDS": 0.3,
            "STREAM_POLL_SECONDS": 0.05,
        }
    )
    application.testing = True
    yield application
    application.extensions["basra_hub"].shutdown()
    application.extensions["basra_db"].dispose()


@pytest.fixture
def live(live_app: Any) -> Any:
    return live_app.test_client()


def stream(client: Any, game_id: str, **kwargs: Any) -> Any:
    return client.get(f"/games/{game_id}/stream", **kwargs)


def test_a_finished_games_stream_is_every_public_record_in_order_then_ends(client):
    game = finished_bot_game(client)
    response = stream(client, game["id"])
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    got = records(response.get_data(as_text=True))
    assert {r.event for r in got} <= RECORD_NAMES
    ids = [r.id for r in got]
    assert ids == sorted(set(ids)), "one record per version, in order"
    assert got[0].event == "dealt" and got[0].data == {"round": 1, "dealer": 1}
    assert got[-1].event == "over"
    final = view(client, game["id"])
    scores = [side["score"] for side in final["sides"]]
    assert got[-1].data == {"winner": final["winner"], "scores": scores}
    streamed = [r.data for r in got if r.event == "move"]
    assert [{k: m[k] for k in MOVE_FIELDS} for m in streamed] == moves(client, game["id"])
    assert all(r.data["version"] == r.id for r in got if r.event == "move")
    rounds = [r.data for r in got if r.event == "round"]
    assert rounds == final["rounds"]
    assert [r.data["round"] for r in got if r.event == "dealt"] == [r["round"] for r in rounds]


def test_the_move_record_is_the_move_with_its_version(client):
    game = finished_bot_game(client)
    move = next(r for r in records(stream(client, game["id"]).get_data(as_text=True)))
    assert move.event == "dealt"
    first_move = next(
        r for r in records(stream(client, game["id"]).get_data(as_text=True)) if r.event == "move"
    )
    assert set(first_move.data) == MOVE_FIELDS | {"version"}
    assert first_move.data["n"] == 1


@pytest.mark.parametrize("how", ["query", "header"])
def test_a_stream_resumed_after_a_version_repeats_nothing_and_misses_nothing(client, how):
    game = finished_bot_game(client)
    whole = records(stream(client, game["id"]).get_data(as_text=True))
    for cut in (0, 1, len(whole) // 2, len(whole) - 1):
        after = whole[cut].id
        if how == "query":
            response = stream(client, game["id"], query_string={"after": after})
        else:  # what EventSource sends when it reconnects; it wins over ?after=
            response = stream(
                client, game["id"], query_string={"after": 0}, headers={"Last-Event-ID": str(after)}
            )
        assert records(response.get_data(as_text=True)) == whole[cut + 1 :]


def test_a_stream_resumed_after_the_end_ends_at_once(client):
    game = finished_bot_game(client)
    last = view(client, game["id"])["version"]
    response = stream(client, game["id"], query_string={"after": last})
    assert response.status_code == 200
    assert records(response.get_data(as_text=True)) == []


def test_an_unknown_game_has_no_stream(client):
    assert_problem(stream(client, "no-such-game"), 404, "not_found")
    assert_problem(stream(client, "no-such-game", query_string={"after": "x"}), 404, "not_found")


@pytest.mark.parametrize(
    ("query", "headers"),
    [({"after": "x"}, {}), ({"after": "-1"}, {}), ({}, {"Last-Event-ID": "seven"})],
)
def test_a_version_that_is_not_one_is_refused(client, query, headers):
    game = finished_bot_game(client)
    response = stream(client, game["id"], query_string=query, headers=headers)
    assert_problem(response, 422, "invalid_request")


def test_no_record_carries_a_hand_the_stock_a_legal_move_or_a_seed(client):
    # Two quick bots: what a record may carry does not depend on who played (records.py).
    game = finished_bot_game(client, [{"bot": "greedy"}, {"bot": "random"}])
    text = stream(client, game["id"]).get_data(as_text=True)
    for record in records(text):
        assert not {"hand", "hands", "deck", "stock", "legal_moves", "seed", "server_seed"} & set(
            record.data
        ), record
    assert "server_seed" not in text and "deck" not in text


def every_kind_of_record(client: Any) -> list[dict[str, str]]:
    """The streams of a game played to its end and of one joined, timed out, resigned and
    offered a rematch."""
    finished = finished_bot_game(client, [{"bot": "greedy"}, {"bot": "random"}])
    clocked = create(client, [{"name": "Amira"}, {"open": True}], rules={"turn_seconds": 30})
    url = f"/games/{clocked['id']}"
    joined = client.post(f"{url}/join", json={"name": "Badr", "invite": clocked["invite"]})
    assert joined.status_code == 201, joined.get_json()
    with clock_at(client.application, later(31)):
        assert client.get(url).get_json()["version"] > joined.get_json()["state"]["version"]
    resigned = client.post(f"{url}/resign", headers=bearer(clocked["seats"][0]["token"]))
    assert resigned.status_code == 201, resigned.get_json()
    rematch = client.post(f"{url}/rematch", headers=bearer(clocked["seats"][0]["token"]))
    assert rematch.status_code == 201, rematch.get_json()
    return [
        event
        for game_id in (finished["id"], clocked["id"])
        for event in raw_events(stream(client, game_id).get_data(as_text=True))
    ]


def content_schema(event: str) -> dict[str, Any]:
    """The schema openapi.yaml gives the data of a record named ``event``."""
    for branch in SPEC["components"]["schemas"]["StreamEvent"]["oneOf"]:
        if branch["properties"]["event"]["const"] == event:
            data = branch["properties"]["data"]
            assert data["contentMediaType"] == "application/json"
            return dict(data["contentSchema"])
    raise AssertionError(f"openapi.yaml gives record {event!r} no schema")


# Fields these games do not make the server send, and the test that sees them sent.
SENT_ELSEWHERE = {
    "ResignedRecord": {"reason"},  # a forfeit's: tests/api/test_turn_clock.py -k forfeit
}


def test_every_record_the_stream_sends_is_a_stream_event_of_openapi_yaml(client):
    assert {name for name, _ in MAPPERS.values()} == set(STREAM_RECORDS) == RECORD_NAMES
    sent = every_kind_of_record(client)
    assert {event["event"] for event in sent} == RECORD_NAMES
    event_schema = {"$ref": "urn:basra#/components/schemas/StreamEvent"}
    seen: dict[str, set[str]] = {}
    for event in sent:
        OAS31Validator(event_schema, registry=SPEC_REGISTRY).validate(event)
        ref = content_schema(event["event"])["$ref"]
        data = json.loads(event["data"])
        OAS31Validator({"$ref": f"urn:basra{ref}"}, registry=SPEC_REGISTRY).validate(data)
        seen.setdefault(ref, set()).update(data)
    for ref, fields in seen.items():  # and the schema documents no field that is never sent
        name = ref.rsplit("/", 1)[1]
        documented = SPEC["components"]["schemas"][name]["properties"]
        assert set(documented) == fields | SENT_ELSEWHERE.get(name, set()), ref


@pytest.mark.both_databases
def test_a_move_reaches_an_open_stream_while_the_game_is_on(live):
    game, token = human_vs_bot(live)
    reader = LiveReader(live, f"/games/{game['id']}/stream")
    try:
        assert reader.status == 200
        dealt = reader.take(1)[0]
        assert dealt.event == "dealt" and dealt.id == 2
        card = view(live, game["id"], token)["hand"][0]
        started = time.monotonic()
        answer = live.post(f"/games/{game['id']}/moves", json={"card": card}, headers=bearer(token))
        assert answer.status_code == 201
        applied = answer.get_json()["moves"]
        got = reader.take(len(applied), timeout=5)
        assert time.monotonic() - started < 2
        assert [{k: r.data[k] for k in MOVE_FIELDS} for r in got] == applied
        assert got[-1].id == answer.get_json()["state"]["version"]
    finally:
        reader.close()


@pytest.mark.both_databases
def test_a_seat_joining_and_the_first_deal_reach_an_open_stream(live):
    game = create(live, [{"name": "Amira"}, {"open": True}])
    reader = LiveReader(live, f"/games/{game['id']}/stream")
    try:
        time.sleep(0.2)
        body = {"name": "Badr", "seed": "s3cret", "invite": game["invite"]}
        joined = live.post(f"/games/{game['id']}/join", json=body)
        assert joined.status_code == 201
        got = reader.take(2)
        assert [(r.event, r.data) for r in got] == [
            ("joined", {"seat": 1, "name": "Badr", "player": None}),
            ("dealt", {"round": 1, "dealer": 1}),
        ]
    finally:
        reader.close()


def test_an_idle_stream_sends_keep_alive_comments(live):
    game = create(live, [{"name": "Amira"}, {"open": True}])
    reader = LiveReader(live, f"/games/{game['id']}/stream")
    try:
        # The keep-alive is 0.3 s here (15 s by default): two come within 0.6 s of a quiet
        # stream; the deadline leaves room for a loaded machine (one came in 1.2 s once).
        reader.wait_for_comments(2, timeout=5)
    finally:
        reader.close()


@pytest.mark.both_databases
def test_a_stream_ends_after_the_over_record_of_a_game_it_watched(live):
    game, token = human_vs_bot(live, rules={"target_score": 1})
    reader = LiveReader(live, f"/games/{game['id']}/stream")
    try:
        state = view(live, game["id"], token)
        while state["status"] == "active":
            answer = live.post(
                f"/games/{game['id']}/moves", json={"card": state["hand"][0]}, headers=bearer(token)
            )
            state = answer.get_json()["state"]
        got = reader.take_until("over", timeout=20)
        assert got[-1].data["winner"] == state["winner"]
        assert reader.ended.wait(5), "the stream did not end after `over`"
    finally:
        reader.close()


@pytest.mark.both_databases
def test_streams_of_two_games_each_get_only_their_own_records(live):
    first, first_token = human_vs_bot(live)
    second, _ = human_vs_bot(live)
    readers = [LiveReader(live, f"/games/{g['id']}/stream") for g in (first, second)]
    try:
        for reader in readers:
            reader.take(1)  # each game's first deal
        card = view(live, first["id"], first_token)["hand"][0]
        live.post(f"/games/{first['id']}/moves", json={"card": card}, headers=bearer(first_token))
        assert readers[0].take(1)[0].event == "move"
        time.sleep(0.3)
        assert readers[1].received.empty()
    finally:
        for reader in readers:
            reader.close()


@pytest.mark.both_databases
@pytest.mark.parametrize("how", ["query", "header"])
def test_a_cursor_past_the_games_version_waits_at_the_games_version(live, monkeypatch, how):
    """The cursor is the game's, from the database: a stream that claims a version the game
    never had waits for the next record (with keep-alives), gets it, and leads no other stream
    of the game to read the log in a loop."""
    from app.live import feed

    reads = []
    read = feed.read
    monkeypatch.setattr(
        feed, "read", lambda *args, **kwargs: reads.append(1) or read(*args, **kwargs)
    )
    game, token = human_vs_bot(live)
    url = f"/games/{game['id']}/stream"
    if how == "query":
        future = LiveReader(live, url + "?after=999999")
    else:
        future = LiveReader(live, url, headers={"Last-Event-ID": "999999"})
    normal = LiveReader(live, url)
    try:
        assert normal.take(1)[0].event == "dealt"
        future.wait_for_comments(2)  # 0.3 s keep-alives: it waits, it does not end
        before = len(reads)
        time.sleep(0.6)
        assert len(reads) - before < 5, "a stream read the log again and again"
        card = view(live, game["id"], token)["hand"][0]
        answer = live.post(f"/games/{game['id']}/moves", json={"card": card}, headers=bearer(token))
        applied = answer.get_json()["moves"]
        for reader in (future, normal):
            got = reader.take(len(applied), timeout=5)
            assert [{k: r.data[k] for k in MOVE_FIELDS} for r in got] == applied
    finally:
        future.close()
        normal.close()


def test_a_cursor_past_a_finished_games_version_ends_at_once(client):
    game = finished_bot_game(client)
    response = stream(client, game["id"], headers={"Last-Event-ID": "9999999999"})
    assert response.status_code == 200
    assert records(response.get_data(as_text=True)) == []
