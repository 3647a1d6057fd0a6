"""Players signed in by an integrator (API.md item 17): JWT bearers checked against the
PLAYER_JWT_* settings, each failure a 401 with its own detail."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from app import create_app
from app.api.bearers import MissingAudience

from .helpers import bearer

SECRET = "a secret the integrator shares with the server, 32+ bytes"
ISSUER, AUDIENCE = "https://accounts.example", "basra"
SIGNING_KEY = Ed25519PrivateKey.generate()
PUBLIC_PEM = (
    SIGNING_KEY.public_key()
    .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    .decode()
)


@pytest.fixture(scope="module")
def signed_client(database_url: str) -> Iterator[Any]:
    """An app that takes HS256 tokens signed with SECRET and EdDSA ones with SIGNING_KEY."""
    app = create_app({
        "DATABASE_URL": database_url, "RATE_LIMIT": "off", "PLAYER_JWT_SECRET": SECRET,
        "PLAYER_JWT_PUBLIC_KEY": PUBLIC_PEM, "PLAYER_JWT_ISSUER": ISSUER,
        "PLAYER_JWT_AUDIENCE": AUDIENCE, "PLAYER_JWT_ALGORITHMS": "HS256,EdDSA",
    })  # fmt: skip
    yield app.test_client()
    app.extensions["basra_bot_runner"].stop()
    app.extensions["basra_db"].dispose()


def signed(subject: str, key: Any = SECRET, algorithm: str = "HS256", **claims: Any) -> str:
    body = {"sub": subject, "iss": ISSUER, "aud": AUDIENCE, "exp": int(time.time()) + 600,
            "name": "Amira", **claims}  # fmt: skip
    return jwt.encode(body, key, algorithm=algorithm)


def test_a_signed_subject_is_a_player_made_on_first_sight(signed_client: Any):
    token = signed("user-1", preferred_username="amira")
    first = signed_client.get("/players/me", headers=bearer(token)).get_json()
    assert first["name"] == "Amira" and first["rating"]["provisional"] is True
    again = signed_client.get("/players/me", headers=bearer(signed("user-1", name="Other")))
    assert again.get_json()["id"] == first["id"]


def test_an_eddsa_token_signed_by_the_public_keys_owner_is_accepted(signed_client: Any):
    token = signed("user-ed", SIGNING_KEY, "EdDSA")
    assert signed_client.get("/players/me", headers=bearer(token)).status_code == 200
    forged = signed("user-ed", Ed25519PrivateKey.generate(), "EdDSA")
    refused = signed_client.get("/players/me", headers=bearer(forged)).get_json()
    assert refused["code"] == "unauthorized" and "signature" in refused["detail"]


# Each token is made when its test runs: one made at collection may have expired by then.
REFUSED = {
    "bad signature": (lambda: signed("user-2", key="another secret, as long as the first one is"),
                      "signature"),
    "wrong issuer": (lambda: signed("user-2", iss="https://elsewhere.example"), "issuer"),
    "wrong audience": (lambda: signed("user-2", aud="another-app"), "audience"),
    "expired": (lambda: signed("user-2", exp=int(time.time()) - 60), "expired"),
    "malformed": (lambda: "not.a.jwt", "well-formed"),
    "no sub": (lambda: jwt.encode({"iss": ISSUER, "aud": AUDIENCE, "exp": 2**40}, SECRET), "'sub'"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_signed_token_is_401_saying_which_check_failed(signed_client: Any, case: str):
    make_token, word = REFUSED[case]
    refused = signed_client.get("/players/me", headers=bearer(make_token()))
    assert refused.status_code == 401
    problem = refused.get_json()
    assert problem["code"] == "unauthorized" and word in problem["detail"], problem["detail"]


def test_every_refusal_has_a_detail_of_its_own(signed_client: Any):
    tokens = [signed("u", key="x" * 40), signed("u", iss="other"), signed("u", aud="other"),
              signed("u", exp=1), "a.b.c"]  # fmt: skip
    details = {signed_client.get("/players/me", headers=bearer(t)).get_json()["detail"]
               for t in tokens}  # fmt: skip
    assert len(details) == len(tokens)


def test_a_signed_player_plays_the_seat_it_holds(signed_client: Any):
    token = signed("user-3")
    created = signed_client.post("/games", json={"players": [{"player": "me"}, {"bot": "greedy"}]},
                                 headers=bearer(token)).get_json()  # fmt: skip
    view = signed_client.get(f"/games/{created['id']}", headers=bearer(token)).get_json()
    assert view["you"] == 0 and view["seats"][0]["player"] == created["seats"][0]["player"]
    played = signed_client.post(f"/games/{created['id']}/moves", json={"card": view["hand"][0]},
                                headers=bearer(token))  # fmt: skip
    assert played.status_code == 201
    stranger = signed_client.get(f"/games/{created['id']}", headers=bearer(signed("user-4")))
    assert stranger.status_code == 403


def test_an_rs256_token_is_checked_against_the_jwks_key_its_kid_names(tmp_path: Any):
    from cryptography.hazmat.primitives.asymmetric import rsa

    from app.api.bearers import SignedTokens
    from app.api.errors import ApiError

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
    (tmp_path / "jwks.json").write_text(jwt.api_jws.json.dumps({"keys": [public | {"kid": "k1"}]}))
    tokens = SignedTokens({"PLAYER_JWT_JWKS": str(tmp_path / "jwks.json"),
                           "PLAYER_JWT_AUDIENCE": AUDIENCE})  # fmt: skip
    body = {"sub": "user-rs", "exp": int(time.time()) + 60, "name": "Badr", "aud": AUDIENCE}
    good = jwt.encode(body, key, algorithm="RS256", headers={"kid": "k1"})
    assert tokens.identity(good).subject == "user-rs"
    with pytest.raises(ApiError, match="kid"):
        tokens.identity(jwt.encode(body, key, algorithm="RS256", headers={"kid": "k2"}))
    with pytest.raises(ApiError, match="algorithm"):  # never the HMAC of a public key
        tokens.identity(jwt.encode(body, "x" * 40, algorithm="HS256"))


RSA_KEY = None  # made on first use: a 2048-bit key takes a while


def rsa_key() -> Any:
    global RSA_KEY
    if RSA_KEY is None:
        from cryptography.hazmat.primitives.asymmetric import rsa

        RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return RSA_KEY


@pytest.fixture(scope="module")
def rsa_client(database_url: str) -> Iterator[Any]:
    """An app that takes the tokens of an RSA public key, with the default algorithms."""
    pem = (
        rsa_key()
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    app = create_app({"DATABASE_URL": database_url, "RATE_LIMIT": "off",
                      "PLAYER_JWT_PUBLIC_KEY": pem, "PLAYER_JWT_AUDIENCE": AUDIENCE})  # fmt: skip
    yield app.test_client()
    app.extensions["basra_bot_runner"].stop()
    app.extensions["basra_db"].dispose()


def forged(header: dict[str, Any], **claims: Any) -> str:
    """A token with any header at all, and a signature that is not one."""
    body = {"sub": "user-h", "aud": AUDIENCE, "exp": int(time.time()) + 600, **claims}

    def part(value: Any) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    return f"{part(header)}.{part(body)}.{part('signature')}"


@pytest.mark.parametrize(
    "header",
    [{"alg": "ES256"}, {"alg": "EdDSA"}, {"alg": ["RS256"]}, {"alg": {"RS256": 1}},
     {"alg": None}, {"alg": "none"}, {"alg": "HS256"}, {"alg": "RS256", "kid": ["x"]}],
    ids=str,
)  # fmt: skip
def test_a_token_whose_header_does_not_fit_the_key_is_401_never_a_500(
    rsa_client: Any, header: dict[str, Any]
):
    refused = rsa_client.get("/players/me", headers=bearer(forged({"typ": "JWT", **header})))
    assert refused.status_code == 401, refused.get_json()
    assert refused.get_json()["code"] == "unauthorized" and refused.get_json()["detail"]


def test_an_algorithm_allowed_but_unfit_for_the_key_says_so(rsa_client: Any):
    token = jwt.encode({"sub": "u", "aud": AUDIENCE, "exp": int(time.time()) + 60},
                       Ed25519PrivateKey.generate(), algorithm="EdDSA")  # fmt: skip
    refused = rsa_client.get("/players/me", headers=bearer(token)).get_json()
    assert refused["code"] == "unauthorized" and "key" in refused["detail"], refused["detail"]
    good = jwt.encode({"sub": "u", "aud": AUDIENCE, "exp": int(time.time()) + 60}, rsa_key(),
                      algorithm="RS256")  # fmt: skip
    assert rsa_client.get("/players/me", headers=bearer(good)).status_code == 200


def test_a_public_key_without_an_audience_keeps_the_service_from_starting(database_url: str):
    with pytest.raises(MissingAudience, match="PLAYER_JWT_AUDIENCE must be set"):
        create_app({"DATABASE_URL": database_url, "PLAYER_JWT_PUBLIC_KEY": PUBLIC_PEM})


def test_a_token_that_lives_longer_than_the_cap_is_refused(signed_client: Any):
    long_lived = signed("user-5", exp=int(time.time()) + 31 * 365 * 86_400)
    refused = signed_client.get("/players/me", headers=bearer(long_lived)).get_json()
    assert refused["code"] == "unauthorized" and "PLAYER_JWT_MAX_LIFETIME" in refused["detail"]
    issued_long_ago = signed("user-5", iat=int(time.time()) - 2 * 86_400)
    assert signed_client.get("/players/me", headers=bearer(issued_long_ago)).status_code == 401
    assert signed_client.get("/players/me", headers=bearer(signed("user-5"))).status_code == 200


def test_a_lone_surrogate_in_a_tokens_sub_is_401_and_in_its_name_gives_a_default_name(
    signed_client: Any,
):
    refused = signed_client.get("/players/me", headers=bearer(signed("user-\ud800")))
    assert refused.status_code == 401 and "sub" in refused.get_json()["detail"]
    named = signed_client.get("/players/me", headers=bearer(signed("user-6", name="A\udc00")))
    assert named.status_code == 200 and named.get_json()["name"] == "player"


REFUSED_NAMES = ["Expert bot", "\u0395xpert bot", "Random\u00a0bot", "  ", "\u202e"]


@pytest.mark.parametrize("name", REFUSED_NAMES)
def test_a_signed_name_that_is_refused_gives_way_to_a_default_name(signed_client: Any, name: str):
    found = signed_client.get("/players/me", headers=bearer(signed(f"user-{name!r}", name=name)))
    assert found.status_code == 200 and found.get_json()["name"] == "player"
