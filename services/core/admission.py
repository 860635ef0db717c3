"""Admission by cost: who calls (a tenant, by API key), what it costs (a cost class), and whether there is room.

Each cost class has its own places (calls running or waiting for one of its workers); a call beyond them, beyond
its tenant's share of them, or beyond its table's few is refused at once with OVERLOADED or QUOTA_EXCEEDED and a
RetryInfo: nothing waits in a queue it cannot leave. So a flood of expensive calls (sampled bots, advice, replays)
fills only its own class, and one tenant fills only its share.

With a :class:`~mazziere.services.core.metrics.Metrics` the admission reports each class's places, its calls in flight
and queued (admitted, waiting for a worker), and its refusals by reason (:data:`REFUSALS`).
"""

from __future__ import annotations

import hmac
import json
import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from hashlib import sha256
from typing import ParamSpec, TypeVar

from prometheus_client import Counter, Gauge

from mazziere.services.core.caller_limits import CALLER_REFUSALS, CallerLimits
from mazziere.services.core.metrics import Metrics
from mazziere.services.errors import ServiceError, ServiceReason

P = ParamSpec("P")
T = TypeVar("T")

RETRY_AFTER_SECONDS = 1.0
"""The delay a refused call is told to wait before retrying, in its google.rpc.RetryInfo."""


class CostClass(Enum):
    """What a call costs, each class with its own workers and places."""

    MOVE = "move"
    """Microseconds to a millisecond: ListGames, CreateTable, GetView, an Act with its move or a cheap policy."""
    BOT = "bot"
    """Tens to hundreds of milliseconds: an Act played by a sampling policy (``auto_play: best``)."""
    ADVICE = "advice"
    """Up to the replay budget: Advise."""
    REPLAY = "replay"
    """Up to the replay budget: Replay and StreamReplay."""
    HOST = "host"
    """A call of the host: a little I/O on the event loop, and its engine work (a move) on the move workers, within
    this one admission."""
    WATCH = "watch"
    """A host's Watch stream: idle most of its life, so it costs a connection, not a worker."""


BUDGETED = frozenset({CostClass.BOT, CostClass.ADVICE, CostClass.REPLAY})
"""The classes whose calls the server's budget (``MAZZIERE_REPLAY_SECONDS``) cuts, whatever the caller's deadline."""

REFUSALS = ("class_full", "tenant_quota", "table_busy", "tables_per_minute", *CALLER_REFUSALS)
"""Why the admission refuses a call, as its metric counts it: its cost class has no place left (OVERLOADED), its
tenant has its share of them (QUOTA_EXCEEDED), its table its few (OVERLOADED), or its tenant made its tables of the
minute (QUOTA_EXCEEDED; CreateTable, a move); then the host's limits on its callers, its tables and its store
(:data:`~mazziere.services.core.caller_limits.CALLER_REFUSALS`)."""


@dataclass(frozen=True, slots=True)
class Tenant:
    """A caller known by its API key, with its quotas."""

    name: str
    in_flight: Mapping[CostClass, int] = field(default_factory=dict)
    """Its places per cost class (a class it does not name: its even share of the class's places)."""
    tables_per_minute: int = 0
    """CreateTable calls per minute (0: no limit)."""


ANONYMOUS = Tenant("anonymous")
"""Every caller when no API key is configured: one tenant, with all the places."""


class Tenants:
    """API keys to tenants. With none configured every call is :data:`ANONYMOUS`; with some, a call must carry a
    known key (``authorization: Bearer <key>``) or is refused as UNAUTHENTICATED."""

    def __init__(self, tenants: Sequence[tuple[Tenant, Sequence[str]]] = ()) -> None:
        self.tenants = tuple(t for t, _ in tenants)
        self._by_digest = {_digest(key): tenant for tenant, keys in tenants for key in keys}

    @classmethod
    def parse(cls, text: str) -> Tenants:
        """From JSON: ``{"tenants": [{"name", "keys": [...], "in_flight": {"bot": 2, ...}, "tables_per_minute"}]}``."""
        if not text.strip():
            return cls()
        try:
            rows = json.loads(text)["tenants"]
            out = []
            for row in rows:
                in_flight = {CostClass(k): int(v) for k, v in row.get("in_flight", {}).items()}
                if any(v < 1 for v in in_flight.values()):
                    raise ValueError("in_flight places must be >= 1")
                tenant = Tenant(str(row["name"]), in_flight, int(row.get("tables_per_minute", 0)))
                keys = [str(k) for k in row["keys"]]
                if not keys or any(len(k) < 16 for k in keys):
                    raise ValueError(f"tenant {tenant.name!r} needs keys of 16 characters or more")
                out.append((tenant, keys))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"the tenants are not valid JSON of the documented shape: {exc}") from None
        if not out:
            raise ValueError("the tenants list is empty; leave the setting unset for one anonymous tenant")
        return cls(out)

    @property
    def required(self) -> bool:
        return bool(self._by_digest)

    def find(self, metadata: Sequence[tuple[str, str]]) -> Tenant | None:
        """The tenant whose API key the call carries (``authorization: Bearer <key>``), or None."""
        found = None
        for name, value in metadata:
            if name == "authorization":
                scheme, _, key = value.partition(" ")
                if scheme.lower() == "bearer":
                    digest = _digest(key.strip())
                    for known, tenant in self._by_digest.items():  # compare every digest: no early exit
                        if hmac.compare_digest(known, digest):
                            found = tenant
        return found

    def identify(self, metadata: Sequence[tuple[str, str]]) -> Tenant:
        """The caller's tenant, from its ``authorization`` metadata."""
        if not self._by_digest:
            return ANONYMOUS
        if (tenant := self.find(metadata)) is not None:
            return tenant
        raise ServiceError.of(
            ServiceReason.API_KEY_INVALID,
            "this server needs an API key: send `authorization: Bearer <key>` with a key it knows",
        )


def _digest(key: str) -> bytes:
    return sha256(key.encode()).digest()


class Ticket:
    """A place taken by one call; :meth:`release` gives it back (once, whoever calls it), and with it whatever
    :meth:`then` added."""

    __slots__ = ("_admission", "_key", "_queued", "_then")

    def __init__(self, admission: Admission, key: tuple[CostClass, str, str]) -> None:
        self._admission = admission
        self._key: tuple[CostClass, str, str] | None = key
        self._queued = False
        self._then: Callable[[], None] | None = None

    def release(self, _: object = None) -> None:
        self._admission._give_back(self)
        then, self._then = self._then, None
        if then is not None:
            then()

    def then(self, release: Callable[[], None] | None) -> Ticket:
        """Give back ``release`` too when this place is given back (a caller's Watch place, say)."""
        self._then = release
        return self

    def queued(self, fn: Callable[P, T]) -> Callable[P, T]:
        """``fn``, with this call counted as queued until a worker starts it (or its place is given back first):
        what a worker pool is handed, ``pool.submit(ticket.queued(fn), ...)``."""
        self._admission._queue(self, True)

        def started(*args: P.args, **kwargs: P.kwargs) -> T:
            self._admission._queue(self, False)
            return fn(*args, **kwargs)

        return started


class Admission:
    """Places per cost class, shared by tenant, and a few per table."""

    def __init__(
        self,
        places: Mapping[CostClass, int],
        tenants: Tenants,
        *,
        per_table: int,
        metrics: Metrics | None = None,
        callers: CallerLimits | None = None,
    ) -> None:
        self.places = dict(places)
        self.tenants = tenants
        self.per_table = per_table
        self.callers = callers or CallerLimits()
        """The host's callers' limits (:mod:`~mazziere.services.core.caller_limits`), counted here."""
        self.metrics: Metrics | None = None
        self._in_flight: dict[CostClass, Gauge] = {}
        self._waiting: dict[CostClass, Gauge] = {}
        self._refused: dict[tuple[CostClass, str], Counter] = {}
        self._lock = threading.Lock()
        self._taken = dict.fromkeys(CostClass, 0)
        self._queued = dict.fromkeys(CostClass, 0)
        self._by_tenant: dict[tuple[CostClass, str], int] = {}
        self._by_table: dict[str, int] = {}
        self._created: dict[str, list[float]] = {}
        count = max(1, len(tenants.tenants))
        self._shares = {
            (c, t.name): t.in_flight.get(c, max(1, math.ceil(n / count)))
            for t in tenants.tenants
            for c, n in places.items()
        }
        if metrics is not None:
            self.meter(metrics)

    def meter(self, metrics: Metrics) -> None:
        """Report to ``metrics`` from now on: each class's places, calls in flight and queued, and every refusal
        (each reason's series there from the start, at 0)."""
        with self._lock:
            self.metrics = metrics
            for cost, n in self.places.items():
                metrics.places.labels(cost.value).set(n)
                self._in_flight[cost] = metrics.in_flight.labels(cost.value)
                self._in_flight[cost].set(self._taken[cost])
                self._waiting[cost] = metrics.queued.labels(cost.value)
                self._waiting[cost].set(self._queued[cost])
                for why in REFUSALS:
                    self._refused[(cost, why)] = metrics.refusals.labels(cost.value, why)
            self.callers.count = self._count

    def taken(self, cost: CostClass) -> int:
        return self._taken[cost]

    def queued(self, cost: CostClass) -> int:
        """Calls of ``cost`` admitted and waiting for a worker (:meth:`Ticket.queued`)."""
        return self._queued[cost]

    def admit(self, cost: CostClass, tenant: Tenant, table_id: str = "") -> Ticket:
        """Take a place of ``cost`` for ``tenant`` (and ``table_id``, if the call names a table), or refuse."""
        share = self._shares.get((cost, tenant.name), self.places[cost])
        with self._lock:
            if self._taken[cost] >= self.places[cost]:
                raise self._refuse(
                    cost,
                    "class_full",
                    ServiceReason.OVERLOADED,
                    f"the server is at its limit of {cost.value} calls in flight",
                )
            mine = self._by_tenant.get((cost, tenant.name), 0)
            if mine >= share:
                raise self._refuse(
                    cost,
                    "tenant_quota",
                    ServiceReason.QUOTA_EXCEEDED,
                    f"tenant {tenant.name!r} has {mine} {cost.value} calls in flight, its quota",
                )
            if table_id and self._by_table.get(table_id, 0) >= self.per_table:
                raise self._refuse(
                    cost,
                    "table_busy",
                    ServiceReason.OVERLOADED,
                    f"this table already has {self.per_table} calls in flight",
                )
            self._taken[cost] += 1
            self._by_tenant[(cost, tenant.name)] = mine + 1
            if table_id:
                self._by_table[table_id] = self._by_table.get(table_id, 0) + 1
            if (gauge := self._in_flight.get(cost)) is not None:
                gauge.set(self._taken[cost])
        return Ticket(self, (cost, tenant.name, table_id))

    def create_table(self, tenant: Tenant, now: float | None = None) -> None:
        """Count one CreateTable against the tenant's tables per minute, or refuse it."""
        if not tenant.tables_per_minute:
            return
        now = time.monotonic() if now is None else now
        with self._lock:
            recent = [t for t in self._created.get(tenant.name, ()) if now - t < 60.0]
            if len(recent) >= tenant.tables_per_minute:
                self._created[tenant.name] = recent
                raise self._refuse(
                    CostClass.MOVE,
                    "tables_per_minute",
                    ServiceReason.QUOTA_EXCEEDED,
                    f"tenant {tenant.name!r} created {len(recent)} tables in the last minute, its quota",
                    retry_after=max(RETRY_AFTER_SECONDS, 60.0 - (now - recent[0])),
                )
            recent.append(now)
            self._created[tenant.name] = recent

    def _give_back(self, ticket: Ticket) -> None:
        with self._lock:
            key, ticket._key = ticket._key, None
            if key is None:
                return
            cost, tenant, table_id = key
            self._set_queued(ticket, cost, False)
            self._taken[cost] -= 1
            self._by_tenant[(cost, tenant)] -= 1
            if table_id:
                left = self._by_table[table_id] - 1
                if left:
                    self._by_table[table_id] = left
                else:
                    del self._by_table[table_id]
            if (gauge := self._in_flight.get(cost)) is not None:
                gauge.set(self._taken[cost])

    def _queue(self, ticket: Ticket, queued: bool) -> None:
        with self._lock:
            if ticket._key is not None:
                self._set_queued(ticket, ticket._key[0], queued)

    def _set_queued(self, ticket: Ticket, cost: CostClass, queued: bool) -> None:
        if ticket._queued is queued:
            return
        ticket._queued = queued
        self._queued[cost] += 1 if queued else -1
        if (gauge := self._waiting.get(cost)) is not None:
            gauge.set(self._queued[cost])

    def _count(self, cost: str, why: str) -> None:
        if (counter := self._refused.get((CostClass(cost), why))) is not None:
            counter.inc()

    def _refuse(self, cost: CostClass, why: str, reason: ServiceReason, message: str, **kw: float) -> ServiceError:
        if (counter := self._refused.get((cost, why))) is not None:
            counter.inc()
        return _refusal(reason, message, **kw)


def _refusal(reason: ServiceReason, message: str, *, retry_after: float = RETRY_AFTER_SECONDS) -> ServiceError:
    return ServiceError.of(reason, f"{message}; retry after the RetryInfo delay", retry_after=retry_after)
