"""Capabilities: the random secrets in invite links. The host keeps only their digests."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import socket
from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

from mazziere.services.errors import ServiceError, ServiceReason
from mazziere.services.host.store import OWNER

HEADER = "x-table-capability"
"""The header (HTTP) or metadata (gRPC) that carries a capability; never a query string, never a log line."""


def new_capability() -> str:
    """32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def digest(capability: str) -> bytes:
    return hashlib.sha256(capability.encode()).digest()


def presented(metadata: Sequence[tuple[str, str]]) -> str:
    for name, value in metadata:
        if name == HEADER:
            return value.strip()
    return ""


def audience_of(capabilities: Mapping[str, bytes], metadata: Sequence[tuple[str, str]]) -> str:
    """The audience whose capability the call carries (compared against every digest), or PERMISSION_DENIED."""
    mine = digest(presented(metadata))
    found = ""
    for audience, known in capabilities.items():
        if hmac.compare_digest(known, mine):
            found = audience
    if not found or not presented(metadata):
        raise ServiceError.of(
            ServiceReason.CAPABILITY_INVALID,
            f"this call needs the table's invite in the {HEADER} header; this one is missing, wrong or revoked",
        )
    return found


def invite_url(public_url: str, table_id: str, capability: str) -> str:
    """The web table's link: the capability in the fragment, which browsers never send to a server."""
    return f"{public_url.rstrip('/')}/play/#table={table_id}&invite={capability}"


PRIVATE_SUFFIXES = (".localhost", ".local", ".lan", ".home.arpa", ".internal")
"""Names that stay inside a home or an office network (RFC 6761, RFC 6762, RFC 8375 and common use)."""
SHARED_ADDRESSES = ipaddress.ip_network("100.64.0.0/10")
"""Carrier-grade NAT's range (RFC 6598), which overlay networks such as Tailscale use too: not on the internet."""


WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "::", "[::]"})
"""Addresses that mean "every address of this machine" to a server binding a port."""


def invite_base(public_url: str, rest_host: str, rest_port: int) -> tuple[str, str | None]:
    """The base of invite links for the web table served at ``rest_host:rest_port``, and the name of a warning when
    the links may not reach it: ``public_url`` if set (``PUBLIC_URL_OTHER_PORT`` when it names this machine at
    another port), else the served port itself (``PUBLIC_URL_THIS_MACHINE_ONLY`` when it is served on every
    address, as ``localhost``, which only this machine's browsers reach)."""
    if not public_url:
        if rest_host in WILDCARD_HOSTS:
            return f"http://localhost:{rest_port}", "PUBLIC_URL_THIS_MACHINE_ONLY"
        host = f"[{rest_host}]" if ":" in rest_host and not rest_host.startswith("[") else rest_host
        return f"http://{host}:{rest_port}", None
    parts = urlsplit(public_url)
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError:  # not a port: the links are the operator's to mend, said nowhere better than here
        return public_url, "PUBLIC_URL_OTHER_PORT"
    return public_url, "PUBLIC_URL_OTHER_PORT" if _this_machine(parts.hostname or "") and port != rest_port else None


def _this_machine(host: str) -> bool:
    if host.rstrip(".").lower() in ("localhost", socket.gethostname().lower()):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def in_the_clear(public_url: str) -> bool:
    """Whether invite links built on ``public_url`` cross the internet unencrypted: plain ``http://`` to a host
    that is neither a loopback or private address nor a local name (a name with no dot, ``localhost``,
    ``*.local``, ``*.lan``, ``*.home.arpa``, ``*.internal``)."""
    parts = urlsplit(public_url)
    host = (parts.hostname or "").rstrip(".").lower()
    if parts.scheme.lower() != "http" or not host:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "." in host and host != "localhost" and not host.endswith(PRIVATE_SUFFIXES)
    local = address.is_loopback or address.is_private or address.is_link_local
    return not (local or (address.version == 4 and address in SHARED_ADDRESSES))


def owner_only(audience: str) -> None:
    if audience != OWNER:
        raise ServiceError.of(ServiceReason.CAPABILITY_INVALID, "only the table's owner may do this")
