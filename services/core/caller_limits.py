"""How much one caller of the host may do: calls per second, tables opened per minute, Watch streams at a time, and
unknown tables asked for, each counted by caller key (:mod:`~mazziere.services.core.callers`).

Rates are token buckets: a caller may spend a burst at once, then at the rate; a call beyond is refused at once with
RESOURCE_EXHAUSTED ``CALLER_LIMIT``, a RetryInfo of when a token is back, and ErrorInfo metadata ``limit`` naming
which. A caller that keeps asking for tables the host does not keep spends its unknown-table tokens, and once they
are gone every host call of it is refused before any store read, until they come back. Callers' buckets are kept
for the most recent :data:`MOST_CALLERS` callers (a caller forgotten starts again with a full bucket).

Each refusal is counted in ``mazziere_admission_refusals_total`` under the call's cost class and a reason of
:data:`CALLER_REFUSALS`, through the admission's counter.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from mazziere.services.errors import ServiceError, ServiceReason

MOST_CALLERS = 100_000
"""Callers whose buckets are kept (the least recently seen forgotten first)."""
CALLER_REFUSALS = (
    "caller_rate",
    "caller_tables_per_minute",
    "caller_watchers",
    "caller_unknown_tables",
    "caller_open_tables",
    "table_watchers",
    "store_full",
)
"""The refusals of the host's limits, as ``mazziere_admission_refusals_total`` counts them: a caller's calls per
second, its tables opened per minute, its Watch streams, its unknown tables asked for (all here), its open tables,
a table's Watch places and the store's cap (the host's)."""


class Rate(Enum):
    """The bucket a host call draws from."""

    PLAY = "play"
    """A change at a table: Play, ReissueInvite, CloseTable."""
    READ = "read"
    """A look at a table: GetHostedTable, a Watch opening, AdviseSeat."""
    OPEN = "open"
    """A new table: OpenTable (its bucket holds a minute's tables)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Each caller's limits (the defaults: a family party behind one address; docs/configuration.md)."""

    plays_per_second: float = 20.0
    reads_per_second: float = 20.0
    burst_seconds: float = 5.0
    """A caller may spend this many seconds' worth of plays, or of reads, at once."""
    tables_per_minute: int = 10
    """Tables a caller may open in a minute (at once, then one every 60 / this seconds)."""
    watchers: int = 64
    """Watch streams a caller may hold open at a time (on this replica)."""
    unknown_tables_per_minute: int = 20
    """Tables the host does not keep that a caller may ask for in a minute before it is shed."""

    def bucket(self, rate: Rate) -> tuple[float, float]:
        """``rate``'s (tokens per second, burst)."""
        if rate is Rate.PLAY:
            return self.plays_per_second, max(1.0, self.plays_per_second * self.burst_seconds)
        if rate is Rate.READ:
            return self.reads_per_second, max(1.0, self.reads_per_second * self.burst_seconds)
        return self.tables_per_minute / 60.0, float(self.tables_per_minute)


class _Bucket:
    __slots__ = ("stamp", "tokens")

    def __init__(self, tokens: float, stamp: float) -> None:
        self.tokens = tokens
        self.stamp = stamp

    def refill(self, now: float, per_second: float, burst: float) -> None:
        self.tokens = min(burst, self.tokens + (now - self.stamp) * per_second)
        self.stamp = now

    def wait(self, per_second: float) -> float:
        """Seconds until a whole token is back (0: one is there)."""
        return 0.0 if self.tokens >= 1.0 else (1.0 - self.tokens) / per_second if per_second > 0 else math.inf


Count = Callable[[str, str], None]
"""Counts one refusal: ``(cost class, reason of CALLER_REFUSALS)``."""


class CallerLimits:
    """Every caller's buckets and streams; thread-safe (the gRPC and HTTP transports may run on two loops)."""

    def __init__(
        self, limits: Limits | None = None, *, clock: Callable[[], float] = time.monotonic, most: int = MOST_CALLERS
    ) -> None:
        self.limits = limits or Limits()
        self.clock = clock
        self.count: Count = lambda _cost, _why: None
        self._most = most
        self._lock = threading.Lock()
        self._buckets: dict[Rate | None, OrderedDict[str, _Bucket]] = {r: OrderedDict() for r in [*Rate, None]}
        self._watching: dict[str, int] = {}

    def admit(self, caller: str, rate: Rate | None, cost: str) -> None:
        """Let one call of ``caller`` in, taking a token of ``rate`` (if any), or refuse it: shed first if the caller
        spent its unknown tables."""
        with self._lock:
            now = self.clock()
            misses = self._peek(None, caller, now)
            if misses is not None and misses.tokens < 1.0:
                wait = misses.wait(self._misses()[0])
                raise self._refuse(cost, "caller_unknown_tables", "unknown_tables_per_minute", wait)
            if rate is None:
                return
            per_second, burst = self.limits.bucket(rate)
            bucket = self._bucket(rate, caller, now, burst)
            if bucket.tokens < 1.0:
                why = "caller_tables_per_minute" if rate is Rate.OPEN else "caller_rate"
                name = "tables_per_minute" if rate is Rate.OPEN else f"{rate.value}s_per_second"
                raise self._refuse(cost, why, name, bucket.wait(per_second))
            bucket.tokens -= 1.0

    def missed(self, caller: str) -> None:
        """``caller`` asked for a table the host does not keep: one unknown-table token spent."""
        with self._lock:
            bucket = self._bucket(None, caller, self.clock(), self._misses()[1])
            bucket.tokens = max(0.0, bucket.tokens - 1.0)

    def hold_watch(self, caller: str, cost: str) -> Callable[[], None]:
        """Take one of ``caller``'s Watch places, or refuse; what gives it back (once)."""
        with self._lock:
            held = self._watching.get(caller, 0)
            if held >= self.limits.watchers:
                raise self._refuse(cost, "caller_watchers", "watchers", 1.0)
            self._watching[caller] = held + 1
        given = False

        def release() -> None:
            nonlocal given
            with self._lock:
                if given:
                    return
                given = True
                left = self._watching[caller] - 1
                if left:
                    self._watching[caller] = left
                else:
                    del self._watching[caller]

        return release

    def watching(self, caller: str) -> int:
        return self._watching.get(caller, 0)

    def refuse(
        self,
        cost: str,
        why: str,
        limit: str,
        message: str,
        retry_after: float,
        reason: ServiceReason = ServiceReason.CALLER_LIMIT,
    ) -> ServiceError:
        """A refusal of one of the host's limits (``why`` of :data:`CALLER_REFUSALS`), counted: RESOURCE_EXHAUSTED
        ``reason`` with a RetryInfo, its ErrorInfo naming the ``limit``."""
        self.count(cost, why)
        return ServiceError.of(
            reason, f"{message}; retry after the RetryInfo delay", retry_after=max(0.1, retry_after), limit=limit
        )

    # -- parts ----------------------------------------------------------------------------------------------------

    def _misses(self) -> tuple[float, float]:
        per_minute = self.limits.unknown_tables_per_minute
        return per_minute / 60.0, float(max(1, per_minute))

    def _peek(self, rate: Rate | None, caller: str, now: float) -> _Bucket | None:
        bucket = self._buckets[rate].get(caller)
        if bucket is not None:
            per_second, burst = self._misses() if rate is None else self.limits.bucket(rate)
            bucket.refill(now, per_second, burst)
        return bucket

    def _bucket(self, rate: Rate | None, caller: str, now: float, burst: float) -> _Bucket:
        buckets = self._buckets[rate]
        bucket = self._peek(rate, caller, now)
        if bucket is None:
            bucket = buckets[caller] = _Bucket(burst, now)
            if len(buckets) > self._most:
                buckets.popitem(last=False)
        else:
            buckets.move_to_end(caller)
        return bucket

    def _refuse(self, cost: str, why: str, limit: str, wait: float) -> ServiceError:
        shown = limit.replace("_", " ")
        return self.refuse(cost, why, limit, f"this caller is at its limit of {shown}", wait)
