"""Seat tokens: shown once, stored only as a SHA-256 hash, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def same_hash(a: str | None, b: str) -> bool:
    return a is not None and hmac.compare_digest(a, b)
