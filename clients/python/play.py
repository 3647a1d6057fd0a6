"""Plays one game of Basra against the greedy bot through a typed client generated from
openapi.yaml by openapi-python-client (docs/clients.md). tests/api/test_clients.py generates the
client, checks this program against it with mypy --strict, and runs it against a live server.

    openapi-python-client generate --path openapi.yaml --meta none \\
        --output-path clients/python/basra_client --config clients/python/config.yaml
    python clients/python/play.py http://127.0.0.1:8000
"""

from __future__ import annotations

import json
import sys

from basra_client import AuthenticatedClient, Client
from basra_client.api.games import create_game, play_card, verify_game
from basra_client.models import (
    BotLevel,
    Card,
    CreatedGame,
    CreateGame,
    CreateGameBot,
    CreateGameHuman,
    Move,
    MoveResult,
    Rules,
    Verify,
    View,
)


def choose(view: View) -> Card:
    """The card that takes the most floor cards, a basra first."""
    moves = view.legal_moves or []
    best = max(moves, key=lambda move: (move.basra is not None, len(move.captured)))
    return best.card


def main(base_url: str) -> dict[str, object]:
    public = Client(base_url=base_url, raise_on_unexpected_status=True)
    body = CreateGame(
        players=[CreateGameHuman(name="Amira", seed="python"), CreateGameBot(bot=BotLevel.GREEDY)],
        rules=Rules(target_score=31),
    )
    created = create_game.sync(client=public, body=body)
    if not isinstance(created, CreatedGame):
        raise SystemExit(f"cannot create a game: {created}")
    token = created.seats[0].token
    if not isinstance(token, str):
        raise SystemExit("a human seat gets a token")
    seat = AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True)

    view, moves = created.state, 0
    while view.status == "active":
        played = play_card.sync(created.id, client=seat, body=Move(card=choose(view)),
                                idempotency_key=f"move-{moves}")  # fmt: skip
        if not isinstance(played, MoveResult):
            raise SystemExit(f"move refused: {played}")  # a problem document, typed per status
        moves += len(played.moves)
        view = played.state

    verdict = verify_game.sync(created.id, client=public)
    if not isinstance(verdict, Verify):
        raise SystemExit(f"cannot verify: {verdict}")
    scores = [side.score for side in view.sides]
    return {"game": created.id, "status": str(view.status), "moves": moves,
            "winner": view.winner, "scores": scores, "verified": verdict.ok}  # fmt: skip


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")))
