"""Request limits (flask-limiter and ``limits``), counted where every worker sees them.

- ``RATE_LIMIT``: requests per address over every route together.
- ``TOKEN_RATE_LIMIT``: requests per bearer token (a seat's or a player's) over every /games
  and /seeks route together.
- ``CREATE_RATE_LIMIT``: ``POST /games`` per address (a game of bots alone counts as
  ``BOTS_ONLY_CREATE_COST`` creations: its whole match is played by the server).
- ``JOIN_RATE_LIMIT``: ``POST /games/{id}/join`` per address.
- ``SEEK_RATE_LIMIT``: ``POST /seeks`` per address, and per player bearer as well (each new
  seek runs a pairing pass). A seek with ``bot_after`` may become a game with bots that no
  request of the address creates: it counts as one ``POST /games`` (``CREATE_RATE_LIMIT``),
  and is refused while the address has no bot work left (``BOT_WORK_LIMIT``).
- ``PLAYER_CREATE_RATE_LIMIT``: ``POST /players`` per address (a player costs a row for as
  long as it is kept, and each is a new name on the same address).
- ``ANALYSIS_RATE_LIMIT``: analyses of finished games a client starts, per address (asking for
  one already started or done costs nothing more than the request).
- ``BOT_WORK_LIMIT``: the bots' moves a request made the server play, per address, weighted by
  what they cost (``BOT_MOVE_COST``): a move answered by three expert bots counts 30. A request
  is refused while the address has no work left; what it costs is counted once it is known.

An address is an IPv4 address, or the /64 network of an IPv6 one (one host usually holds a
whole /64, so counting single IPv6 addresses would not limit anybody): the connection's peer,
or behind a balancer listed in ``TRUSTED_PROXIES`` the client it names (app/api/addresses.py).
A site is often given a whole /48 (65,536 /64s), so ``NETWORK_RATE_LIMIT`` counts every IPv6
request of a /48 together as well, a looser limit over every route (16 addresses' worth).

Where counts live: Redis when ``REDIS_URL`` is set (production: shared by every worker of every
instance); otherwise ``RATE_LIMIT_STORAGE`` if set (any storage URI of the ``limits`` library);
otherwise each process's memory (``memory://``), so that N workers of one instance let an address
make up to N times each limit: set ``REDIS_URL`` wherever that matters. ``RATE_LIMIT=off`` turns
every limit off, for benchmarks and load tests run from one address.
"""

from __future__ import annotations

import hashlib
import ipaddress
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, request
from flask_limiter import Limiter
from limits import RateLimitItem, parse
from limits.strategies import RateLimiter

from app.api.addresses import client_ip
from app.api.errors import problem, seconds_until
from app.api.requests import bearer_token
from app.live.handoff import HANDOFF

BOT_MOVE_COST = {"random": 1, "greedy": 1, "skilled": 1, "expert": 10}  # ~ CPU per move, greedy = 1
BOTS_ONLY_CREATE_COST = 5
CREATE_ENDPOINT = "games.GameCollection"
JOIN_ENDPOINT = "games.JoinResource"
SEEK_ENDPOINT = "seeks.SeekCollection"
PLAYER_ENDPOINT = "players.PlayerCollection"
WORK_ENDPOINTS = {CREATE_ENDPOINT, JOIN_ENDPOINT, "games.MovesResource"}

PROBES = ("meta.healthz", "meta.readyz", "meta.metrics_text")  # balancers and Prometheus poll these


def client_address() -> str:
    """The key of the caller's address: IPv4 as is, IPv6 by its /64. The caller is the peer,
    or the client a trusted proxy names (app/api/addresses.py)."""
    address = client_ip(
        request.remote_addr,
        request.headers.get("X-Forwarded-For"),
        current_app.extensions.get("basra_trusted_proxies", ()),
    )
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def client_network() -> str | None:
    """The caller's IPv6 /48, for the looser limit over a whole site; None for IPv4."""
    address = client_address()
    if ":" not in address:
        return None
    return str(ipaddress.ip_network(address, strict=False).supernet(new_prefix=48))


def _token_key() -> str:
    token = bearer_token() or ""
    return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32]


def _no_token() -> bool:
    return not bearer_token()


def storage_uri(config: dict[str, Any] | Any) -> str:
    return str(config.get("REDIS_URL") or config.get("RATE_LIMIT_STORAGE") or "memory://")


@dataclass
class Budgets:
    """The limits flask-limiter cannot express: per-route costs known before or after the work."""

    limiter: Limiter
    create: RateLimitItem
    join: RateLimitItem
    seek: RateLimitItem
    work: RateLimitItem
    network: RateLimitItem
    player: RateLimitItem
    analysis: RateLimitItem

    @property
    def window(self) -> RateLimiter:
        # flask-limiter's own strategy (moving window): over the configured storage, or over its
        # in-memory fallback while that storage does not answer.
        return self.limiter.limiter

    def before(self) -> Response | None:
        network = client_network() if request.endpoint not in PROBES else None
        if network is not None and not self.window.hit(self.network, "network", network):
            return self._refusal(self.network, network)
        if request.method == "POST" and request.endpoint == SEEK_ENDPOINT:
            return self._seek(client_address())
        if request.method == "POST" and request.endpoint == PLAYER_ENDPOINT:
            return self._take(self.player, client_address(), 1)
        if request.method != "POST" or request.endpoint not in WORK_ENDPOINTS:
            return None
        address = client_address()
        if request.endpoint == CREATE_ENDPOINT:
            refused = self._take(self.create, address, _create_cost())
        elif request.endpoint == JOIN_ENDPOINT:
            refused = self._take(self.join, address, 1)
        else:
            refused = None
        if refused is None and not self.window.test(self.work, "work", address):
            refused = self._refusal(self.work, address)
        return refused

    def after(self, response: Response) -> Response:
        if request.endpoint in WORK_ENDPOINTS and response.status_code == 201:
            cost = bot_work(response.get_json(silent=True))
            if cost:
                # Known only now: take what is left, and the next request waits for the rest.
                address = client_address()
                _, remaining = self.window.get_window_stats(self.work, "work", address)
                if remaining > 0:
                    self.window.hit(self.work, "work", address, cost=min(cost, remaining))
        return response

    def _seek(self, address: str) -> Response | None:
        refused = self._take(self.seek, address, 1) or self._take(self.seek, _token_key(), 1)
        if refused is not None or not _with_bots():
            return refused
        refused = self._take(self.create, address, 1)
        if refused is None and not self.window.test(self.work, "work", address):
            refused = self._refusal(self.work, address)
        return refused

    def _take(self, item: RateLimitItem, address: str, cost: int) -> Response | None:
        if self.window.hit(item, "route", address, cost=cost):
            return None
        return self._refusal(item, address)

    def _refusal(self, item: RateLimitItem, address: str) -> Response:
        scope = {id(self.work): "work", id(self.network): "network"}.get(id(item), "route")
        reset, _ = self.window.get_window_stats(item, scope, address)
        return problem(
            "rate_limited",
            f"rate limit exceeded ({item}); retry later",
            {"Retry-After": str(seconds_until(reset))},
        )


def analysis_refusal() -> Response | None:
    """A new analysis takes one from the caller's budget of them; the refusal if none is left
    (no refusal when the limits are off)."""
    budgets: Budgets | None = current_app.extensions.get("basra_budgets")
    if budgets is None:
        return None
    return budgets._take(budgets.analysis, client_address(), 1)


def _create_cost() -> int:
    body = request.get_json(silent=True, cache=True)
    players = body.get("players") if isinstance(body, dict) else None
    if (
        isinstance(players, list)
        and players
        and all(isinstance(p, dict) and "bot" in p for p in players)
    ):
        return BOTS_ONLY_CREATE_COST
    return 1


def _with_bots() -> bool:
    """A seek that may sit with bots (``bot_after`` given)."""
    body = request.get_json(silent=True, cache=True)
    return isinstance(body, dict) and body.get("bot_after") is not None


def bot_work(body: Any) -> int:
    """What the bots' moves in an answer cost: the moves of bot seats, by their level."""
    if not isinstance(body, dict) or not body.get("moves"):
        return 0
    seats = (body.get("state") or {}).get("seats") or []
    levels = {seat.get("seat"): seat.get("bot") for seat in seats if isinstance(seat, dict)}
    return sum(BOT_MOVE_COST.get(levels.get(move.get("seat")) or "", 0) for move in body["moves"])


def _note_retry_after(response: Response) -> Response:
    if "Retry-After" in response.headers:
        g.basra_retry_after = response.headers["Retry-After"]
    return response


# The answers that tell a client to come back later (RFC 9110, 10.2.3): a refusal for now, or
# work accepted and still running (a 202 says when to ask again).
RETRY_LATER = (429, 503)
ASK_LATER = (202, *RETRY_LATER)


def _keep_retry_after(response: Response) -> Response:
    """Retry-After as the answer said it, on a 202, 429 or 503 only: flask-limiter puts one on
    every answer, 200s included, which told clients and caches to wait for nothing."""
    kept = g.pop("basra_retry_after", None)
    if response.status_code not in ASK_LATER:
        response.headers.pop("Retry-After", None)
    elif kept is not None:
        response.headers["Retry-After"] = kept
    return response


def counted_where(limiter: Limiter | None) -> str:
    """Where the limits are counted now: ``storage`` (the configured one: Redis, or this
    process's memory), ``fallback`` (this process's memory, while Redis does not answer) or
    ``off``."""
    if limiter is None:
        return "off"
    return "storage" if limiter.limiter.storage is limiter.storage else "fallback"


def _answered_again() -> bool:
    """A long poll of a seek that heard a change is answered by a second run of its request
    on the entrance (app/asgi.py); the first run was counted, and the client sent one request."""
    handoff = HANDOFF.get()
    return handoff is not None and handoff.resumed


def install_limits(app: Flask, *blueprints: Blueprint) -> Limiter | None:
    address_limit = app.config["RATE_LIMIT"]
    if str(address_limit).strip().lower() == "off":
        return None
    limiter = Limiter(
        key_func=client_address,
        application_limits=[address_limit],  # one count per address over every route
        storage_uri=storage_uri(app.config),
        headers_enabled=True,
        strategy="moving-window",
        # Redis down: each process counts alone (in memory) until it answers again, rather than
        # every limited request failing; /readyz says so.
        in_memory_fallback_enabled=True,
    )
    # flask-limiter's after-request hook rewrites any Retry-After as max(ours, its own reset),
    # truncated to whole seconds: up to a second short, and for its own limit rather than the
    # one that refused (a budget's 429, a 503). After-request hooks run last-registered first,
    # so one registered before it and one after put back what the answer said.
    app.after_request(_keep_retry_after)
    limiter.request_filter(_answered_again)
    limiter.init_app(app)
    app.after_request(_note_retry_after)
    token_limit = app.config["TOKEN_RATE_LIMIT"]
    for blueprint in blueprints:
        # One count per token over every route of the blueprint (a per-route limit would let a
        # client multiply it by the number of routes); the address limit applies as well.
        limiter.shared_limit(
            token_limit, scope="token", key_func=_token_key, exempt_when=_no_token
        )(blueprint)
    for probe in PROBES:
        limiter.exempt(app.view_functions[probe])  # balancers and Prometheus poll these
    budgets = Budgets(
        limiter,
        parse(app.config["CREATE_RATE_LIMIT"]),
        parse(app.config["JOIN_RATE_LIMIT"]),
        parse(app.config["SEEK_RATE_LIMIT"]),
        parse(app.config["BOT_WORK_LIMIT"]),
        parse(app.config["NETWORK_RATE_LIMIT"]),
        parse(app.config["PLAYER_CREATE_RATE_LIMIT"]),
        parse(app.config["ANALYSIS_RATE_LIMIT"]),
    )
    app.before_request(budgets.before)
    app.after_request(budgets.after)
    app.extensions["basra_budgets"] = budgets
    return limiter
