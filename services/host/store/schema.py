"""The store's one schema, its forward migrations and the statements both stores share.

Written once with ``%s`` placeholders and a ``{blob}`` type; :class:`Dialect` fills them in for SQLite (``?``,
``BLOB``) and PostgreSQL (``%s``, ``BYTEA``). Every other word is SQL both understand.

The tables:

- ``schema_version``: one row, the version of the schema the database holds (:data:`SCHEMA_VERSION` once opened).
- ``tables``: one row per table: its latest token and ``seq``, the seats' keys (a JSON list), the host's settings,
  the turn timer (``due_ms``, 0: none), the timer's lease (``lease_owner``, ``lease_until_ms``), ``closed``, the
  times it was created and last changed, and who opened it (``owner``: a digest of its caller key; since version 2).
- ``capabilities``: the digest of each audience's capability, keyed ``(table_id, audience)``.
- ``steps``: the log, one row per applied step, keyed ``(table_id, seq)``: the action.
- ``seen``: what each audience saw of each step, keyed ``(table_id, audience, seq)``, so Watch's resume reads one
  audience's rows in order from the key alone.

Removing a table removes its capabilities, steps and what was seen of them (foreign keys, ``ON DELETE CASCADE``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mazziere.services.host.store.base import SCHEMA_VERSION, Step, StoreError, TableRecord

__all__ = ["MIGRATIONS", "POSTGRES", "SCHEMA_VERSION", "SQLITE", "AddColumn", "Dialect", "Migration", "Statements"]


@dataclass(frozen=True, slots=True)
class Dialect:
    """What differs between the stores' SQL: the placeholder and the type of bytes."""

    name: str
    placeholder: str
    blob: str

    def sql(self, text: str) -> str:
        """``text`` (written with ``%s`` and ``{blob}``) in this dialect."""
        return text.replace("{blob}", self.blob).replace("%s", self.placeholder)


SQLITE = Dialect("sqlite", "?", "BLOB")
POSTGRES = Dialect("postgresql", "%s", "BYTEA")


@dataclass(frozen=True, slots=True)
class AddColumn:
    """A column a migration adds, if the table lacks it (SQLite has no ``ADD COLUMN IF NOT EXISTS``): each store
    reads the table's columns (:data:`COLUMNS`) and runs :attr:`sql` only when this one is not among them."""

    table: str
    column: str
    definition: str

    @property
    def sql(self) -> str:
        return f"ALTER TABLE {self.table} ADD COLUMN {self.column} {self.definition}"


Migration = str | AddColumn
"""One statement of a migration: SQL that makes only what is missing, or a column added only if missing."""

MIGRATIONS: dict[int, tuple[Migration, ...]] = {
    # Version 1, from an empty database (or one that lost a table: each statement makes only what is missing).
    1: (
        """CREATE TABLE IF NOT EXISTS tables (
            table_id TEXT PRIMARY KEY,
            game TEXT NOT NULL,
            token {blob} NOT NULL,
            seq BIGINT NOT NULL,
            seat_keys TEXT NOT NULL,
            settings {blob} NOT NULL,
            due_ms BIGINT NOT NULL,
            lease_owner TEXT NOT NULL,
            lease_until_ms BIGINT NOT NULL,
            closed BOOLEAN NOT NULL,
            created_ms BIGINT NOT NULL,
            updated_ms BIGINT NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS tables_due ON tables (due_ms) WHERE due_ms > 0 AND NOT closed",
        "CREATE INDEX IF NOT EXISTS tables_updated ON tables (updated_ms)",
        """CREATE TABLE IF NOT EXISTS capabilities (
            table_id TEXT NOT NULL REFERENCES tables (table_id) ON DELETE CASCADE,
            audience TEXT NOT NULL,
            digest {blob} NOT NULL,
            PRIMARY KEY (table_id, audience)
        )""",
        """CREATE TABLE IF NOT EXISTS steps (
            table_id TEXT NOT NULL REFERENCES tables (table_id) ON DELETE CASCADE,
            seq BIGINT NOT NULL,
            action {blob} NOT NULL,
            PRIMARY KEY (table_id, seq)
        )""",
        """CREATE TABLE IF NOT EXISTS seen (
            table_id TEXT NOT NULL,
            audience TEXT NOT NULL,
            seq BIGINT NOT NULL,
            body {blob} NOT NULL,
            PRIMARY KEY (table_id, audience, seq),
            FOREIGN KEY (table_id, seq) REFERENCES steps (table_id, seq) ON DELETE CASCADE
        )""",
        "CREATE INDEX IF NOT EXISTS seen_step ON seen (table_id, seq)",
    ),
    # Version 2: who opened each table (a digest of its caller key), so open tables are counted per caller.
    2: (
        AddColumn("tables", "owner", "TEXT NOT NULL DEFAULT ''"),
        "CREATE INDEX IF NOT EXISTS tables_owner ON tables (owner) WHERE NOT closed",
    ),
}
"""The statements that bring the schema from version ``n - 1`` to ``n``, by ``n``; a later version adds a key."""

# The version's own table, made before it is read (a database without it is at version 0).
CREATE_VERSION = """CREATE TABLE IF NOT EXISTS schema_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
)"""
INSERT_VERSION = "INSERT INTO schema_version (id, version) VALUES (1, 0) ON CONFLICT (id) DO NOTHING"
SELECT_VERSION = "SELECT version FROM schema_version WHERE id = 1"
UPDATE_VERSION = "UPDATE schema_version SET version = %s WHERE id = 1"


COLUMNS = {
    "sqlite": "SELECT name FROM pragma_table_info(?)",
    "postgresql": "SELECT column_name FROM information_schema.columns "
    "WHERE table_schema = current_schema() AND table_name = %s",
}
"""The names of a table's columns, by dialect."""


def pending(version: int) -> list[Migration]:
    """The statements that bring a database at ``version`` to :data:`SCHEMA_VERSION`, in order; the store runs them
    and :data:`UPDATE_VERSION` in the transaction that read the version."""
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"the store's schema is version {version}, newer than this host's {SCHEMA_VERSION}: upgrade the host"
        )
    return [statement for n in range(version + 1, SCHEMA_VERSION + 1) for statement in MIGRATIONS[n]]


# The statements both stores run as they are (in their dialect).
TABLE_COLUMNS = (
    "table_id, game, token, seq, seat_keys, settings, due_ms, lease_owner, lease_until_ms, closed, "
    "created_ms, updated_ms, owner"
)
INSERT_TABLE = f"INSERT INTO tables ({TABLE_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, '', 0, %s, %s, %s, %s)"
SELECT_TABLE = (
    "SELECT table_id, game, token, seq, seat_keys, settings, due_ms, closed, created_ms, updated_ms, owner "
    "FROM tables WHERE table_id = %s"
)
SELECT_CAPABILITIES = "SELECT audience, digest FROM capabilities WHERE table_id = %s"
SELECT_SEQ = "SELECT seq FROM tables WHERE table_id = %s"
INSERT_CAPABILITY = "INSERT INTO capabilities (table_id, audience, digest) VALUES (%s, %s, %s)"
UPSERT_CAPABILITY = (
    "INSERT INTO capabilities (table_id, audience, digest) SELECT table_id, %s, %s FROM tables WHERE table_id = %s "
    "ON CONFLICT (table_id, audience) DO UPDATE SET digest = excluded.digest"
)
INSERT_STEP = "INSERT INTO steps (table_id, seq, action) VALUES (%s, %s, %s)"
INSERT_SEEN = "INSERT INTO seen (table_id, audience, seq, body) VALUES (%s, %s, %s, %s)"
ADVANCE = (
    "UPDATE tables SET token = %s, seq = %s, due_ms = %s, lease_owner = '', lease_until_ms = 0, updated_ms = %s "
    "WHERE table_id = %s AND seq = %s AND NOT closed"
)
# Closing moves seq forward only, so the closing step never lands on a seq the log already has.
CLOSE = (
    "UPDATE tables SET closed = TRUE, seq = %s, due_ms = 0, lease_owner = '', lease_until_ms = 0, updated_ms = %s "
    "WHERE table_id = %s AND seq < %s AND NOT closed"
)
SELECT_SEEN = "SELECT seq, body FROM seen WHERE table_id = %s AND audience = %s AND seq > %s ORDER BY seq LIMIT %s"
# The tables whose timer is due, not closed, and not leased (or whose lease ran out), the earliest first; each store
# selects from it what it needs.
DUE = (
    "FROM tables WHERE due_ms > 0 AND NOT closed AND due_ms <= %s AND lease_until_ms <= %s "
    "ORDER BY due_ms, table_id LIMIT %s"
)
LEASE = "UPDATE tables SET lease_owner = %s, lease_until_ms = %s WHERE table_id = %s"
EXPIRE = "DELETE FROM tables WHERE updated_ms < %s"
COUNT = "SELECT count(*) FROM tables WHERE NOT closed"
# The table changed last, closed or not (its token tells the key the store's tables are sealed under).
LATEST_TOKEN = "SELECT token FROM tables ORDER BY updated_ms DESC, table_id LIMIT 1"
COUNT_OWNED = "SELECT count(*) FROM tables WHERE owner = %s AND NOT closed"
COUNT_ALL = "SELECT count(*) FROM tables"


def now_ms() -> int:
    """The wall clock in Unix milliseconds, which ``updated_ms`` records."""
    return time.time_ns() // 1_000_000


def table_row(table: TableRecord, now: int) -> tuple[object, ...]:
    """The parameters of :data:`INSERT_TABLE` for ``table`` (created and changed ``now`` unless it says when)."""
    created = table.created_ms or now
    return (
        table.table_id,
        table.game,
        table.token,
        table.seq,
        json.dumps(list(table.seat_keys)),
        table.settings,
        table.due_ms,
        table.closed,
        created,
        table.updated_ms or created,
        table.owner,
    )


def table_record(row: Sequence[Any], capabilities: Iterable[Sequence[Any]]) -> TableRecord:
    """The table from its row (:data:`SELECT_TABLE`) and its capabilities' rows (:data:`SELECT_CAPABILITIES`)."""
    table_id, game, token, seq, seat_keys, settings, due_ms, closed, created_ms, updated_ms, owner = row
    return TableRecord(
        table_id=table_id,
        game=game,
        token=bytes(token),
        seq=seq,
        seat_keys=tuple(json.loads(seat_keys)),
        settings=bytes(settings),
        capabilities={audience: bytes(digest) for audience, digest in capabilities},
        due_ms=due_ms,
        closed=bool(closed),
        created_ms=created_ms,
        updated_ms=updated_ms,
        owner=owner,
    )


def step_rows(table_id: str, step: Step) -> tuple[tuple[str, int, bytes], list[tuple[str, str, int, bytes]]]:
    """The parameters of :data:`INSERT_STEP` and of each :data:`INSERT_SEEN` for ``step``."""
    seen = [(table_id, audience, step.seq, body) for audience, body in step.seen.items()]
    return (table_id, step.seq, step.action), seen


@dataclass(frozen=True, slots=True)
class Statements:
    """The statements both stores run, in one dialect."""

    insert_table: str
    select_table: str
    select_capabilities: str
    insert_capability: str
    upsert_capability: str
    insert_step: str
    insert_seen: str
    advance: str
    close: str
    select_seen: str
    expire: str
    count: str
    select_seq: str
    latest_token: str
    count_owned: str
    count_all: str

    @classmethod
    def of(cls, dialect: Dialect) -> Statements:
        texts = (
            INSERT_TABLE,
            SELECT_TABLE,
            SELECT_CAPABILITIES,
            INSERT_CAPABILITY,
            UPSERT_CAPABILITY,
            INSERT_STEP,
            INSERT_SEEN,
            ADVANCE,
            CLOSE,
            SELECT_SEEN,
            EXPIRE,
            COUNT,
            SELECT_SEQ,
            LATEST_TOKEN,
            COUNT_OWNED,
            COUNT_ALL,
        )
        return cls(*(dialect.sql(text) for text in texts))
