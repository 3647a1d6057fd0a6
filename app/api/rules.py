"""``GET /rules``: what a game can be set up with, read from the engine's own definition."""

from __future__ import annotations

from flask import Response, jsonify
from flask.views import MethodView
from flask_smorest import Blueprint

from app.api import request_schemas, rules_schemas
from app.api.problem_answers import problems
from app.engine.catalog import game_setup
from app.services.player_store import bot_player_id

blp = Blueprint("rules", __name__, url_prefix="/rules", description="Game setup")


@blp.route("")
class RulesResource(MethodView):
    @blp.doc(
        summary="Every rule option with its allowed values, default and explanation",
        operationId="getRules",
        description=(
            "Anyone may read it; nothing changes. The player counts, bot levels, target-score "
            "range and presets, and each key that "
            "`rules` in `POST /games` accepts. Clients build their setup forms from this "
            "instead of keeping a copy of the rules."
        ),
        responses={
            200: {
                "description": "The setup options (cacheable for 5 minutes)",
                "content": {"application/json": {"schema": rules_schemas.GameSetupSchema}},
            },
            **problems(),
        },
    )
    def get(self) -> Response:
        body = game_setup()
        # Open seats may be listed publicly once POST /games takes "public" (API.md 15).
        body["public_games"] = "public" in request_schemas.CreateGameSchema().fields
        for bot in body["bots"]:  # each level is a player too (GET /players/{id})
            bot["player"] = bot_player_id(bot["level"])
        response = jsonify(body)
        response.headers["Cache-Control"] = "public, max-age=300"
        return response
