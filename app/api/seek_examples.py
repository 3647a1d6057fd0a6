"""The examples of matchmaking, recorded with the rest (app/api/examples.py passes its
``Book``): two players seek alike and are seated together; a third seeks and cancels."""

from __future__ import annotations

from typing import Any

RULES = {"target_score": 61}  # a kind of table of its own: no other example seeks it


def record_seeks(book: Any) -> None:
    amira = book.send("POST", "/players", {"name": "Amira"}).get_json()["token"]
    badr = book.send("POST", "/players", {"name": "Badr"}).get_json()["token"]
    two = {"players": 2, "rules": RULES}
    first = book.exchange("POST /seeks", "/seeks", two, status=201, token=amira,
                          request=("two", "A game of two, to 61 points"))  # fmt: skip
    book.problem("already_seeking", "POST", "/seeks", {"players": 4}, token=amira)
    book.exchange("POST /seeks", "/seeks", two, status=201, token=badr)
    url = f"/seeks/{first['id']}"
    book.exchange("GET /seeks/{seek_id}", f"{url}?wait=5", status=200, token=amira)
    book.problem("seek_not_waiting", "DELETE", url, token=amira)
    chadi = book.send("POST", "/players", {"name": "Chadi"}).get_json()["token"]
    four = {"players": 4, "rated": True, "bot_after": 30}
    waiting = book.exchange(
        "POST /seeks", "/seeks", four, status=201, token=chadi,
        request=("four_rated", "A rated game of four; bots take the other seats after 30 s"),
    )  # fmt: skip
    cancelled = book.send("DELETE", f"/seeks/{waiting['id']}", token=chadi)
    if cancelled.status_code != 204:
        raise AssertionError(f"DELETE /seeks: {cancelled.status_code} {cancelled.get_json()}")
