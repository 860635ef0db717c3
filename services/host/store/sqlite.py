"""The embedded store: one SQLite file on local disk, kept by one host process.

Writes run on one thread of the store's own (``writing.py``), in the order they were made, so the event loop never
waits on the disk; the writes that arrive while a commit syncs are committed together, one sync for the group
(``commits.py``), and none is answered before its group's commit. Reads run on a second thread with a connection
of their own, so they never queue behind a commit (WAL lets them read while it writes); they see every write
answered before they were made. The database is in WAL mode with ``synchronous=FULL`` by default: each step is on
disk (the log synced) when its call returns, so neither a killed host nor a lost machine loses a move the players
were answered. ``synchronous="normal"`` (``MAZZIERE_STORE_SYNC=normal``) syncs the log only at checkpoints: a killed
host still loses nothing, a power cut may lose the last moves answered.

One host only: the store holds an exclusive lock on the file ``<database>.lock`` beside it while open, so a
second host on the same file refuses to start. Listeners hear this host's notifications: its steps, and its
reissued capabilities. A host served by several processes of one machine (``MAZZIERE_PROCESSES``) opens the store
in each with its ``siblings`` (:mod:`.siblings`): the supervisor holds the lock for them all, and each process's
notifications reach the others' listeners, forgetting the records they kept of the table.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from mazziere.services.core.logs import get_logger
from mazziere.services.host.store import schema
from mazziere.services.host.store.base import Listener, Missed, Step, StoreError, TableRecord
from mazziere.services.host.store.commits import CommitGroups, Write, apply_group
from mazziere.services.host.store.records import Records
from mazziere.services.host.store.siblings import Siblings
from mazziere.services.host.store.writing import Writing

T = TypeVar("T")
log = get_logger("mazziere.host.store")
MEMORY = ":memory:"
"""The path of a database in memory (tests): no file, no lock, gone when closed."""

_SQL = schema.SQLITE.sql
SQL = schema.Statements.of(schema.SQLITE)
DUE = _SQL("SELECT table_id, seq " + schema.DUE)
LEASE = _SQL(schema.LEASE)
PAGES = ("page_count", "freelist_count", "page_size")
EVERY_TABLE = ""
"""The table id of a sibling's news that it removed tables (expired): forget every record kept."""
SYNC = ("full", "normal")
"""The store's ``synchronous`` settings: a sync at every commit (no answered move lost to a power cut), or only at
checkpoints (none lost to a killed host)."""


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """A write transaction, committed if the block ends normally (a ``return`` too), else rolled back."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        db.execute("COMMIT")
    finally:
        if db.in_transaction:
            db.execute("ROLLBACK")


def _migrate(db: sqlite3.Connection, statement: schema.Migration) -> None:
    if isinstance(statement, schema.AddColumn):
        columns = {row[0] for row in db.execute(schema.COLUMNS["sqlite"], (statement.table,))}
        if statement.column not in columns:
            db.execute(statement.sql(schema.SQLITE))
        return
    db.execute(schema.SQLITE.sql(statement))


def _append(db: sqlite3.Connection, table_id: str, step: Step) -> None:
    """The step's row, what every audience saw packed in it: one row where one per audience took five more (a
    store one host process of one release keeps needs no rows in the older form)."""
    db.execute(SQL.insert_step, schema.step_row(table_id, step))


def _steps(table_id: str, audience: str, after_seq: int, limit: int, db: sqlite3.Connection) -> list[tuple[int, bytes]]:
    """``audience``'s first ``limit`` updates after ``after_seq``: from the steps' packed form, read a page of steps
    at a time until enough have one for it, and from the rows of the steps written before it."""
    packed: list[tuple[int, bytes]] = []
    after = after_seq
    while len(packed) < limit:
        rows = db.execute(SQL.select_packed, (table_id, after, limit)).fetchall()
        packed += schema.audience_steps(rows, audience)
        if len(rows) < limit:
            break
        after = rows[-1][0]
    older = db.execute(SQL.select_seen, (table_id, audience, after_seq, limit)).fetchall()
    return schema.first_steps(packed, older, limit)


class SqliteStore:
    """The tables of one host in the SQLite database at ``path`` (its folders are made; ``:memory:`` for none).

    Opening takes the lock, makes the database (mode 0600) and migrates its schema forward; it raises
    :class:`StoreError` if another host holds the lock or the file is not a database this host can use."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Callable[[], int] = schema.now_ms,
        sync: str = "full",
        siblings: Siblings | None = None,
    ) -> None:
        if sync not in SYNC:
            raise ValueError(f"the SQLite store's sync is one of {', '.join(SYNC)}, not {sync!r}")
        self.path = os.fspath(path)
        self.sync = sync
        self._clock = clock
        self._listeners: list[Listener] = []
        self._siblings = siblings
        self._handed: dict[str, int] = {}
        """With siblings: the move each table's siblings were last handed with what its audiences saw."""
        self._closed = False
        self._db: sqlite3.Connection | None = None
        self._reading: sqlite3.Connection | None = None
        self._lock_fd: int | None = None
        self._turn: int | None = None
        """With siblings: the file whose lock a commit group holds (SQLite's own lock is polled while it waits)."""
        self._worker = Writing("mazziere-sqlite")
        self._reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mazziere-sqlite-read")
        self.commits = CommitGroups(self._run_group)
        self.records = Records()
        try:
            self._worker.submit(self._open).result()
            if self.path != MEMORY:  # a database in memory is one connection's own: its reads stay on the writer
                self._reader.submit(self._open_reading).result()
        except BaseException:
            self._worker.submit(self._release).result()
            self._reader.submit(self._release_reading).result()
            self._worker.shutdown()
            self._reader.shutdown()
            raise

    # -- on the worker thread ------------------------------------------------------------------------------------

    def _open(self) -> None:
        try:
            if self.path != MEMORY:
                database = Path(self.path)
                database.parent.mkdir(parents=True, exist_ok=True)
                if self._siblings is None:
                    self._lock_fd = hold_lock(self.path)
                else:  # this process's own description of the file: a lock between the siblings
                    self._turn = os.open(f"{self.path}.turn", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                os.close(os.open(database, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600))
                for file in (database, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):
                    if file.exists():
                        file.chmod(0o600)
            self._db = db = sqlite3.connect(self.path, isolation_level=None, timeout=5.0, check_same_thread=True)
            mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode != "wal" and self.path != MEMORY:
                raise StoreError(f"SQLite store {self.path}: WAL mode is not available here (journal mode {mode})")
            db.execute(f"PRAGMA synchronous = {self.sync.upper()}")
            db.execute("PRAGMA foreign_keys = ON")
            with _transaction(db):
                db.execute(schema.CREATE_VERSION)
                db.execute(schema.INSERT_VERSION)
                version = db.execute(schema.SELECT_VERSION).fetchone()[0]
                for statement in schema.pending(version):
                    _migrate(db, statement)
                db.execute(_SQL(schema.UPDATE_VERSION), (schema.SCHEMA_VERSION,))
        except (sqlite3.Error, OSError) as error:
            raise StoreError(f"SQLite store {self.path}: cannot open: {error}") from error

    def _open_reading(self) -> None:
        try:
            self._reading = sqlite3.connect(self.path, isolation_level=None, timeout=5.0, check_same_thread=True)
            self._reading.execute("PRAGMA query_only = ON")
        except sqlite3.Error as error:
            raise StoreError(f"SQLite store {self.path}: cannot open for reading: {error}") from error

    def _release_reading(self) -> None:
        if self._reading is not None:
            self._reading.close()
            self._reading = None

    def _release(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # and with it the lock
            self._lock_fd = None
        if self._turn is not None:
            os.close(self._turn)
            self._turn = None

    def _call(self, work: Callable[[sqlite3.Connection], T], *, reading: bool = False) -> T:
        db = self._reading if reading else self._db
        if db is None:
            raise StoreError(f"SQLite store {self.path}: closed")
        try:
            return work(db)
        except sqlite3.Error as error:
            raise StoreError(f"SQLite store {self.path}: {error}") from error

    def _group(self, writes: list[Write], db: sqlite3.Connection) -> list[tuple[bool, Any]]:
        if self._turn is not None:  # the siblings' groups take turns here, woken at once, not by SQLite's polling
            fcntl.flock(self._turn, fcntl.LOCK_EX)
        try:
            outcomes = apply_group(writes, db)
        finally:
            if self._turn is not None:
                fcntl.flock(self._turn, fcntl.LOCK_UN)
        return [
            (ok, StoreError(f"SQLite store {self.path}: {value}") if isinstance(value, sqlite3.Error) else value)
            for ok, value in outcomes
        ]

    def _create(self, table: TableRecord, first: Step, db: sqlite3.Connection) -> None:
        db.execute(SQL.insert_table, schema.table_row(table, self._clock()))
        db.executemany(SQL.insert_capability, [(table.table_id, a, d) for a, d in table.capabilities.items()])
        _append(db, table.table_id, first)

    @staticmethod
    def _get(table_id: str, db: sqlite3.Connection) -> TableRecord | None:
        row = db.execute(SQL.select_table, (table_id,)).fetchone()
        if row is None:
            return None
        return schema.table_record(row, db.execute(SQL.select_capabilities, (table_id,)).fetchall())

    @staticmethod
    def _advance(
        table_id: str, expected_seq: int, token: bytes, due_ms: int, step: Step, now_ms: int, db: sqlite3.Connection
    ) -> bool:
        changed = db.execute(SQL.advance, (token, step.seq, due_ms, now_ms, table_id, expected_seq)).rowcount
        if changed != 1:
            return False
        _append(db, table_id, step)
        return True

    def _close_table(self, table_id: str, step: Step, db: sqlite3.Connection) -> bool:
        if db.execute(SQL.close, (step.seq, self._clock(), table_id, step.seq)).rowcount != 1:
            return False
        _append(db, table_id, step)
        return True

    @staticmethod
    def _claim(now_ms: int, lease_ms: int, owner: str, limit: int, db: sqlite3.Connection) -> list[tuple[str, int]]:
        due: list[tuple[str, int]] = db.execute(DUE, (now_ms, now_ms, limit)).fetchall()
        db.executemany(LEASE, [(owner, now_ms + lease_ms, table_id) for table_id, _ in due])
        return due

    @staticmethod
    def _write(statement: str, parameters: tuple[object, ...], db: sqlite3.Connection) -> int:
        return int(db.execute(statement, parameters).rowcount)

    @staticmethod
    def _read(statement: str, parameters: tuple[object, ...], db: sqlite3.Connection) -> list[tuple[Any, ...]]:
        return db.execute(statement, parameters).fetchall()

    # -- the Store -----------------------------------------------------------------------------------------------

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """A read: on the reading connection's thread (the writer's for a database in memory)."""
        if self._closed:
            raise StoreError(f"SQLite store {self.path}: closed")
        reading = self._reading is not None
        call = partial(self._call, work, reading=reading)
        return await asyncio.get_running_loop().run_in_executor(self._reader if reading else self._worker, call)

    async def _commit(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """A write, answered once the group it joins is committed."""
        if self._closed:
            raise StoreError(f"SQLite store {self.path}: closed")
        return await self.commits.write(work)

    def _run_group(self, writes: list[Write]) -> asyncio.Future[list[tuple[bool, Any]]]:
        return self._worker.call(partial(self._call, partial(self._group, writes)))

    async def open(self) -> SqliteStore:
        """The store, open (it opened when made)."""
        if self._closed:
            raise StoreError(f"SQLite store {self.path}: closed")
        return self

    async def create(self, table: TableRecord, first: Step) -> None:
        await self._row_write(table.table_id, partial(self._create, table, first))

    async def get(self, table_id: str, at_least: int = 0) -> TableRecord | None:
        """The table's record: as this store's own writes left it when it is kept (:mod:`.records`) and at
        ``at_least`` or later, else read. With siblings, a record kept is forgotten as soon as a sibling's news of
        the table comes; a move a sibling made and answered before that news came is what ``at_least`` reads."""
        kept = self.records.get(table_id)
        if kept is not None and kept.seq >= at_least:
            return kept
        writes = self.records.writes(table_id)
        record = await self._run(partial(self._get, table_id))
        if record is not None:
            self.records.keep(record, writes)
        return record

    async def advance(self, table_id: str, expected_seq: int, token: bytes, due_ms: int, step: Step) -> bool:
        before, _ = self.records.begin(table_id)
        now_ms = self._clock()
        landed = False
        try:
            landed = await self._commit(partial(self._advance, table_id, expected_seq, token, due_ms, step, now_ms))
        finally:
            _, writes = self.records.begin(table_id)  # what a read kept meanwhile may be the row before the move
        if landed and before is not None and before.seq == expected_seq and not before.closed:
            self.records.advanced(before, writes, token, step.seq, due_ms, now_ms)
        if landed and self._siblings is not None:  # the move's own notification need not go again
            self._siblings.send(table_id, step.seq, "", step.seen)
            self._handed[table_id] = step.seq
        return landed

    async def steps(self, table_id: str, audience: str, after_seq: int, limit: int = 1000) -> list[tuple[int, bytes]]:
        return await self._run(partial(_steps, table_id, audience, after_seq, limit))

    async def set_capability(self, table_id: str, audience: str, digest: bytes) -> None:
        await self._row_write(table_id, partial(self._write, SQL.upsert_capability, (audience, digest, table_id)))

    async def close(self, table_id: str, step: Step) -> bool:
        return await self._row_write(table_id, partial(self._close_table, table_id, step))

    async def claim_due(self, now_ms: int, lease_ms: int, owner: str, limit: int = 100) -> list[tuple[str, int]]:
        return await self._commit(partial(self._claim, now_ms, lease_ms, owner, limit))

    async def set_hosting(self, table_id: str, seq: int, hosting: str, due_ms: int) -> bool:
        parameters = (hosting, due_ms, self._clock(), table_id, seq)
        return await self._row_write(table_id, partial(self._write, SQL.set_hosting, parameters)) == 1

    async def _row_write(self, table_id: str, work: Callable[[sqlite3.Connection], T]) -> T:
        """A write of the table's row: its kept record is forgotten when the write begins and again once it is
        done, so that a read which ran meanwhile (and may have seen the row as it was) keeps nothing."""
        self.records.begin(table_id)
        try:
            return await self._commit(work)
        finally:
            self.records.begin(table_id)

    async def touch(self, table_id: str, seats: Sequence[int], now_ms: int) -> None:
        await self._commit(partial(self._touch, [(seat, now_ms, table_id) for seat in seats]))

    @staticmethod
    def _touch(rows: list[tuple[int, int, str]], db: sqlite3.Connection) -> None:
        db.executemany(SQL.touch, rows)

    async def presence(self, table_id: str) -> dict[int, int]:
        rows = await self._run(partial(self._read, SQL.select_presence, (table_id,)))
        return {int(seat): int(seen) for seat, seen in rows}

    async def expire(self, idle_before_ms: int) -> int:
        self.records.clear()
        try:
            removed = await self._commit(partial(self._write, SQL.expire, (idle_before_ms,)))
        finally:
            self.records.clear()
        if removed and self._siblings is not None:
            self._siblings.send(EVERY_TABLE, 0, "")
        return removed

    async def count(self) -> int:
        rows = await self._run(partial(self._read, SQL.count, ()))
        return int(rows[0][0])

    async def latest_token(self) -> bytes | None:
        rows = await self._run(partial(self._read, SQL.latest_token, ()))
        return bytes(rows[0][0]) if rows else None

    async def count_owned(self, owner: str) -> int:
        rows = await self._run(partial(self._read, SQL.count_owned, (owner,)))
        return int(rows[0][0])

    async def usage(self) -> tuple[int, int]:
        """The tables, and the bytes of the database's pages in use (its free pages, which it reuses, aside)."""
        return await self._run(self._usage)

    @staticmethod
    def _usage(db: sqlite3.Connection) -> tuple[int, int]:
        tables = int(db.execute(SQL.count_all).fetchone()[0])
        pages, free, size = (int(db.execute(f"PRAGMA {name}").fetchone()[0]) for name in PAGES)
        return tables, (pages - free) * size

    async def seqs(self, table_ids: Sequence[str]) -> dict[str, int]:
        return await self._run(partial(self._seqs, list(table_ids)))

    @staticmethod
    def _seqs(table_ids: list[str], db: sqlite3.Connection) -> dict[str, int]:
        found = ((table_id, db.execute(SQL.select_seq, (table_id,)).fetchone()) for table_id in table_ids)
        return {table_id: int(row[0]) for table_id, row in found if row is not None}

    async def listen(self, listener: Listener, missed: Missed | None = None) -> None:
        """On one machine nothing is ever missed: ``missed`` is never called."""
        if self._closed:
            raise StoreError(f"SQLite store {self.path}: closed")
        self._listeners.append(listener)
        if self._siblings is not None and len(self._listeners) == 1:
            await self._siblings.start(self._heard)

    async def notify(self, table_id: str, seq: int, revoked: str = "") -> None:
        """Tell this host's listeners, one after the other (a listener that fails is logged and skipped), and its
        sibling processes'."""
        if self._closed:
            raise StoreError(f"SQLite store {self.path}: closed")
        if self._siblings is not None and (revoked or self._handed.pop(table_id, None) != seq):
            self._siblings.send(table_id, seq, revoked)
        await self._tell(table_id, seq, revoked)

    async def _heard(self, table_id: str, seq: int, revoked: str, seen: Mapping[str, bytes] | None = None) -> None:
        """A sibling's news: the table's kept record is out of date (and any read of it under way); every record,
        when it expired tables."""
        if table_id == EVERY_TABLE:
            self.records.clear()
            return
        self.records.begin(table_id)
        await self._tell(table_id, seq, revoked, seen)

    async def _tell(self, table_id: str, seq: int, revoked: str, seen: Mapping[str, bytes] | None = None) -> None:
        for listener in list(self._listeners):
            try:
                await listener(table_id, seq, revoked, seen)
            except Exception:
                log.exception("host_store_listener_failed", table_id=table_id, seq=seq)

    async def aclose(self) -> None:
        """Finish the calls already made, then close the database and release its lock."""
        if self._closed:
            return
        await self.commits.drain()
        self._closed = True
        self._listeners.clear()
        if self._siblings is not None:
            await self._siblings.aclose()
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(self._reader, self._release_reading)
            await loop.run_in_executor(self._worker, self._release)
        finally:
            self._reader.shutdown(wait=False)
            self._worker.shutdown(wait=False)


def hold_lock(path: str) -> int:
    """An exclusive lock on ``<path>.lock`` (made, mode 0600), held as long as the returned descriptor (and any
    process's copy of it) is open; a :class:`StoreError` if another host holds it."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    os.fchmod(fd, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreError(
            f"another host uses this store ({path}); SQLite serves the processes of one host: "
            "use PostgreSQL for replicas"
        ) from None
    return fd
