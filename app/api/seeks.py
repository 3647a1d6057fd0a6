"""The /seeks resource (API.md item 21): a player asks for a game, and is told its seat."""

from __future__ import annotations

import threading
from typing import Any

from flask import Response, current_app, jsonify
from flask.views import MethodView
from flask_smorest import Blueprint

from app.api.bearers import calling_player
from app.api.games import BEARER
from app.api.limits import client_address
from app.api.problem_answers import problems
from app.api.requests import after_access, clock_now, json_body, query, unit_of_work
from app.api.seek_schemas import SeekOutSchema, SeekQuerySchema, SeekSchema, seek_body
from app.background.matchmaker import Matchmaker
from app.live.handoff import HANDOFF, Handoff, SeekWait
from app.live.stream_slots import NoSlot, StreamSlots
from app.services import seeks as seeking
from app.services.errors import Unauthorized
from app.services.model import WAITING, SeekRecord
from app.services.ratings import rating_of

blp = Blueprint(
    "seeks",
    __name__,
    url_prefix="/seeks",
    description="Seek a game: be paired with players of a close rating, or with bots.",
)
SEEK = {"application/json": {"schema": SeekOutSchema}}
LOCATION = {"description": "The seek's URL, `/seeks/{id}`", "schema": {"type": "string"}}


def _matchmaker() -> Matchmaker:
    matchmaker: Matchmaker = current_app.extensions["basra_matchmaker"]
    return matchmaker


def _player_id() -> str | None:
    """The caller's player, or None (no bearer, or one that is no player's): refused only
    once the seek asked for is known to exist."""
    try:
        return calling_player().id
    except Unauthorized:
        return None


def _answer(seek: SeekRecord, status: int = 200) -> Response:
    response = jsonify(seek_body(seek))
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    return response


@blp.route("")
class SeekCollection(MethodView):
    @blp.doc(
        operationId="seekGame",
        summary="Seek a game",
        description=(
            "With a player's bearer. The seek waits to be paired with seeks of the same kind "
            "(players, `rated`, effective rules), closest ratings first, the allowed rating gap "
            "widening the longer they wait (docs/matchmaking.md); with `bot_after`, bots of the "
            "closest rating take the other seats once it has waited that long. The answer is the "
            "seek after the pairing pass its own request ran: `matched` (with `game_id` and "
            "`seat`) if a seek already waiting (or bots, with `bot_after: 0`) took it, else "
            "`waiting`: follow it with `GET /seeks/{id}?wait=30`. A seek with `bot_after` counts "
            "as a game created (`CREATE_RATE_LIMIT`) and needs bot work left "
            "(`BOT_WORK_LIMIT`). A player has one waiting seek at most (409 "
            "`already_seeking`, naming it in `seek_id`); a seek expires after 10 minutes."
        ),
        security=BEARER,
        requestBody={"required": True, "content": {"application/json": {"schema": SeekSchema}}},
        responses={
            201: {
                "description": "Made: waiting, or matched already",
                "headers": {"Location": LOCATION},
                "content": SEEK,
            },
            **problems(
                "bad_request",
                "payload_too_large",
                "unsupported_media_type",
                "invalid_request",
                "unauthorized",
                "already_seeking",
            ),
        },
    )
    def post(self) -> Response:
        player = calling_player()
        spec = json_body(SeekSchema)
        seeker = seeking.Seeking(player.id, player.name, float(rating_of(player)["value"]))
        seek = seeking.open_seek(
            unit_of_work(), seeker, spec["players"], spec.get("rated", False),
            spec.get("rules"), spec.get("bot_after"), now=clock_now(),
        )  # fmt: skip
        # A compatible seek waiting already is paired before the answer, which says so.
        _matchmaker().pair_now(seek.kind)
        seek = seeking.seek_of(unit_of_work(), seek.id, player.id, clock_now())
        response = _answer(seek, 201)
        response.headers["Location"] = f"/seeks/{seek.id}"
        return response


@blp.route("/<seek_id>")
class SeekResource(MethodView):
    @blp.doc(
        operationId="getSeek",
        summary="Your seek, once it changes (long poll)",
        description=(
            "With the bearer of the seek's player. `wait=N` (up to 30) holds the answer while "
            "the seek is waiting, and answers as soon as it is matched, cancelled or expired, "
            "whichever server process or instance did it (at most N seconds: then it answers "
            "`waiting`, and the client asks again). Once `matched`, `game_id` and `seat` say "
            "where to play: your bearer acts for that seat."
        ),
        security=BEARER,
        parameters=[{"in": "query", "schema": SeekQuerySchema}],
        responses={
            200: {"description": "The seek", "content": SEEK},
            **problems("unauthorized", "forbidden", "not_found", "invalid_request"),
        },
    )
    def get(self, seek_id: str) -> Response:
        player_id = _player_id()
        owned = lambda: seeking.seek_of(unit_of_work(), seek_id, player_id, clock_now())  # noqa: E731
        args = after_access(owned, lambda: query(SeekQuerySchema))
        handoff = HANDOFF.get()
        if args["wait"] == 0 or (handoff is not None and handoff.resumed):
            return _answer(owned())
        if handoff is not None:  # the event loop watches the seek since before this read
            seek = owned()
            if seek.status == WAITING:
                _hand_off(seek, args["wait"], handoff)
            return _answer(seek)
        with _matchmaker().waits.watching(seek_id) as heard:  # before the read: nothing missed
            seek = owned()
            if seek.status == WAITING:
                seek = _held(seek, args["wait"], heard, owned)
        return _answer(seek)

    @blp.doc(
        operationId="cancelSeek",
        summary="Cancel your waiting seek",
        description="With the bearer of the seek's player. Only a waiting seek can be cancelled.",
        security=BEARER,
        responses={
            204: {"description": "Cancelled"},
            **problems("unauthorized", "forbidden", "not_found", "seek_not_waiting"),
        },
    )
    def delete(self, seek_id: str) -> Response:
        seeking.cancel_seek(unit_of_work(), seek_id, _player_id(), clock_now())
        _matchmaker().waits.settled([seek_id])
        return Response(status=204)


def _held(seek: SeekRecord, seconds: int, heard: threading.Event, read: Any) -> SeekRecord:
    """The seek once it changes (``heard``), or after ``seconds``. A waiting request holds one
    of this process's threads, as a live stream does, and takes a stream slot for it: with
    none left (or this address holding all it may), the answer comes at once."""
    slots: StreamSlots = current_app.extensions["basra_stream_slots"]
    give_back = slots.take(client_address())
    if isinstance(give_back, NoSlot):
        return seek
    try:
        heard.wait(seconds)
    finally:
        give_back()
    found: SeekRecord = read()
    return found


def _hand_off(seek: SeekRecord, seconds: int, handoff: Handoff) -> None:
    """Served from the event loop (app/asgi.py): the loop waits, holding a stream slot but no
    thread, and asks again once the seek changes; this answer (waiting) is the one it sends if
    nothing changes in time. With no slot left, that answer goes at once."""
    slots: StreamSlots = current_app.extensions["basra_stream_slots"]
    give_back = slots.take(client_address())
    if not isinstance(give_back, NoSlot):
        handoff.wait = SeekWait(seek.id, seconds, give_back)
