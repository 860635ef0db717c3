"""Capabilities: the random secrets in invite links. The host keeps only their digests."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence

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


def owner_only(audience: str) -> None:
    if audience != OWNER:
        raise ServiceError.of(ServiceReason.CAPABILITY_INVALID, "only the table's owner may do this")
