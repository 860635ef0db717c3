"""The HTTP connections one process takes: its open-files limit raised at start, a cap on connections below it,
and past the cap a typed refusal, counted and logged, while health probes are still answered.

Every connection holds a file descriptor. Past the process's open-files limit, ``accept`` fails (``EMFILE``): the
event loop stops taking connections for a while, and whatever else needs a descriptor fails with it, health
probes, the store's files and connections, the gRPC port's calls, with no word in the log. So:

- at start the soft limit is raised to the hard one (:func:`raise_open_files`);
- the REST port serves at most :func:`connection_cap` connections at a time: ``MAZZIERE_HTTP_CONNECTIONS``, or
  the limit less ``MAZZIERE_RESERVED_FILES`` (kept for the store, the gRPC port, the listening sockets, the
  process's own files, and the probes below);
- a connection past the cap is still taken, up to :data:`PROBE_ROOM` more, to answer a probe (``/healthz``,
  ``/readyz``) as usual, or any other request with a refusal at once (:class:`RefuseOverCap`): UNAVAILABLE
  ``TOO_MANY_CONNECTIONS``, 503 with the JSON error envelope (Connect's error, or gRPC-Web's trailers, on their
  routes), ``Retry-After`` and ``Connection: close``; past that room too, it is closed as soon as it is taken,
  after a bare 503 written before its request is read (best effort);
- ``mazziere_http_connections``, ``mazziere_http_connections_limit`` and
  ``mazziere_http_connections_refused_total{how="answered"|"closed"}`` count them, and the log says
  ``http_connections_full`` when the cap is reached, ``http_connections_below_cap`` once back under nine tenths.
"""

from __future__ import annotations

import enum
import resource
from collections.abc import Callable, Collection
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from mazziere.services.config import Config
from mazziere.services.core.logs import get_logger
from mazziere.services.errors import ServiceError, ServiceReason
from mazziere.services.http.errors import error_json, error_response

PROBE_ROOM = 16
"""Connections taken past the cap (out of the reserved files) to answer health probes; others there are refused."""
OVER_CAP = "mazziere.over_cap"
"""The scope key the HTTP server sets, to the :class:`ConnectionGate`, on a request of a connection past the cap."""
RETRY_SECONDS = 1.0
BELOW_CAP = 0.9
"""The share of the cap under which a full port is logged as having room again."""


@dataclass(frozen=True, slots=True)
class OpenFiles:
    """The process's open-files limit: ``before`` and ``limit`` (the soft one, before and after raising it), and the
    hard one."""

    before: int
    limit: int
    hard: int


def raise_open_files() -> OpenFiles:
    """Raise the soft open-files limit to the hard one (on a system whose hard limit is infinite, to 2^20); keep it
    where it was if the system refuses."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            get_logger().warning("open_files_not_raised", limit=soft, hard=hard)
            return OpenFiles(soft, soft, hard)
        return OpenFiles(soft, wanted, hard)
    return OpenFiles(soft, soft, hard)


def connection_cap(config: Config, open_files: int) -> int:
    """The HTTP connections served at a time: ``MAZZIERE_HTTP_CONNECTIONS`` if set, else the open-files limit less
    ``MAZZIERE_RESERVED_FILES``; a ValueError (``startup_failed``) if that leaves none, or more than fits."""
    room = open_files - config.reserved_files
    if room < 1:
        raise ValueError(
            f"the open-files limit ({open_files}; raise it with ulimit -n or LimitNOFILE=) leaves no HTTP connection "
            f"once MAZZIERE_RESERVED_FILES={config.reserved_files} are kept for the rest"
        )
    if config.http_connections > room:
        raise ValueError(
            f"MAZZIERE_HTTP_CONNECTIONS={config.http_connections} does not fit the open-files limit ({open_files}) "
            f"less MAZZIERE_RESERVED_FILES={config.reserved_files}: at most {room} (or 0, for that)"
        )
    return config.http_connections or room


class Verdict(enum.Enum):
    """What a connection just taken may do."""

    SERVE = "serve"
    PROBES = "probes"
    """Past the cap: probes are answered, anything else refused."""
    CLOSE = "close"
    """Past the probes' room too: closed at once."""


BARE_REFUSAL = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n"
    b"connection: close\r\ncache-control: no-store\r\nx-content-type-options: nosniff\r\n"
)


class ConnectionGate:
    """One REST port's connections against its ``cap``: counted as they come and go, with the metrics and the log
    lines of the module."""

    def __init__(self, cap: int, registry: CollectorRegistry | None, *, room: int = PROBE_ROOM) -> None:
        self.cap = cap
        self.room = room
        self.full = False
        self.log = get_logger("mazziere.http")
        self.open = Gauge("mazziere_http_connections", "HTTP connections open on the REST port.", registry=registry)
        self.limit = Gauge(
            "mazziere_http_connections_limit",
            "The HTTP connections the REST port serves at a time (MAZZIERE_HTTP_CONNECTIONS, or the open-files "
            "limit less MAZZIERE_RESERVED_FILES); past it, only probes are answered.",
            registry=registry,
        )
        self.limit.set(cap)
        self.refused = Counter(
            "mazziere_http_connections_refused_total",
            "Requests and connections refused past the cap: answered (503 TOO_MANY_CONNECTIONS), or closed (past "
            "the room kept for probes too).",
            ["how"],
            registry=registry,
        )
        self.refusal = ServiceError.of(
            ServiceReason.TOO_MANY_CONNECTIONS,
            f"the server has as many connections open as it serves ({cap}); retry shortly",
            retry_after=RETRY_SECONDS,
            limit=str(cap),
        )
        body = error_json(self.refusal)
        self.bare_refusal = BARE_REFUSAL + b"content-length: %d\r\n\r\n" % len(body) + body

    def taken(self, open_now: int) -> Verdict:
        """A connection was taken; ``open_now`` counts it."""
        self.open.set(open_now)
        if open_now <= self.cap:
            return Verdict.SERVE
        if not self.full:
            self.full = True
            self.log.warning(
                "http_connections_full",
                cap=self.cap,
                message="the REST port serves as many connections as it may: further ones get 503 "
                "TOO_MANY_CONNECTIONS (probes are still answered); see MAZZIERE_HTTP_CONNECTIONS",
            )
        if open_now <= self.cap + self.room:
            return Verdict.PROBES
        self.refused.labels("closed").inc()
        return Verdict.CLOSE

    def released(self, open_now: int) -> None:
        """A connection ended; ``open_now`` no longer counts it."""
        self.open.set(open_now)
        if self.full and open_now < max(self.cap * BELOW_CAP, 1):
            self.full = False
            self.log.info("http_connections_below_cap", cap=self.cap, open=open_now)

    def answered(self) -> None:
        self.refused.labels("answered").inc()


class RefuseOverCap:
    """Pure ASGI middleware: a request of a connection past the cap gets the refusal, unless it asks a probe.
    ``protocol_refusal(path, content type, error)``: the refusal in Connect's or gRPC-Web's form for their routes
    (None elsewhere: the JSON error envelope)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        probes: Collection[str],
        protocol_refusal: Callable[[str, str, ServiceError], Response | None],
    ) -> None:
        self.app = app
        self.probes = frozenset(probes)
        self.protocol_refusal = protocol_refusal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        gate: ConnectionGate | None = scope.get(OVER_CAP) if scope["type"] == "http" else None
        if gate is None or scope["path"] in self.probes:
            await self.app(scope, receive, send)
            return
        gate.answered()
        content_type = next((v for k, v in scope["headers"] if k == b"content-type"), b"").decode("latin-1")
        refusal = self.protocol_refusal(scope["path"], content_type, gate.refusal)
        refusal = refusal or error_response(gate.refusal)
        refusal.headers["connection"] = "close"
        await refusal(scope, receive, send)
