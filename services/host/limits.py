"""The host's own limits: what a new table may ask for, how many tables a caller may keep open and the store may
hold, and how many Watch streams one table takes.

Each refusal is typed (INVALID_ARGUMENT for a table that may not be opened; RESOURCE_EXHAUSTED ``CALLER_LIMIT``,
``STORE_FULL`` or ``OVERLOADED``, with a RetryInfo, for a limit) and the limits' refusals are counted in
``mazziere_admission_refusals_total`` through :class:`~mazziere.services.core.caller_limits.CallerLimits`.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable

from mazziere.engine.errors import Reason, Rejected
from mazziere.services.config import MAX_TURN_SECONDS
from mazziere.services.core.admission import CostClass
from mazziere.services.core.caller_limits import CallerLimits
from mazziere.services.errors import ServiceError, ServiceReason
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb

MAX_SEATS = 20
"""The most seats a hosted table may have (Saltacavallo's most; every game checks its own range besides)."""
STORE_FULL_RETRY_SECONDS = 60.0
"""When a refused OpenTable is told to try again, the store being full (idle tables expire every minute)."""
UNKNOWN_FOR_SECONDS = 60.0
"""How long an id the store did not keep is answered TABLE_NOT_FOUND without reading the store again."""
UNKNOWN_MOST = 4096
"""The most unknown ids remembered (the oldest forgotten first)."""
MAX_TABLE_ID = 64
"""A longer table id is no table's: refused without a store read."""
HOST = CostClass.HOST.value


def turn_seconds(request: hpb.OpenTableRequest, default: int) -> int:
    """The table's turn time: its own (1 s to a day) or, for 0, ``default``; INVALID_ARGUMENT otherwise."""
    if request.turn_seconds == 0:
        return default
    if not 1 <= request.turn_seconds <= MAX_TURN_SECONDS:
        raise ServiceError.of(
            ServiceReason.INVALID_REQUEST,
            f"turn_seconds must be 1 to {MAX_TURN_SECONDS} (a day), or 0 for the host's default; "
            f"not {request.turn_seconds}",
        )
    return request.turn_seconds


def check_seats(request: hpb.OpenTableRequest) -> None:
    """1 to :data:`MAX_SEATS` seats, before any work (each game checks its own range after): INVALID_SEATS."""
    if not 1 <= len(request.seats) <= MAX_SEATS:
        raise ServiceError.from_rejected(
            Rejected(Reason.INVALID_SEATS, f"a hosted table has 1 to {MAX_SEATS} seats, not {len(request.seats)}")
        )


def clamped_turn(seconds: int) -> int:
    """A stored table's turn time within 1 s to a day (a table opened before turn times were checked)."""
    return min(MAX_TURN_SECONDS, max(1, seconds))


def owner_of(caller: str) -> str:
    """What the store keeps of a table's opener: a digest of its caller key, never an address."""
    return hashlib.sha256(b"mazziere/owner/" + caller.encode()).hexdigest()[:32]


class Capacity:
    """The store's tables and bytes as last read (by the housekeeping) plus what this host added since, against the
    store's caps: OpenTable is refused past either."""

    def __init__(self, limits: CallerLimits, max_tables: int, max_bytes: int) -> None:
        self.limits = limits
        self.max_tables = max_tables
        self.max_bytes = max_bytes
        self.tables = 0
        self.bytes = 0

    def read(self, tables: int, size: int) -> None:
        """The store's usage, as just read."""
        self.tables, self.bytes = tables, size

    def add(self, size: int) -> None:
        """A table this host stored, of about ``size`` bytes."""
        self.tables += 1
        self.bytes += size

    def check(self) -> None:
        if self.tables >= self.max_tables:
            raise self._full(f"the host's store keeps {self.tables} tables, its most")
        if self.bytes >= self.max_bytes:
            raise self._full(f"the host's store takes {self.bytes} bytes, its most")

    def _full(self, message: str) -> ServiceError:
        message = f"{message}: no table is opened until idle ones expire"
        return self.limits.refuse(
            HOST, "store_full", "store", message, STORE_FULL_RETRY_SECONDS, ServiceReason.STORE_FULL
        )


class Unknown:
    """Table ids the store did not keep, remembered for a minute, so asking again costs no store read."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._ids: OrderedDict[str, float] = OrderedDict()

    def __contains__(self, table_id: object) -> bool:
        if not isinstance(table_id, str):
            return False
        if not table_id or len(table_id) > MAX_TABLE_ID:
            return True
        until = self._ids.get(table_id)
        if until is None:
            return False
        if until <= self.clock():
            del self._ids[table_id]
            return False
        return True

    def add(self, table_id: str) -> None:
        if not table_id or len(table_id) > MAX_TABLE_ID:
            return  # never any table's: known without keeping it
        self._ids[table_id] = self.clock() + UNKNOWN_FOR_SECONDS
        self._ids.move_to_end(table_id)
        if len(self._ids) > UNKNOWN_MOST:
            self._ids.popitem(last=False)

    def discard(self, table_id: str) -> None:
        self._ids.pop(table_id, None)
