"""The store's one schema, its forward migrations and the statements both stores share.

Written once with ``%s`` placeholders and a ``{blob}`` type; :class:`Dialect` fills them in for SQLite (``?``,
``BLOB``) and PostgreSQL (``%s``, ``BYTEA``). Every other word is SQL both understand.

The tables:

- ``schema_version``: one row, the version of the schema the database holds (:data:`SCHEMA_VERSION` once opened).
- ``tables``: one row per table: its latest token and ``seq``, the seats' keys (a JSON list), the host's settings,
  the turn timer (``due_ms``, 0: none), the timer's lease (``lease_owner``, ``lease_until_ms``), ``closed``, the
  times it was created and last changed, and who opened it (``owner``: a digest of its caller key; since version 2),
  its hosted state (``hosting``: JSON, the waiting room and the pause; since version 3).
- ``presence``: when each seat's person was last at the table (a Watch held, or a call), keyed ``(table_id, seat)``
  (since version 3), so every replica counts who is present.
- ``capabilities``: the digest of each audience's capability, keyed ``(table_id, audience)``.
- ``steps``: the log, one row per applied step, keyed ``(table_id, seq)``: the action, and (since version 4, in
  ``seen``) what each audience saw of it, every audience's update packed in one value (:func:`pack_seen`).
- ``seen``: what each audience saw of each step, one row per audience, keyed ``(table_id, audience, seq)``, so
  Watch's resume reads one audience's rows in order from the key alone. PostgreSQL writes this form (its replicas
  of two releases share it through a rolling deploy) and reads both, so that a later release may write the packed
  one. The SQLite store, kept by one host process of one release, writes the packed form (a move is two rows, not
  seven) and reads both: a store of version 3 keeps its steps as they are.

Removing a table removes its capabilities, steps and what was seen of them (foreign keys, ``ON DELETE CASCADE``).
"""

from __future__ import annotations

import json
import struct
import time
from collections.abc import Iterable, Mapping, Sequence
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

    def sql(self, dialect: Dialect) -> str:
        return dialect.sql(f"ALTER TABLE {self.table} ADD COLUMN {self.column} {self.definition}")


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
    # Version 3: the hosted state (waiting room, pause) and when each seat's person was last at the table.
    3: (
        AddColumn("tables", "hosting", "TEXT NOT NULL DEFAULT ''"),
        """CREATE TABLE IF NOT EXISTS presence (
            table_id TEXT NOT NULL REFERENCES tables (table_id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            seen_ms BIGINT NOT NULL,
            PRIMARY KEY (table_id, seat)
        )""",
    ),
    # Version 4: what each audience saw of a step, packed in the step's row (empty in the steps written before).
    4: (AddColumn("steps", "seen", "{blob} NOT NULL DEFAULT ''"),),
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
    "created_ms, updated_ms, owner, hosting"
)
INSERT_TABLE = f"INSERT INTO tables ({TABLE_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, '', 0, %s, %s, %s, %s, %s)"
SELECT_TABLE = (
    "SELECT table_id, game, token, seq, seat_keys, settings, due_ms, closed, created_ms, updated_ms, owner, hosting "
    "FROM tables WHERE table_id = %s"
)
SELECT_CAPABILITIES = "SELECT audience, digest FROM capabilities WHERE table_id = %s"
SELECT_SEQ = "SELECT seq FROM tables WHERE table_id = %s"
INSERT_CAPABILITY = "INSERT INTO capabilities (table_id, audience, digest) VALUES (%s, %s, %s)"
UPSERT_CAPABILITY = (
    "INSERT INTO capabilities (table_id, audience, digest) SELECT table_id, %s, %s FROM tables WHERE table_id = %s "
    "ON CONFLICT (table_id, audience) DO UPDATE SET digest = excluded.digest"
)
INSERT_STEP = "INSERT INTO steps (table_id, seq, action, seen) VALUES (%s, %s, %s, %s)"
INSERT_SEEN = "INSERT INTO seen (table_id, audience, seq, body) VALUES (%s, %s, %s, %s)"
SELECT_PACKED = (
    "SELECT seq, seen FROM steps WHERE table_id = %s AND seq > %s AND length(seen) > 0 ORDER BY seq LIMIT %s"
)
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
SET_HOSTING = (
    "UPDATE tables SET hosting = %s, due_ms = %s, lease_owner = '', lease_until_ms = 0, updated_ms = %s "
    "WHERE table_id = %s AND seq = %s AND NOT closed"
)
TOUCH = (
    "INSERT INTO presence (table_id, seat, seen_ms) SELECT table_id, %s, %s FROM tables WHERE table_id = %s "
    "ON CONFLICT (table_id, seat) DO UPDATE SET seen_ms = excluded.seen_ms"
)
SELECT_PRESENCE = "SELECT seat, seen_ms FROM presence WHERE table_id = %s"
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
        table.hosting,
    )


def table_record(row: Sequence[Any], capabilities: Iterable[Sequence[Any]]) -> TableRecord:
    """The table from its row (:data:`SELECT_TABLE`) and its capabilities' rows (:data:`SELECT_CAPABILITIES`)."""
    table_id, game, token, seq, seat_keys, settings, due_ms, closed, created_ms, updated_ms, owner, hosting = row
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
        hosting=hosting,
    )


def step_row(table_id: str, step: Step, *, packed: bool = True) -> tuple[str, int, bytes, bytes]:
    """The parameters of :data:`INSERT_STEP` for ``step``: what each audience saw packed in it, or not."""
    return table_id, step.seq, step.action, pack_seen(step.seen) if packed else b""


def seen_rows(table_id: str, step: Step) -> list[tuple[str, str, int, bytes]]:
    """The parameters of each :data:`INSERT_SEEN` for ``step`` (the form before version 4)."""
    return [(table_id, audience, step.seq, body) for audience, body in step.seen.items()]


_SIZES = struct.Struct(">HI")


def pack_seen(seen: Mapping[str, bytes]) -> bytes:
    """Every audience's update in one value: for each, the lengths of its name and update, then both."""
    return b"".join(_SIZES.pack(len(name := a.encode()), len(body)) + name + body for a, body in seen.items())


def unpack_seen(packed: bytes, audience: str) -> bytes | None:
    """What ``audience`` saw, from :func:`pack_seen`'s value (None: that audience saw nothing of the step)."""
    wanted, at = audience.encode(), 0
    while at < len(packed):
        name_size, body_size = _SIZES.unpack_from(packed, at)
        at += _SIZES.size
        name_end = at + name_size
        if packed[at:name_end] == wanted:
            return packed[name_end : name_end + body_size]
        at = name_end + body_size
    return None


def audience_steps(rows: Sequence[Sequence[Any]], audience: str) -> list[tuple[int, bytes]]:
    """``audience``'s updates in rows of :data:`SELECT_PACKED`."""
    found = []
    for seq, packed in rows:
        body = unpack_seen(bytes(packed), audience)
        if body is not None:
            found.append((seq, body))
    return found


def first_steps(packed: list[tuple[int, bytes]], rows: Sequence[Sequence[Any]], limit: int) -> list[tuple[int, bytes]]:
    """The first ``limit`` steps, in order, of an audience's updates found packed and its rows of :data:`SELECT_SEEN`
    (a step in both forms once: the same update)."""
    if not rows:
        return packed[:limit]
    by_seq = {seq: bytes(body) for seq, body in rows} | dict(packed)
    return sorted(by_seq.items())[:limit]


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
    set_hosting: str
    touch: str
    select_presence: str
    select_packed: str

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
            SET_HOSTING,
            TOUCH,
            SELECT_PRESENCE,
            SELECT_PACKED,
        )
        return cls(*(dialect.sql(text) for text in texts))
