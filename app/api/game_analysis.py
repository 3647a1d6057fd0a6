"""A finished game's analysis on the /games resource: asked for by anyone, computed once in the
background (app/background/analyses.py), then served as stored."""

from __future__ import annotations

from flask import current_app, jsonify
from flask.views import MethodView

from app.api import analysis_schemas
from app.api.blueprints import Answer
from app.api.games import blp
from app.api.limits import analysis_refusal
from app.api.requests import clock_now, unit_of_work
from app.services import analysis
from app.services.errors import Backlogged
from app.services.model import DONE

RETRY_SECONDS = 1  # a running analysis's Retry-After: a slice of moves takes about that long
RETRY_HEADER = {"Retry-After": {"description": "Seconds to wait before asking again",
                                "schema": {"type": "integer"}}}  # fmt: skip


class AnalysesBacklogged(Backlogged):
    """This process has as many analyses waiting as it takes on; retry later."""

    retry_after_seconds = 10


@blp.route("/<game_id>/analysis")
class AnalysisResource(MethodView):
    @blp.doc(
        operationId="getAnalysis",
        summary="The expert's review of a finished game, move by move",
        description=(
            "Anyone may ask once the game is over (409 `game_not_over` before). The first "
            "request starts it in the background: 202 with the progress and `Retry-After` while "
            "it is computed, then 200 with every card a human seat played, the card the "
            "expert's search prefers, each card's value and the points given up, and each human "
            "seat's summary. Each move is judged from what that seat knew alone, so the same "
            "knowledge gets the same values in any game; it is computed once and stored. Past "
            "the server's queue of analyses, 503 with `Retry-After`; starting analyses has a "
            "limit per address (`ANALYSIS_RATE_LIMIT`)."
        ),
    )
    @blp.response(200, analysis_schemas.AnalysisSchema, description="The analysis")
    @blp.alt_response(
        202,
        success=True,
        description="Being computed: ask again after `Retry-After` seconds",
        headers=RETRY_HEADER,
        schema=analysis_schemas.AnalysisProgressSchema,
    )
    @blp.problems("not_found", "game_not_over")
    def get(self, game_id: str) -> Answer:
        found = analysis.analysis(unit_of_work(), game_id, clock_now())
        if found.status is None:  # a new analysis: within the caller's budget
            refused = analysis_refusal()
            if refused is not None:
                return refused
        if found.status is None or found.unclaimed:
            found = _start(game_id, found)
        if found.status == DONE and found.body is not None:  # a done analysis has its body
            return found.body
        response = jsonify(found.progress())
        response.status_code = 202
        response.headers["Retry-After"] = str(RETRY_SECONDS)
        return response


def _start(game_id: str, found: analysis.Analysis) -> analysis.Analysis:
    """Queue the analysis in this process (its row made first if it has none); past the
    queue's room, refused before anything is written."""
    runner = current_app.extensions["basra_analyses"]
    if not runner.has_room(game_id):
        raise AnalysesBacklogged("the server is analysing as many games as it takes on")
    if found.status is None:
        found = analysis.open_analysis(unit_of_work(), game_id, clock_now())
    if found.status != DONE:
        runner.offer(game_id)
    return found
