"""The shared store: PostgreSQL, for several host replicas on one database.

Calls take a connection from a small pool of the store's own (made as needed, up to ``pool_size``, each in
autocommit mode with explicit transactions). A move is one transaction: the conditional ``UPDATE`` on ``seq``
(whose row count says whether it landed) and the log's ``INSERT``s. Due timers are claimed by one ``UPDATE`` over
``SELECT ... FOR UPDATE SKIP LOCKED``, so two replicas claiming at once never get the same table.

Every replica hears every step by LISTEN/NOTIFY on one channel, :data:`CHANNEL`, with the payload
``"table_id:seq"``, and every reissued capability with ``"table_id:seq:revoked=<audience>"`` (a later version may
add other ``:name=value`` fields, which this one ignores), on a connection
kept for listening alone: when it drops, the store connects again (waiting a little longer after each failure),
listens on, and tells its host that notifications may have been lost meanwhile: the host reads the latest seq of
every table it has watchers of, and they catch up from the log (:meth:`PostgresStore.steps`).

The schema is made and migrated forward at the first call (or :meth:`PostgresStore.open`), under an advisory lock
so replicas starting together migrate once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

import psycopg
from psycopg import AsyncConnection
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import TransactionStatus
from psycopg.rows import TupleRow

from mazziere.services.core.logs import get_logger
from mazziere.services.host.store import schema
from mazziere.services.host.store.base import Listener, Missed, Step, StoreError, TableRecord

Connection = AsyncConnection[TupleRow]
log = get_logger("mazziere.host.store")

CHANNEL = "mazziere_host"
"""The channel of the steps' notifications."""
MIGRATION_LOCK = 0x6D617A7A6965
"""The advisory lock held while the schema is migrated ("mazzie")."""
HEALTH_EVERY_S = 30.0
"""How long the listening connection waits for a notification before it checks the server still answers."""
HEALTH_TIMEOUT_S = 10.0
"""How long that check may take before the connection is taken for dead."""
RETRY_FIRST_S = 0.1
RETRY_MAX_S = 5.0
"""The wait before connecting again after a failed attempt, doubled each time up to this."""

_SQL = schema.POSTGRES.sql
SQL = schema.Statements.of(schema.POSTGRES)
CLAIM = _SQL(
    "WITH claimed AS (UPDATE tables SET lease_owner = %s, lease_until_ms = %s "
    f"WHERE table_id IN (SELECT table_id {schema.DUE} FOR UPDATE SKIP LOCKED) RETURNING table_id, seq, due_ms) "
    "SELECT table_id, seq FROM claimed ORDER BY due_ms, table_id"
)
NOTIFY = "SELECT pg_notify(%s, %s)"
USAGE = "SELECT " + " + ".join(f"pg_total_relation_size('{t}')" for t in ("tables", "capabilities", "steps", "seen"))


async def _migrate(conn: Connection, statement: schema.Migration) -> None:
    if isinstance(statement, schema.AddColumn):
        rows = await (await conn.execute(schema.COLUMNS["postgresql"], (statement.table,))).fetchall()
        if statement.column not in {row[0] for row in rows}:
            await conn.execute(statement.sql(schema.POSTGRES))
        return
    await conn.execute(_SQL(statement))


async def _append(conn: Connection, table_id: str, step: Step) -> None:
    """The step's row and a row of what each audience saw: the form the replicas of the release before read (they
    share the database through a rolling deploy). This release reads the packed form too, so the next may write it
    (as the SQLite store does), the rolling deploy's expand step before its contract."""
    await conn.execute(SQL.insert_step, schema.step_row(table_id, step, packed=False))
    if seen := schema.seen_rows(table_id, step):
        async with conn.cursor() as cursor:
            await cursor.executemany(SQL.insert_seen, seen)


REVOKED = "revoked"
"""The field of a notification that names the audience whose capability was reissued."""


def read_notification(payload: str) -> tuple[str, str, dict[str, str]]:
    """A notification's table id, seq and fields: ``<table_id>:<seq>``, then any ``:<name>=<value>`` fields (this
    version reads :data:`REVOKED`; one it does not know is kept and ignored, so replicas of two versions side by
    side, in a rolling deploy, hear each other)."""
    parts = payload.split(":")
    fields: dict[str, str] = {}
    while len(parts) > 2 and "=" in parts[-1]:
        name, _, value = parts.pop().partition("=")
        fields.setdefault(name, value)
    return ":".join(parts[:-1]), parts[-1], fields


def notification_payload(table_id: str, seq: int, revoked: str = "") -> str:
    """The payload :func:`read_notification` reads."""
    return f"{table_id}:{seq}:{REVOKED}={revoked}" if revoked else f"{table_id}:{seq}"


class PostgresStore:
    """The tables of every host replica on the PostgreSQL database at ``url`` (a libpq connection string or URL).

    Errors are :class:`StoreError`, naming the server and database but never the password."""

    def __init__(self, url: str, *, pool_size: int = 8, clock: Callable[[], int] = schema.now_ms) -> None:
        try:
            params = conninfo_to_dict(url)
        except psycopg.Error:
            raise StoreError("PostgreSQL store: the URL is not a connection string libpq reads") from None
        self._url = url
        self._password = str(params.get("password") or "")
        self._where = f"{params.get('host') or 'localhost'}:{params.get('port') or 5432}/{params.get('dbname') or ''}"
        self._clock = clock
        self._idle: list[Connection] = []
        self._slots = asyncio.Semaphore(pool_size)
        self._opening = asyncio.Lock()
        self._ready = False
        self._closed = False
        self._listeners: list[Listener] = []
        self._missed: list[Missed] = []
        self._listening: asyncio.Future[None] | None = None
        self._listen_task: asyncio.Task[None] | None = None

    def _error(self, what: str, error: BaseException) -> StoreError:
        message = str(error).strip() or type(error).__name__
        if self._password:
            message = message.replace(self._password, "***")
        return StoreError(f"PostgreSQL store {self._where}: {what} failed: {message}")

    async def _connect(self) -> Connection:
        return await AsyncConnection.connect(self._url, autocommit=True)

    @asynccontextmanager
    async def _connection(self, what: str) -> AsyncIterator[Connection]:
        """A pooled connection; back in the pool after the block if it is idle and healthy, else closed."""
        if self._closed:
            raise StoreError(f"PostgreSQL store {self._where}: closed")
        async with self._slots:
            conn = self._idle.pop() if self._idle else None
            try:
                if conn is None:
                    conn = await self._connect()
                yield conn
            except psycopg.Error as error:
                raise self._error(what, error) from error
            finally:
                if conn is not None:
                    if not self._closed and not conn.closed and conn.info.transaction_status == TransactionStatus.IDLE:
                        self._idle.append(conn)
                    else:
                        await conn.close()

    @asynccontextmanager
    async def _transaction(self, what: str) -> AsyncIterator[Connection]:
        await self.open()
        async with self._connection(what) as conn, conn.transaction():
            yield conn

    async def open(self) -> PostgresStore:
        """Connect and bring the schema to :data:`~mazziere.services.host.store.SCHEMA_VERSION` (once; every call
        does it first, so calling this only makes a bad URL or an unreachable server show at once)."""
        if self._ready:
            return self
        async with self._opening:
            if not self._ready:
                async with self._connection("open") as conn, conn.transaction():
                    await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
                    await conn.execute(schema.CREATE_VERSION)
                    await conn.execute(schema.INSERT_VERSION)
                    row = await (await conn.execute(schema.SELECT_VERSION)).fetchone()
                    for statement in schema.pending(row[0] if row else 0):
                        await _migrate(conn, statement)
                    await conn.execute(_SQL(schema.UPDATE_VERSION), (schema.SCHEMA_VERSION,))
                self._ready = True
        return self

    async def create(self, table: TableRecord, first: Step) -> None:
        async with self._transaction("create") as conn:
            await conn.execute(SQL.insert_table, schema.table_row(table, self._clock()))
            if table.capabilities:
                async with conn.cursor() as cursor:
                    rows = [(table.table_id, audience, digest) for audience, digest in table.capabilities.items()]
                    await cursor.executemany(SQL.insert_capability, rows)
            await _append(conn, table.table_id, first)

    async def get(self, table_id: str, at_least: int = 0) -> TableRecord | None:
        """The table as it is now (nothing is kept)."""
        async with self._transaction("get") as conn:
            row = await (await conn.execute(SQL.select_table, (table_id,))).fetchone()
            if row is None:
                return None
            capabilities = await (await conn.execute(SQL.select_capabilities, (table_id,))).fetchall()
            return schema.table_record(row, capabilities)

    async def advance(self, table_id: str, expected_seq: int, token: bytes, due_ms: int, step: Step) -> bool:
        async with self._transaction("advance") as conn:
            parameters = (token, step.seq, due_ms, self._clock(), table_id, expected_seq)
            if (await conn.execute(SQL.advance, parameters)).rowcount != 1:
                return False
            await _append(conn, table_id, step)
            return True

    async def steps(self, table_id: str, audience: str, after_seq: int, limit: int = 1000) -> list[tuple[int, bytes]]:
        async with self._transaction("steps") as conn:
            # Both forms from one snapshot: a step of either committed between two reads would leave a gap.
            await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            packed: list[tuple[int, bytes]] = []
            after = after_seq
            while len(packed) < limit:  # none yet: a later release writes the packed form (the SQLite store's)
                rows = await (await conn.execute(SQL.select_packed, (table_id, after, limit))).fetchall()
                packed += schema.audience_steps(rows, audience)
                if len(rows) < limit:
                    break
                after = rows[-1][0]
            older = await (await conn.execute(SQL.select_seen, (table_id, audience, after_seq, limit))).fetchall()
            return schema.first_steps(packed, older, limit)

    async def set_capability(self, table_id: str, audience: str, digest: bytes) -> None:
        async with self._transaction("set_capability") as conn:
            await conn.execute(SQL.upsert_capability, (audience, digest, table_id))

    async def close(self, table_id: str, step: Step) -> bool:
        async with self._transaction("close") as conn:
            if (await conn.execute(SQL.close, (step.seq, self._clock(), table_id, step.seq))).rowcount != 1:
                return False
            await _append(conn, table_id, step)
            return True

    async def claim_due(self, now_ms: int, lease_ms: int, owner: str, limit: int = 100) -> list[tuple[str, int]]:
        async with self._transaction("claim_due") as conn:
            rows = await (await conn.execute(CLAIM, (owner, now_ms + lease_ms, now_ms, now_ms, limit))).fetchall()
            return [(table_id, seq) for table_id, seq in rows]

    async def set_hosting(self, table_id: str, seq: int, hosting: str, due_ms: int) -> bool:
        async with self._transaction("set_hosting") as conn:
            parameters = (hosting, due_ms, self._clock(), table_id, seq)
            return (await conn.execute(SQL.set_hosting, parameters)).rowcount == 1

    async def touch(self, table_id: str, seats: Sequence[int], now_ms: int) -> None:
        async with self._transaction("touch") as conn, conn.cursor() as cursor:
            await cursor.executemany(SQL.touch, [(seat, now_ms, table_id) for seat in seats])

    async def presence(self, table_id: str) -> dict[int, int]:
        async with self._transaction("presence") as conn:
            rows = await (await conn.execute(SQL.select_presence, (table_id,))).fetchall()
        return {int(seat): int(seen) for seat, seen in rows}

    async def expire(self, idle_before_ms: int) -> int:
        async with self._transaction("expire") as conn:
            return (await conn.execute(SQL.expire, (idle_before_ms,))).rowcount

    async def count(self) -> int:
        async with self._transaction("count") as conn:
            row = await (await conn.execute(SQL.count)).fetchone()
            return int(row[0]) if row else 0

    async def latest_token(self) -> bytes | None:
        async with self._transaction("latest_token") as conn:
            row = await (await conn.execute(SQL.latest_token)).fetchone()
            return bytes(row[0]) if row else None

    async def count_owned(self, owner: str) -> int:
        async with self._transaction("count_owned") as conn:
            row = await (await conn.execute(SQL.count_owned, (owner,))).fetchone()
            return int(row[0]) if row else 0

    async def usage(self) -> tuple[int, int]:
        """The tables, and the bytes of the store's four tables with their indexes and TOAST (dead rows included
        until vacuumed)."""
        async with self._transaction("usage") as conn:
            row = await (await conn.execute(SQL.count_all)).fetchone()
            size = await (await conn.execute(USAGE)).fetchone()
            return (int(row[0]) if row else 0), (int(size[0]) if size else 0)

    async def notify(self, table_id: str, seq: int, revoked: str = "") -> None:
        async with self._transaction("notify") as conn:
            await conn.execute(NOTIFY, (CHANNEL, notification_payload(table_id, seq, revoked)))

    async def seqs(self, table_ids: Sequence[str]) -> dict[str, int]:
        async with self._transaction("seqs") as conn:
            found = {}
            for table_id in table_ids:
                row = await (await conn.execute(SQL.select_seq, (table_id,))).fetchone()
                if row is not None:
                    found[table_id] = int(row[0])
            return found

    async def listen(self, listener: Listener, missed: Missed | None = None) -> None:
        """Listen from now on: returns once the listening connection listens (a StoreError if it cannot
        connect). Each time it listens again after a drop, ``missed`` is told (a notification sent meanwhile was
        lost)."""
        await self.open()
        if self._listening is None or self._listen_task is None or self._listen_task.done():
            self._listening = asyncio.get_running_loop().create_future()
            self._listen_task = asyncio.create_task(self._listen(self._listening), name="mazziere-host-listen")
        await asyncio.shield(self._listening)
        self._listeners.append(listener)
        if missed is not None:
            self._missed.append(missed)

    async def _listen(self, listening: asyncio.Future[None]) -> None:
        """Listen until closed: connect, LISTEN, hear; after a drop, connect again."""
        try:
            await self._listen_on(listening)
        finally:
            if not listening.done():
                listening.set_exception(StoreError(f"PostgreSQL store {self._where}: closed"))

    async def _listen_on(self, listening: asyncio.Future[None]) -> None:
        delay = RETRY_FIRST_S
        while not self._closed:
            try:
                conn = await self._connect()
                try:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    if listening.done():
                        log.info("host_store_listening_again", store=self._where)
                        await self._catch_up()
                    else:
                        listening.set_result(None)
                    delay = RETRY_FIRST_S
                    await self._hear(conn)
                finally:
                    await conn.close()
            except (psycopg.Error, TimeoutError) as error:
                if not listening.done():
                    listening.set_exception(self._error("listen", error))
                    return
                log.warning("host_store_listen_dropped", error=str(self._error("listen", error)), retry_s=delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX_S)

    async def _catch_up(self) -> None:
        """Tell every listener that notifications may have been lost (while the connection was down)."""
        for missed in list(self._missed):
            try:
                await missed()
            except Exception:
                log.exception("host_store_catch_up_failed")

    async def _hear(self, conn: Connection) -> None:
        """Pass on each notification; when none came for a while, check the server still answers (raises if not)."""
        while True:
            async for notification in conn.notifies(timeout=HEALTH_EVERY_S):
                table_id, seq, fields = read_notification(notification.payload)
                if not table_id or not seq.isdigit():
                    log.warning("host_store_notification_unreadable", payload=notification.payload[:100])
                    continue
                for listener in list(self._listeners):
                    try:
                        await listener(table_id, int(seq), fields.get(REVOKED, ""))
                    except Exception:
                        log.exception("host_store_listener_failed", table_id=table_id, seq=seq)
            await asyncio.wait_for(conn.execute("SELECT 1"), HEALTH_TIMEOUT_S)

    async def aclose(self) -> None:
        """Stop listening and close every connection (those in use close when their call ends)."""
        if self._closed:
            return
        self._closed = True
        self._listeners.clear()
        self._missed.clear()
        if self._listen_task is not None:
            self._listen_task.cancel()
            await asyncio.gather(self._listen_task, return_exceptions=True)
        idle, self._idle = self._idle, []
        for conn in idle:
            await conn.close()
