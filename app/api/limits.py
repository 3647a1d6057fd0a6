"""Request limits per address and per seat token (flask-limiter).

In memory by default (per process); shared through Redis when REDIS_URL is set.
RATE_LIMIT=off turns them off, for benchmarks and load tests from one address.
"""

from __future__ import annotations

import hashlib

from flask import Flask
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from app.api.requests import bearer_token


def _token_key() -> str:
    token = bearer_token() or ""
    return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32]


def _no_token() -> bool:
    return not bearer_token()


def install_limits(app: Flask, *blueprints: object) -> Limiter | None:
    address_limit = app.config["RATE_LIMIT"]
    if str(address_limit).strip().lower() == "off":
        return None
    limiter = Limiter(
        key_func=get_remote_address,
        app=app,
        default_limits=[address_limit],
        storage_uri=app.config.get("REDIS_URL") or "memory://",
        headers_enabled=True,
        strategy="moving-window",
    )
    token_limit = app.config["TOKEN_RATE_LIMIT"]
    for blueprint in blueprints:
        limiter.limit(token_limit, key_func=_token_key, exempt_when=_no_token, per_method=False)(
            blueprint
        )
    limiter.exempt(app.view_functions["meta.healthz"])
    return limiter
