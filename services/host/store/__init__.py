"""Where the host keeps its tables: one interface, :class:`Store`, and two implementations with one schema.

SQLite (the embedded default, one host process, a file on local disk) and PostgreSQL (several host replicas, with
updates fanned out between them by LISTEN/NOTIFY). :func:`open_store` picks one by URL: ``sqlite:///path/to.db``
or ``postgresql://user@host:port/db``.

Each table is one row (its latest sealed token and ``seq``, the engine's seat keys, the host's settings, the
digests of its capabilities, its turn timer) beside an append-only log of its applied steps: for each ``seq``,
the action and what each audience saw (a serialized ``HostedUpdate`` per seat and one for the spectators), from
which Watch resumes. A move is applied by a conditional update on ``seq``: of two moves at one ``seq``, exactly
one lands. A due timer is claimed with a lease in the row, so exactly one replica plays it.
"""

from __future__ import annotations

from mazziere.services.host.store.base import (
    OWNER,
    SCHEMA_VERSION,
    SIGNAL,
    SPECTATORS,
    Listener,
    Step,
    Store,
    StoreError,
    TableRecord,
)
from mazziere.services.host.store.postgres import PostgresStore
from mazziere.services.host.store.siblings import Siblings
from mazziere.services.host.store.sqlite import SqliteStore

__all__ = [
    "OWNER",
    "SCHEMA_VERSION",
    "SIGNAL",
    "SPECTATORS",
    "Listener",
    "PostgresStore",
    "SqliteStore",
    "Step",
    "Store",
    "StoreError",
    "TableRecord",
    "open_store",
]


def open_store(url: str, *, sync: str = "full", siblings: Siblings | None = None) -> Store:
    """The store at ``url``: ``sqlite:///path`` (a relative path after ``sqlite:///``, or absolute with four
    slashes; ``sync`` its ``synchronous`` setting, ``full`` or ``normal``) or ``postgresql://...`` (psycopg's
    connection string; the server's own settings say when a commit is durable). ``siblings``: the host's other
    processes on one SQLite store (:mod:`.siblings`); PostgreSQL's notifications reach them without."""
    if url.startswith("sqlite:///"):
        return SqliteStore(url.removeprefix("sqlite:///"), sync=sync, siblings=siblings)
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresStore(url)
    raise ValueError(f"a store URL starts with sqlite:/// or postgresql://, not {url.split(':', 1)[0]!r}")
