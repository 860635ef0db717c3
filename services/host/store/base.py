"""The store's interface: :class:`Store`, what it keeps (:class:`TableRecord`, :class:`Step`) and its error."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

SCHEMA_VERSION = 4
"""The version of the schema this code writes; a store migrates forward to it when opened."""
SPECTATORS = "spectators"
"""The audience of the spectators (and the owner); a seat's audience is its number as text."""
OWNER = "owner"
"""The capability that reissues invites and closes the table (it watches as the spectators do)."""


class StoreError(Exception):
    """The store failed (unreachable, corrupt, or refused the operation); the host answers UNAVAILABLE."""


@dataclass(frozen=True, slots=True)
class TableRecord:
    """One table as the host keeps it. Nothing here is ever sent to a browser."""

    table_id: str
    game: str
    token: bytes
    """The latest sealed state, as TableService answered it."""
    seq: int
    seat_keys: tuple[str, ...]
    """The engine's key of each seat, in seat order."""
    settings: bytes
    """The host's own settings of the table (JSON: seats' names and bots, the turn time)."""
    capabilities: Mapping[str, bytes] = field(default_factory=dict)
    """The SHA-256 digest of each audience's capability (:data:`OWNER`, :data:`SPECTATORS`, "0", "1", ...)."""
    due_ms: int = 0
    """When the host plays the turn of the seats to act (Unix milliseconds); 0: no timer runs."""
    closed: bool = False
    created_ms: int = 0
    updated_ms: int = 0
    owner: str = ""
    """Who opened the table: a digest of its caller key (never an address), by which open tables are counted."""
    hosting: str = ""
    """The table's hosted state beside its game (JSON: the waiting room, the pause; empty: playing)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One applied step of a table: its ``seq``, the action (a serialized ``Action``; empty at creation) and what
    each audience saw (a serialized ``HostedUpdate`` by audience)."""

    seq: int
    action: bytes
    seen: Mapping[str, bytes]


SIGNAL = "!"
"""A notification whose ``revoked`` begins with this is no revocation but a signal of the table to its watchers:
``!state`` (its hosted state changed) or ``!react.<seat>.<kind>`` (a seat's quick reaction)."""


class Listener(Protocol):
    """Told ``(table_id, seq, revoked)`` for every step applied by any host on the store (this one included), and for
    every capability reissued (``revoked``: the audience whose old capability stopped working; else empty); with
    ``seen``, what each audience saw of that step, when the news brings it (:mod:`.siblings`)."""

    def __call__(
        self, table_id: str, seq: int, revoked: str, seen: Mapping[str, bytes] | None = None
    ) -> Awaitable[None]: ...


Missed = Callable[[], Awaitable[None]]
"""Told that the store may have missed notifications (its listening connection came back after a drop)."""


class Store(Protocol):
    """The host's tables. Every method may raise :class:`StoreError`; none leaves a step half applied."""

    async def open(self) -> Store:
        """Connect and bring the schema up to :data:`SCHEMA_VERSION` (a bad URL or a dead server shows here)."""
        ...

    async def create(self, table: TableRecord, first: Step) -> None:
        """Keep a new table and its first step (its creation)."""
        ...

    async def get(self, table_id: str, at_least: int = 0) -> TableRecord | None:
        """The table, or None if the store keeps no table of that id; read again where a kept copy is older than
        ``at_least`` (a caller who has seen that ``seq``)."""
        ...

    async def advance(self, table_id: str, expected_seq: int, token: bytes, due_ms: int, step: Step) -> bool:
        """Apply a step: only if the table is at ``expected_seq`` and not closed, set its token, ``seq`` (the
        step's), timer (and clear its lease), and append the step, in one transaction. False if the table moved on
        (or was closed, or is gone): nothing changed."""
        ...

    async def steps(self, table_id: str, audience: str, after_seq: int, limit: int = 1000) -> list[tuple[int, bytes]]:
        """What ``audience`` saw of the steps after ``after_seq``, in order: the first ``limit`` steps that show it
        something (a page shorter than ``limit`` is the last)."""
        ...

    async def set_capability(self, table_id: str, audience: str, digest: bytes) -> None:
        """Replace one audience's capability digest (the old capability stops working)."""
        ...

    async def close(self, table_id: str, step: Step) -> bool:
        """Close the table at its current ``seq`` (the step's) and append its closing step; False if already
        closed or gone."""
        ...

    async def claim_due(self, now_ms: int, lease_ms: int, owner: str, limit: int = 100) -> list[tuple[str, int]]:
        """Claim up to ``limit`` tables whose timer is due at ``now_ms`` and whose lease (if any) has run out:
        each gets a lease until ``now_ms + lease_ms`` held by ``owner``, so no other host claims it meanwhile.
        Answers ``(table_id, seq)`` of each table claimed."""
        ...

    async def set_hosting(self, table_id: str, seq: int, hosting: str, due_ms: int) -> bool:
        """Set the table's hosted state and timer (clearing its lease), only if it is at ``seq`` and not closed;
        False if it moved on (nothing changed)."""
        ...

    async def touch(self, table_id: str, seats: Sequence[int], now_ms: int) -> None:
        """Record that the people of ``seats`` were at the table at ``now_ms`` (a Watch held, or a call)."""
        ...

    async def presence(self, table_id: str) -> dict[int, int]:
        """When each seat's person was last at the table (Unix milliseconds), by seat; a seat never seen is absent."""
        ...

    async def expire(self, idle_before_ms: int) -> int:
        """Remove every table (with its log) not updated since ``idle_before_ms``; how many were removed."""
        ...

    async def count(self) -> int:
        """How many open (not closed) tables the store keeps."""
        ...

    async def latest_token(self) -> bytes | None:
        """The token of the table changed last, closed or not; None if the store keeps no table."""
        ...

    async def count_owned(self, owner: str) -> int:
        """How many open (not closed) tables ``owner`` opened."""
        ...

    async def usage(self) -> tuple[int, int]:
        """How many tables the store keeps (closed ones too) and how many bytes its tables take."""
        ...

    async def seqs(self, table_ids: Sequence[str]) -> dict[str, int]:
        """The latest ``seq`` of each of these tables the store keeps."""
        ...

    async def listen(self, listener: Listener, missed: Missed | None = None) -> None:
        """Call ``listener`` for every step applied from now on, by this host or another on the same store, and
        ``missed`` whenever notifications may have been lost meanwhile (then the listener catches up by itself)."""
        ...

    async def notify(self, table_id: str, seq: int, revoked: str = "") -> None:
        """Tell every listener (of every host on the store) that ``table_id`` reached ``seq``, or (``revoked``) that
        the capability of that audience was reissued."""
        ...

    async def aclose(self) -> None:
        """Release the store's connections."""
        ...
