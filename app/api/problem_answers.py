"""The problems each operation can answer, as its OpenAPI responses: one per status, naming its
codes, each with an example document (recorded from a game where there is one). Every code is
read from the one table of problem codes in ``errors.py``, so ``openapi.yaml`` can neither name a
code the server does not know nor miss one it answers."""

from __future__ import annotations

from typing import Any

from app.api.contract import ref
from app.api.errors import PROBLEM_JSON, PROBLEMS

# Every operation can also answer these: the request limits and a database that is down.
ALWAYS = ("rate_limited", "unavailable")


def problem_example(code: str, detail: str | None = None) -> dict[str, Any]:
    status, title = PROBLEMS[code]
    return {
        "type": f"/problems/{code}",
        "title": title,
        "status": status,
        "detail": detail or title,
        "code": code,
    }


def problems(*codes: str, examples: dict[str, dict[str, Any]] | None = None,
             always: tuple[str, ...] = ALWAYS) -> dict[int, Any]:  # fmt: skip
    """The 4xx/5xx answers of one operation, one per status, each naming its codes.

    ``examples`` maps a code to a real problem document (recorded from a game by
    ``app/api/examples.py``); a code without one gets a document built from the table.
    """
    by_status: dict[int, list[str]] = {}
    for code in (*codes, *always):
        if code not in PROBLEMS:
            raise KeyError(f"{code!r} is not in app/api/errors.py's PROBLEMS")
        status = PROBLEMS[code][0]
        if code not in by_status.setdefault(status, []):
            by_status[status].append(code)
    recorded = examples or {}
    answers: dict[int, Any] = {}
    for status in sorted(by_status):
        listed = by_status[status]
        answers[status] = {
            "description": "A problem (RFC 9457) with `code` "
            + ", ".join(f"`{code}` ({PROBLEMS[code][1].lower()})" for code in listed),
            "content": {
                PROBLEM_JSON: {
                    "schema": {
                        "allOf": [
                            ref("Problem"),
                            {"type": "object", "properties": {"code": {"enum": listed}}},
                        ]
                    },
                    "examples": {
                        code: {
                            "summary": PROBLEMS[code][1],
                            "value": recorded.get(code) or problem_example(code),
                        }
                        for code in listed
                    },
                }
            },
        }
    return answers
