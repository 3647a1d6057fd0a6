"""The reference web client: static pages that use nothing but the documented HTTP API.

`/` is the lobby and table, `/play/<id>` opens one game on the same page, `/replay/<id>` steps
through a finished game and re-checks its fairness in the browser, `/profile` (or
`/profile/<player id>`) shows a player's rating, its chart, its games and the
leaderboard. The pages are plain files in `static/`; the JavaScript reads the game or
player id from the address itself.
"""

from flask import Blueprint, Response

bp = Blueprint("web", __name__, static_folder="static", static_url_path="/static/web")


@bp.get("/")
def lobby() -> Response:
    return bp.send_static_file("index.html")


@bp.get("/play/<game_id>")
def play(game_id: str) -> Response:
    return bp.send_static_file("index.html")


@bp.get("/replay/<game_id>")
def replay(game_id: str) -> Response:
    return bp.send_static_file("replay.html")


@bp.get("/profile")
@bp.get("/profile/<player_id>")
def profile(player_id: str | None = None) -> Response:
    return bp.send_static_file("profile.html")
