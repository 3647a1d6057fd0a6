"""The /seeks resource (API.md item 21): a player asks for a game, and is told its seat."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Response, current_app
from flask.views import MethodView

from app.api.bearers import calling_player
from app.api.blueprints import Answer, ApiBlueprint
from app.api.games import BEARER
from app.api.limits import client_address
from app.api.requests import clock_now, unit_of_work
from app.api.seek_schemas import SeekOutSchema, SeekQuerySchema, SeekSchema, seek_body
from app.background.matchmaker import Matchmaker
from app.live import bridge
from app.live.handoff import HANDOFF, Handoff, SeekWait
from app.live.hub import Hub
from app.live.stream_slots import NoSlot, StreamSlots
from app.services import seeks as seeking
from app.services.errors import Unauthorized
from app.services.model import WAITING, SeekRecord
from app.services.ratings import rating_of

blp = ApiBlueprint(
    "seeks", __name__, url_prefix="/seeks",
    description="Seek a game: be paired with players of a close rating, or with bots.",
    paths=("", "/<seek_id>"),
)  # fmt: skip
LOCATION = {"Location": {"description": "The seek's URL, `/seeks/{id}`",
                         "schema": {"type": "string"}}}  # fmt: skip
# A seek is its player's alone: no cache may keep it.
PRIVATE = {"Cache-Control": "no-store"}


def _hub() -> Hub:
    hub: Hub = current_app.extensions["basra_hub"]
    return hub


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


def _owned(seek_id: str) -> SeekRecord:
    """The caller's seek: 404 for none, then 401/403 for a caller that is not its player."""
    return seeking.seek_of(unit_of_work(), seek_id, _player_id(), clock_now())


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
    )
    @blp.arguments(SeekSchema, first=calling_player)  # API.md's order: the token, then the body
    @blp.response(201, SeekOutSchema, description="Made: waiting, or matched already",
                  headers=LOCATION)  # fmt: skip
    @blp.problems("bad_request", "payload_too_large", "unsupported_media_type",
                  "invalid_request", "unauthorized", "already_seeking")  # fmt: skip
    def post(self, spec: dict[str, Any]) -> Answer:
        player = calling_player()
        seeker = seeking.Seeking(player.id, player.name, float(rating_of(player)["value"]))
        seek = seeking.open_seek(
            unit_of_work(), seeker, spec["players"], spec.get("rated", False),
            spec.get("rules"), spec.get("bot_after"), now=clock_now(),
        )  # fmt: skip
        # A compatible seek waiting already is paired before the answer, which says so.
        _matchmaker().pair_now(seek.kind)
        seek = seeking.seek_of(unit_of_work(), seek.id, player.id, clock_now())
        return seek_body(seek), {"Location": f"/seeks/{seek.id}", **PRIVATE}


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
    )
    @blp.arguments(SeekQuerySchema, location="query", first=_owned)
    @blp.response(200, SeekOutSchema, description="The seek")
    @blp.problems("unauthorized", "forbidden", "not_found", "invalid_request")
    def get(self, args: dict[str, Any], seek_id: str) -> Answer:
        handoff = HANDOFF.get()
        if args["wait"] == 0 or (handoff is not None and handoff.resumed):
            return seek_body(_owned(seek_id)), PRIVATE
        if handoff is not None:  # the entrance's loop watches the seek since before this read
            seek = _owned(seek_id)
            if seek.status == WAITING:
                _hand_off(seek, args["wait"], handoff)
            return seek_body(seek), PRIVATE
        with bridge.watching(_hub(), seek_id) as changed:  # before the read: nothing missed
            seek = _owned(seek_id)
            if seek.status == WAITING:
                seek = _held(seek, args["wait"], changed)
        return seek_body(seek), PRIVATE

    @blp.doc(
        operationId="cancelSeek",
        summary="Cancel your waiting seek",
        description="With the bearer of the seek's player. Only a waiting seek can be cancelled.",
        security=BEARER,
    )
    @blp.response(204, description="Cancelled")
    @blp.problems("unauthorized", "forbidden", "not_found", "seek_not_waiting")
    def delete(self, seek_id: str) -> Answer:
        seeking.cancel_seek(unit_of_work(), seek_id, _player_id(), clock_now())
        _hub().seeks.settled([seek_id])
        return Response(status=204)


def _held(seek: SeekRecord, seconds: int, changed: Callable[[float], bool]) -> SeekRecord:
    """The seek once it changes (``changed`` says so), or after ``seconds``. A waiting request
    holds one of this process's threads, as a live stream does, and takes a stream slot for
    it: with none left (or this address holding all it may), the answer comes at once."""
    slots: StreamSlots = current_app.extensions["basra_stream_slots"]
    give_back = slots.take(client_address())
    if isinstance(give_back, NoSlot):
        return seek
    try:
        changed(seconds)
    finally:
        give_back()
    return _owned(seek.id)


def _hand_off(seek: SeekRecord, seconds: int, handoff: Handoff) -> None:
    """Served from the entrance's event loop (app/asgi.py): the loop waits, holding a stream
    slot but no thread, and asks again once the seek changes; this answer (waiting) is the one
    it sends if nothing changes in time. With no slot left, that answer goes at once."""
    slots: StreamSlots = current_app.extensions["basra_stream_slots"]
    give_back = slots.take(client_address())
    if not isinstance(give_back, NoSlot):
        handoff.wait = SeekWait(seek.id, seconds, give_back)
