"""Request limits per address and per seat token (flask-limiter).

In memory by default (per process); shared through Redis when REDIS_URL is set.
RATE_LIMIT=off turns them off, for benchmarks and load tests from one address.
"""

from __future__ import annotations

import hashlib

from flask import Blueprint, Flask
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from app.api.requests import bearer_token


def _token_key() -> str:
    token = bearer_token() or ""
    return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32]


def _no_token() -> bool:
    return not bearer_token()


def install_limits(app: Flask, *blueprints: Blueprint) -> Limiter | None:
    address_limit = app.config["RATE_LIMIT"]
    if str(address_limit).strip().lower() == "off":
        return None
    limiter = Limiter(
        key_func=get_remote_address,
        app=app,
        application_limits=[address_limit],  # one count per address over every route
        storage_uri=app.config.get("REDIS_URL") or "memory://",
        headers_enabled=True,
        strategy="moving-window",
    )
    token_limit = app.config["TOKEN_RATE_LIMIT"]
    for blueprint in blueprints:
        # One count per token over every route of the blueprint (a per-route limit would let a
        # client multiply it by the number of routes); the address limit applies as well.
        limiter.shared_limit(
            token_limit, scope="token", key_func=_token_key, exempt_when=_no_token
        )(blueprint)
    for probe in ("meta.healthz", "meta.readyz", "meta.metrics_text"):
        limiter.exempt(app.view_functions[probe])  # balancers and Prometheus poll these
    return limiter
