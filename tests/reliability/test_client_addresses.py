"""Whose address a request counts against: the peer's, or behind a trusted balancer the client's.

Behind deploy/haproxy.cfg every request's peer is HAProxy, so limits per address counted by
peer were limits for the whole site: one stranger's 20 creations a minute refused every other
user's. Now HAProxy names the client in X-Forwarded-For (replacing whatever the client wrote)
and the app believes that header only from a peer in TRUSTED_PROXIES.

Three layers: the rule itself (a table), the app's limits in process, and a real HAProxy in front
of a real gunicorn, with clients on distinct loopback addresses (127.0.0.2, ...: Linux routes
the whole of 127/8 to the loopback interface, so a client socket can be bound to any of them).
The limit counted is RATE_LIMIT over GET /rules, which reads no game: what is tested is whose
count a request lands in, not the database.
"""

from __future__ import annotations

import http.client
import ipaddress
from collections.abc import Iterator
from typing import Any

import pytest

from app import create_app
from app.api.addresses import client_ip, trusted_proxies

from .balancer import HAProxy, haproxy
from .servers import Gunicorn, fresh_sqlite, gunicorn
from .support import assert_problem, fresh_redis

LIMIT = "3 per minute"
PROXY = trusted_proxies("127.0.0.1, 10.0.0.0/8, fd00::/8")


@pytest.mark.parametrize(
    ("peer", "forwarded_for", "trusted", "client"),
    [
        # A peer nobody trusts is the client, whatever it writes.
        ("198.51.100.7", "203.0.113.5", PROXY, "198.51.100.7"),
        ("198.51.100.7", None, PROXY, "198.51.100.7"),
        # Nothing trusted (the default): the header is never read.
        ("127.0.0.1", "203.0.113.5", (), "127.0.0.1"),
        # The balancer names the client.
        ("127.0.0.1", "203.0.113.5", PROXY, "203.0.113.5"),
        ("127.0.0.1", " 203.0.113.5 ", PROXY, "203.0.113.5"),
        # Read from the right: what the client wrote further left is not believed...
        ("127.0.0.1", "192.0.2.1, 203.0.113.5", PROXY, "203.0.113.5"),
        # ...except through proxies we trust (a second one in front of the balancer).
        ("127.0.0.1", "203.0.113.5, 10.1.2.3", PROXY, "203.0.113.5"),
        # All trusted: the leftmost is as far as anyone can say.
        ("127.0.0.1", "10.9.9.9, 10.1.2.3", PROXY, "10.9.9.9"),
        # Not an address: stop there, at the last one that was.
        ("127.0.0.1", "203.0.113.5, unknown", PROXY, "127.0.0.1"),
        ("127.0.0.1", "unknown, 10.1.2.3", PROXY, "10.1.2.3"),
        ("127.0.0.1", "", PROXY, "127.0.0.1"),
        # IPv6, bracketed with a port, and an IPv4 peer written as IPv6.
        ("fd00::1", "2001:db8::7", PROXY, "2001:db8::7"),
        ("127.0.0.1", "[2001:db8::7]:4711", PROXY, "2001:db8::7"),
        ("::ffff:127.0.0.1", "203.0.113.5", PROXY, "203.0.113.5"),
        # No peer at all (a server that does not say).
        (None, "203.0.113.5", PROXY, "unknown"),
    ],
)
def test_the_client_is_the_peer_or_whom_a_trusted_proxy_names(
    peer: str | None, forwarded_for: str | None, trusted: Any, client: str
) -> None:
    assert client_ip(peer, forwarded_for, trusted) == client


def test_trusted_proxies_are_read_from_the_setting_and_a_wrong_one_stops_the_start() -> None:
    assert trusted_proxies("") == ()
    assert trusted_proxies(None) == ()
    assert trusted_proxies(" 127.0.0.1 ,10.0.0.0/8,") == (
        ipaddress.ip_network("127.0.0.1/32"),
        ipaddress.ip_network("10.0.0.0/8"),
    )
    with pytest.raises(ValueError, match="TRUSTED_PROXIES"):
        trusted_proxies("127.0.0.1, the-balancer")
    with pytest.raises(ValueError, match="TRUSTED_PROXIES"):
        create_app({"DATABASE_URL": "sqlite://", "TRUSTED_PROXIES": "10.0.0.0/33"})


# ------------------------------------------------------------------ the app, in process
@pytest.fixture(scope="module")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return fresh_sqlite(tmp_path_factory, "addresses")[1]


@pytest.fixture
def make_app(sqlite_url: str) -> Iterator[Any]:
    apps: list[Any] = []

    def make(trusted: str = "") -> Any:
        app = create_app(
            {"DATABASE_URL": sqlite_url, "RATE_LIMIT": LIMIT, "TRUSTED_PROXIES": trusted}
        )  # fmt: skip
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["basra_db"].dispose()


def _rules(app: Any, peer: str, forwarded_for: str | None = None) -> int:
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for is not None else {}
    response = app.test_client().get("/rules", headers=headers, environ_base={"REMOTE_ADDR": peer})
    if response.status_code == 429:
        assert_problem(response, 429, "rate_limited")
    return int(response.status_code)


def test_behind_a_trusted_proxy_each_client_has_a_budget_of_its_own(make_app: Any) -> None:
    app = make_app("127.0.0.1")
    assert [_rules(app, "127.0.0.1", "203.0.113.5") for _ in range(4)] == [200, 200, 200, 429]
    assert _rules(app, "127.0.0.1", "203.0.113.6") == 200  # another user behind the balancer
    # A client naming another address to its left is still counted as itself.
    assert _rules(app, "127.0.0.1", "192.0.2.44, 203.0.113.5") == 429


def test_a_peer_that_is_not_trusted_cannot_name_itself_a_new_address(make_app: Any) -> None:
    app = make_app("127.0.0.1")
    answers = [_rules(app, "198.51.100.7", f"203.0.113.{n}") for n in range(4)]
    assert answers == [200, 200, 200, 429]


def test_with_no_trusted_proxy_the_header_is_not_read(make_app: Any) -> None:
    app = make_app()
    answers = [_rules(app, "127.0.0.1", f"203.0.113.{n}") for n in range(4)]
    assert answers == [200, 200, 200, 429]


# ------------------------------------------------------------------ HAProxy and gunicorn
@pytest.fixture(scope="module")
def balanced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HAProxy, Gunicorn]]:
    """deploy/haproxy.cfg in front of one gunicorn (both of its replicas are that one), which
    trusts X-Forwarded-For from 127.0.0.1, the address HAProxy connects from."""
    log_dir, url = fresh_sqlite(tmp_path_factory, "balanced")
    env = {"RATE_LIMIT": LIMIT, "TRUSTED_PROXIES": "127.0.0.1",
           "REDIS_URL": fresh_redis()}  # fmt: skip
    with gunicorn(url, log_dir, workers=2, env=env) as server:
        upstream = f"127.0.0.1:{server.port}"
        with haproxy([upstream, upstream], log_dir) as balancer:
            balancer.wait_for({"api-1": "UP", "api-2": "UP"})
            yield balancer, server


def _get_from(source: str, port: int, headers: dict[str, str] | None = None) -> int:
    """GET /rules on 127.0.0.1:``port`` from a socket bound to ``source``: a new connection each
    time, as a new client's would be."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=10, source_address=(source, 0)
    )
    try:
        connection.request("GET", "/rules", headers=headers or {})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


@pytest.mark.slow
def test_through_haproxy_one_client_spending_its_budget_leaves_the_others_theirs(
    balanced: tuple[HAProxy, Gunicorn],
) -> None:
    balancer, _ = balanced
    spent = [_get_from("127.0.0.2", balancer.port) for _ in range(4)]
    assert spent == [200, 200, 200, 429]
    assert _get_from("127.0.0.3", balancer.port) == 200


@pytest.mark.slow
@pytest.mark.parametrize(("way", "source"), [("through HAProxy", "127.0.0.4"),
                                             ("straight to gunicorn", "127.0.0.5")])  # fmt: skip
def test_a_forged_forwarded_for_changes_nothing(
    balanced: tuple[HAProxy, Gunicorn], way: str, source: str
) -> None:
    """Through HAProxy the header is replaced; straight to gunicorn, the peer is not trusted."""
    balancer, server = balanced
    port = balancer.port if way == "through HAProxy" else server.port
    forged = [_get_from(source, port, {"X-Forwarded-For": f"127.0.9.{n}"}) for n in range(4)]
    assert forged == [200, 200, 200, 429]
