"""Who a request's bearer is, as the use cases take it: the token as sent (a seat's or a
player's own), or the player a verified signed token names (signed_tokens.py)."""

from __future__ import annotations

from flask import current_app

from app.api.requests import bearer_token
from app.api.signed_tokens import SignedTokens, looks_signed
from app.services import players
from app.services.access import Bearer
from app.services.player_store import PlayerRecord
from app.services.unit_of_work import AbstractUnitOfWork


def _uow() -> AbstractUnitOfWork:
    uow: AbstractUnitOfWork = current_app.extensions["basra_uow"]()
    return uow


def caller() -> Bearer:
    """The request's bearer; a signed token is verified here (401 if it does not verify),
    and its subject's player made on first sight."""
    token = bearer_token()
    signed: SignedTokens = current_app.extensions["basra_signed_tokens"]
    if token is None or not signed.configured or not looks_signed(token):
        return token
    identity = signed.identity(token)
    return players.signed_in(_uow(), identity.subject, identity.name)


def calling_player() -> PlayerRecord:
    """The player the request's bearer names (401 if none)."""
    return players.identify(_uow(), caller())
