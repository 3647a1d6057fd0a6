"""Who sent a request: the connection's peer, or, when the peer is a proxy we trust, the client
that the proxy names in ``X-Forwarded-For``.

Every limit per address (app/api/limits.py, app/live/stream_slots.py) keys on this. Behind a
balancer the peer of every request is the balancer: counted by peer, all of a site's users
would share one address's budget, and a stranger who spent it (20 games a minute) would stop
everybody. Only a peer listed in ``TRUSTED_PROXIES`` is believed; anybody else could write any
``X-Forwarded-For`` and be a new address each time. The header is read from its right end, the
entry the nearest proxy wrote, skipping the proxies we trust (a CDN in front of HAProxy, say),
as nginx's ``real_ip_recursive`` does: entries further left were written by the client or by
proxies we know nothing of. deploy/haproxy.cfg replaces whatever the client sent with its own
``%[src]``, so there is one entry.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_proxies(setting: str | Iterable[str] | None) -> tuple[Network, ...]:
    """``TRUSTED_PROXIES``: addresses or networks, comma-separated (``127.0.0.1``,
    ``10.0.0.0/8``, ``fd00::/8``); empty trusts nobody. A wrong entry is a ValueError at start-up,
    not a proxy silently untrusted."""
    if setting is None:
        return ()
    entries = setting.split(",") if isinstance(setting, str) else list(setting)
    networks = []
    for entry in (entry.strip() for entry in entries):
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError as error:
            raise ValueError(f"TRUSTED_PROXIES: {entry!r} is not an address or network") from error
    return tuple(networks)


def client_ip(peer: str | None, forwarded_for: str | None, trusted: tuple[Network, ...]) -> str:
    """The address the request came from, as text ("unknown" without a peer)."""
    address = _parsed(peer)
    if address is None:
        return peer or "unknown"
    if not forwarded_for or not _is_trusted(address, trusted):
        return str(address)
    for entry in reversed(forwarded_for.split(",")):
        named = _parsed(entry)
        if named is None:  # not an address: what is left of it cannot be trusted either
            break
        address = named
        if not _is_trusted(named, trusted):
            break
    return str(address)


def _is_trusted(address: Address, trusted: tuple[Network, ...]) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address.version == network.version and address in network for network in trusted)


def _parsed(text: str | None) -> Address | None:
    if not text:
        return None
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[2001:db8::1]:4711", as some proxies write it
        text = text[1 : text.index("]")]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None
