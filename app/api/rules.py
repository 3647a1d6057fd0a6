"""``GET /rules``: what a game can be set up with, read from the engine's own definition."""

from __future__ import annotations

from flask.views import MethodView

from app.api import request_schemas, rules_schemas
from app.api.blueprints import Answer, ApiBlueprint
from app.engine.catalog import game_setup
from app.services.model import bot_player_id

blp = ApiBlueprint("rules", __name__, url_prefix="/rules", description="Game setup", paths=("",))


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
    )
    @blp.response(
        200,
        rules_schemas.GameSetupSchema,
        description="The setup options (cacheable for 5 minutes)",
    )
    @blp.problems()
    def get(self) -> Answer:
        body = game_setup()
        # Open seats may be listed publicly once POST /games takes "public" (API.md 15).
        body["public_games"] = "public" in request_schemas.CreateGameSchema().fields
        for bot in body["bots"]:  # each level is a player too (GET /players/{id})
            bot["player"] = bot_player_id(bot["level"])
        return body, {"Cache-Control": "public, max-age=300"}
