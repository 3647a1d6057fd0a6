"""Who a request's bearer is, as the use cases take it: the token as sent (a seat's or a
player's own), or the player a signed token of an integrator names.

An integrator that signs its users in configures a key (the ``PLAYER_JWT_*`` settings, README):
a JWT bearer checked against it acts as the player its ``sub`` names, made on first sight. This
is an adapter: the use cases are given the verified player (``SignedPlayer``), never the token.
A refused token is a 401 ``unauthorized`` whose detail says which check failed, so an
integrator can tell a wrong key from a clock that runs ahead.

Before a key is chosen the header's ``alg`` must be a text among ``PLAYER_JWT_ALGORITHMS``;
with a public key or a JWKS, ``PLAYER_JWT_AUDIENCE`` is required (a token minted for another
service of the same signer would act here otherwise: the app refuses to start without it);
and no token lives longer than ``PLAYER_JWT_MAX_LIFETIME`` (a day by default), whatever its
``exp`` says."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from flask import current_app

from app.api.errors import ApiError
from app.api.requests import bearer_token, unit_of_work
from app.services import players
from app.services.access import Bearer
from app.services.model import PlayerRecord
from app.services.names import NameRefused, normal_name, reads_as_bot

HMAC_ALGORITHMS = frozenset({"HS256", "HS384", "HS512"})
DEFAULT_MAX_LIFETIME = 86_400  # seconds: PLAYER_JWT_MAX_LIFETIME
DEFAULT_NAME = "player"  # a signed player's name when its claims give none that may be kept
NOT_ALLOWED = "the token's algorithm is not one PLAYER_JWT_ALGORITHMS allows"
# Every PyJWT refusal, each with its own detail (the first that matches, subclasses first).
_FAILURES: tuple[tuple[type[Exception], str], ...] = (
    (jwt.InvalidSignatureError, "the token's signature does not verify"),
    (jwt.ExpiredSignatureError, "the token has expired"),
    (jwt.InvalidIssuerError, "the token was issued by another issuer than PLAYER_JWT_ISSUER"),
    (jwt.InvalidAudienceError, "the token is meant for another audience than PLAYER_JWT_AUDIENCE"),
    (jwt.ImmatureSignatureError, "the token is not valid yet"),
    (jwt.InvalidIssuedAtError, "the token's iat is not a time"),
    (jwt.InvalidAlgorithmError, NOT_ALLOWED),
    (jwt.InvalidKeyError, "the token's algorithm does not fit the key configured for it"),
    (jwt.PyJWKError, "the key of PLAYER_JWT_JWKS for the token does not load"),
    (jwt.exceptions.InvalidSubjectError, "the token's sub is not a text"),
    (jwt.exceptions.InvalidJTIError, "the token's jti is not a text"),
    (jwt.exceptions.MissingCryptographyError, "the token's algorithm needs a library not here"),
    (jwt.DecodeError, "the token is not a well-formed signed token (JWT)"),
    (jwt.PyJWTError, "the token does not verify"),
)
MALFORMED = "the token is not a well-formed signed token (JWT)"


class MissingAudience(RuntimeError):
    """A public key or a JWKS is configured without PLAYER_JWT_AUDIENCE."""


@dataclass(frozen=True, slots=True)
class SignedIdentity:
    subject: str
    name: str


class SignedTokens:
    """The keys and checks of the ``PLAYER_JWT_*`` settings."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.secret: str | None = settings.get("PLAYER_JWT_SECRET") or None
        self.public_key = _pem(settings.get("PLAYER_JWT_PUBLIC_KEY"))
        jwks = settings.get("PLAYER_JWT_JWKS")
        self.jwks = jwt.PyJWKSet.from_json(Path(jwks).read_text()) if jwks else None
        self.issuer: str | None = settings.get("PLAYER_JWT_ISSUER") or None
        self.audience: str | None = settings.get("PLAYER_JWT_AUDIENCE") or None
        named = str(settings.get("PLAYER_JWT_ALGORITHMS") or "")
        default = "HS256" if self.secret else "RS256,ES256,EdDSA"
        self.algorithms = [a.strip() for a in (named or default).split(",") if a.strip()]
        lifetime = settings.get("PLAYER_JWT_MAX_LIFETIME")
        self.max_lifetime = int(lifetime) if lifetime else DEFAULT_MAX_LIFETIME
        if (self.public_key or self.jwks) and not self.audience:
            raise MissingAudience(
                "PLAYER_JWT_AUDIENCE must be set when PLAYER_JWT_PUBLIC_KEY or PLAYER_JWT_JWKS "
                "is: set it to the audience (aud) your identity provider mints this server's "
                "tokens for, so that its tokens for other services are refused here"
            )

    @property
    def configured(self) -> bool:
        return bool(self.secret or self.public_key or self.jwks)

    def identity(self, token: str) -> SignedIdentity:
        """The verified token's player (401 ``unauthorized`` with what failed, if not)."""
        algorithm, key = self._key(token)
        required = ["exp", "sub"] + ["iss"] * bool(self.issuer) + ["aud"] * bool(self.audience)
        try:
            claims = jwt.decode(
                token, key, algorithms=[algorithm], issuer=self.issuer, audience=self.audience,
                options={"require": required, "verify_aud": self.audience is not None},
            )  # fmt: skip
        except jwt.MissingRequiredClaimError as error:
            raise ApiError("unauthorized", f"the token has no {error.claim!r} claim") from error
        except jwt.PyJWTError as error:
            detail = next(text for kind, text in _FAILURES if isinstance(error, kind))
            raise ApiError("unauthorized", detail) from error
        self._check_lifetime(claims)
        subject = claims["sub"]
        if not isinstance(subject, str) or not 0 < len(subject) <= 255 or not _storable(subject):
            raise ApiError("unauthorized", "the token's sub is not a text of 1 to 255 characters")
        name = claims.get("name") or claims.get("preferred_username")
        return SignedIdentity(subject, _name(name))

    def _check_lifetime(self, claims: Mapping[str, Any]) -> None:
        """No token lives longer than ``max_lifetime``, from its ``iat`` (or from now)."""
        now = time.time()
        issued = claims.get("iat")
        start = min(now, issued) if isinstance(issued, int | float) else now
        if float(claims["exp"]) - start > self.max_lifetime:
            raise ApiError(
                "unauthorized",
                f"the token lives longer than PLAYER_JWT_MAX_LIFETIME ({self.max_lifetime} s)",
            )

    def _key(self, token: str) -> tuple[str, Any]:
        """The token's algorithm, once it is a text PLAYER_JWT_ALGORITHMS allows, and its key:
        the secret for HMAC, else the public key or the JWKS key its ``kid`` names (never the
        secret for a public-key algorithm, nor back)."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as error:
            raise ApiError("unauthorized", MALFORMED) from error
        algorithm = header.get("alg")
        if not isinstance(algorithm, str) or algorithm not in self.algorithms:
            raise ApiError("unauthorized", NOT_ALLOWED)
        if algorithm in HMAC_ALGORITHMS:
            return algorithm, self.secret or ""  # no secret: the signature cannot verify
        if self.jwks is not None:
            kid = header.get("kid")
            keys = [key for key in self.jwks.keys if kid is None or key.key_id == kid]
            if not keys:
                raise ApiError("unauthorized", "no key of PLAYER_JWT_JWKS has the token's kid")
            return algorithm, keys[0]
        return algorithm, self.public_key or ""


def looks_signed(token: str) -> bool:
    """A JWT has three parts; a seat's or a player's own token has no dot."""
    return token.count(".") == 2


def _pem(value: str | None) -> str | None:
    """PEM text as it is, or the PEM file a path names."""
    if not value:
        return None
    return value if value.lstrip().startswith("-----BEGIN") else Path(value).read_text()


def _storable(text: str) -> bool:
    """Text a database stores: no NUL, no lone surrogate."""
    return "\x00" not in text and not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def _name(claimed: Any) -> str:
    """The player's name from the token's claims, through the one normaliser of names; one
    it refuses (or one that reads as a bot's) gives way to a default name, never a refusal."""
    try:
        name = normal_name(claimed if isinstance(claimed, str) else "")
    except NameRefused:
        return DEFAULT_NAME
    return DEFAULT_NAME if reads_as_bot(name) else name


def caller() -> Bearer:
    """The request's bearer; a signed token is verified here (401 if it does not verify),
    and its subject's player made on first sight."""
    token = bearer_token()
    signed: SignedTokens = current_app.extensions["basra_signed_tokens"]
    if token is None or not signed.configured or not looks_signed(token):
        return token
    identity = signed.identity(token)
    return players.signed_in(unit_of_work(), identity.subject, identity.name)


def calling_player() -> PlayerRecord:
    """The player the request's bearer names (401 if none)."""
    return players.identify(unit_of_work(), caller())
