"""Who calls the host: each call's caller key, from its tenant (an API key it sent) or else its client address.

The address is the connection's peer (:attr:`~mazziere.services.core.call.Call.peer`, which each transport sets),
or, when that peer is one of the trusted proxies, the address the proxy's forwarding header names: the rightmost
entry of ``X-Forwarded-For`` that is not itself a trusted proxy, or the same of ``Forwarded``'s ``for=`` (RFC 7239),
as the operator says which header the proxy writes. An IPv4 address is a caller of its own; an IPv6 one counts by
its prefix (a /64 by default: one household's network, where every device has addresses of its own). So a family
behind one router is one caller, which the limits' defaults leave room for.

A caller key is ``tenant:<name>`` or ``ip:<address>`` (``ip:<network>/<prefix>`` for IPv6); :meth:`Callers.shown`
is how logs show it: whole, or, when the operator asks, only a prefix of the address (IPv4 /24, IPv6 /48).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from mazziere.services.core.call import Call

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
HEADERS = ("x-forwarded-for", "forwarded")
"""The forwarding headers a trusted proxy may write (the operator names the one its proxy writes)."""
LOCAL = "local"
"""The key of a call with no peer (made in this process)."""
LOGGED_PREFIX = {4: 24, 6: 48}
"""The prefix of an address logs show when the operator asks for no whole addresses, by IP version."""


def parse_networks(text: str) -> tuple[IPNetwork, ...]:
    """Comma- or space-separated CIDRs (a bare address is its own /32 or /128); ValueError names a bad one."""
    networks = []
    for item in text.replace(",", " ").split():
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{item[:60]!r} is not an address or a CIDR") from None
    return tuple(networks)


@lru_cache(maxsize=4096)  # a call's peer parsed once per connection's address, not at every call
def address_of(text: str) -> IPAddress | None:
    """The address in a peer or a forwarding entry: ``1.2.3.4``, ``1.2.3.4:5678``, ``::1``, ``[::1]:5678``
    (IPv4-mapped IPv6 as its IPv4); None if it holds none (``unknown``, an obfuscated ``_node``)."""
    text = text.strip().strip('"')
    if text.startswith("["):
        text = text[1 : text.find("]")] if "]" in text else text
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


@dataclass(frozen=True, slots=True)
class Callers:
    """How the host tells its callers apart (the defaults: the socket's peer, IPv6 by /64, whole addresses logged)."""

    trusted_proxies: tuple[IPNetwork, ...] = ()
    """Peers whose forwarding header is believed (none: every caller is its socket's peer)."""
    forwarded_header: str = "x-forwarded-for"
    """The header those proxies write: ``x-forwarded-for`` or ``forwarded``."""
    ipv6_prefix: int = 64
    """IPv6 callers are counted by this prefix of their address."""
    log_prefix_only: bool = False
    """Logs show only a prefix of an address (:data:`LOGGED_PREFIX`), never a whole one."""

    def key(self, call: Call, tenant: str | None = None) -> str:
        """The caller of ``call``: its tenant's name if it sent a known API key, else its client address."""
        if tenant is not None:
            return f"tenant:{tenant}"
        address = self.client(call)
        if address is None:
            return LOCAL if not call.peer else f"peer:{call.peer[:64]}"
        if address.version == 6 and self.ipv6_prefix < 128:
            return f"ip:{ipaddress.ip_network((address, self.ipv6_prefix), strict=False)}"
        return f"ip:{address}"

    def client(self, call: Call) -> IPAddress | None:
        """The client's address: the peer's, or the one a trusted proxy's header names."""
        peer = address_of(call.peer) if call.peer else None
        if peer is None or not self._trusted(peer):
            return peer
        entries = self._forwarded(call.metadata)
        client = peer
        for entry in reversed(entries):  # rightmost first: each one was written by the hop after it
            address = address_of(entry)
            if address is None:
                break  # garbage where an address should be: the nearest hop known is the caller
            client = address
            if not self._trusted(address):
                break
        return client

    def shown(self, key: str) -> str:
        """``key`` as a log line may show it."""
        if not self.log_prefix_only or not key.startswith("ip:"):
            return key
        network = ipaddress.ip_network(key.removeprefix("ip:"), strict=False)
        prefix = min(network.prefixlen, LOGGED_PREFIX[network.version])
        return f"ip:{network.supernet(new_prefix=prefix)}"

    def _trusted(self, address: IPAddress) -> bool:
        return any(address in network for network in self.trusted_proxies)

    def _forwarded(self, metadata: Sequence[tuple[str, str]]) -> list[str]:
        """The header's entries in order, from every line of it (a line may hold several, comma-separated)."""
        lines = [value for name, value in metadata if name == self.forwarded_header]
        entries = [entry.strip() for line in lines for entry in line.split(",")]
        if self.forwarded_header == "x-forwarded-for":
            return entries
        return [_forwarded_for(element) for element in entries]


def _forwarded_for(element: str) -> str:
    """The ``for=`` of one ``Forwarded`` element (``for=192.0.2.60;proto=http``), or "" if it has none."""
    for pair in element.split(";"):
        name, _, value = pair.strip().partition("=")
        if name.strip().lower() == "for":
            return value.strip()
    return ""
