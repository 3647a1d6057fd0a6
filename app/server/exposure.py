"""Whether the server listens where anyone may reach it with nothing in front: said loudly at
start, since everything the proxy does for it (buffering slow clients, capping an address's
connections, naming the client in ``X-Forwarded-For``) is then undone (docs/scaling.md)."""

from __future__ import annotations

import ipaddress


def exposure_warning(bind: str, trusted_proxies: str) -> str | None:
    """The warning for a server bound to ``bind`` (``host:port``) when its host is not a
    loopback address and no proxy is trusted (``TRUSTED_PROXIES`` unset); None otherwise."""
    host = bind.rsplit(":", 1)[0].strip("[]") if ":" in bind else bind
    if trusted_proxies.strip() or _loopback(host):
        return None
    return (
        f"listening on {bind}, beyond loopback, with no proxy in front (TRUSTED_PROXIES is "
        "unset): slow clients hold workers, an address's connections are not capped, and "
        "every client shares its rate limits with whoever is behind the same address. Put "
        "the shipped balancer (deploy/haproxy.cfg) in front and set TRUSTED_PROXIES, or bind "
        "HOST=127.0.0.1"
    )


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: it may resolve anywhere
