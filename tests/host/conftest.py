"""The stores under test: SQLite in the test's own folder, and PostgreSQL on a private cluster started once a run,
each test on a database of its own.

The tests here are ``async def``: each runs in one ``asyncio.run``, and the stores it opened through its
:class:`Backend` are closed in that loop when it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import inspect
import itertools
import os
import pwd
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest

from mazziere.services.host.store import Store
from mazziere.services.host.store.postgres import PostgresStore
from mazziere.services.host.store.sqlite import SqliteStore
from tests.ports import free_port

HOW = "run `make postgres-tools` as root on Debian (it installs the postgresql package)"


@dataclass(frozen=True)
class Cluster:
    """A running PostgreSQL cluster of the tests' own, trusting local connections."""

    port: int
    pg_ctl: Callable[..., None] = lambda *args: None
    """Runs ``pg_ctl`` on the cluster with these arguments."""
    database = "mazziere"

    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{self.database}"

    def stop(self) -> None:
        """Stop the server at once (its clients' connections drop); :meth:`start` brings it back."""
        self.pg_ctl("-m", "immediate", "-w", "stop")

    def start(self) -> None:
        self.pg_ctl("-w", "-t", "60", "start")


def _binaries() -> Path | None:
    """The folder of the newest initdb and pg_ctl installed (Debian's layout first)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    initdb = Path(found[-1]) if found else (Path(p) if (p := shutil.which("initdb")) else None)
    return initdb.parent if initdb and (initdb.parent / "pg_ctl").exists() else None


REQUIRED = "MAZZIERE_REQUIRE_POSTGRES"
"""Set to 1 (`make test` does), a missing PostgreSQL fails its tests instead of skipping them."""


def unavailable(why: str) -> None:
    """Skip the PostgreSQL tests, or fail them where the run requires them (:data:`REQUIRED`)."""
    if os.environ.get(REQUIRED) == "1":
        pytest.fail(f"{why} ({REQUIRED}=1: the PostgreSQL tests must run)", pytrace=False)
    pytest.skip(why)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """Starts PostgreSQL once for the run (as the ``postgres`` user when root) and removes it at the end."""
    binaries = _binaries()
    if binaries is None:
        unavailable(f"PostgreSQL store tests: no initdb and pg_ctl under /usr/lib/postgresql/*/bin: {HOW}")
    assert binaries is not None
    as_user: list[str] = []
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            unavailable(f"PostgreSQL store tests: as root, initdb runs as the user postgres, who is missing: {HOW}")
        as_user = ["runuser", "-u", "postgres", "--"]
    home = Path(tempfile.mkdtemp(prefix="mazziere-pg-"))
    data, log = home / "data", home / "postgres.log"
    if as_user:
        shutil.chown(home, "postgres")
    port = free_port()
    options = f"-p {port} -k {home} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"

    def run(*command: str) -> None:
        done = subprocess.run([*as_user, *command], cwd=home, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            logged = log.read_text() if log.exists() else ""
            pytest.fail(f"{' '.join(command[:2])} failed: {done.stdout}{done.stderr}{logged}", pytrace=False)

    def pg_ctl(*args: str) -> None:
        run(str(binaries / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, *args)

    try:
        run(str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
        pg_ctl("-w", "-t", "60", "start")
        try:
            run(str(binaries / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", Cluster.database)
            yield Cluster(port, pg_ctl)
        finally:
            pg_ctl("-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(home, ignore_errors=True)


_schemas = itertools.count(1)


@dataclass
class Backend:
    """One test's database of one kind: opens stores on it, and reads or changes it directly by SQL."""

    kind: str
    url: str
    """The store's URL (``sqlite:///...`` or ``postgresql://...``) as :func:`open_store` takes it."""
    path: Path | None = None
    opened: list[Store] = field(default_factory=list)

    def make(self) -> SqliteStore | PostgresStore:
        """A new store on the database (SQLite: raises if another is open on the file)."""
        return SqliteStore(self.path) if self.path is not None else PostgresStore(self.url, pool_size=4)

    async def open(self) -> Store:
        """A new store on the database, opened, and closed when the test ends."""
        store = self.make()
        self.opened.append(store)
        await store.open()
        return store

    async def hosts(self, n: int) -> list[Store]:
        """The stores of ``n`` hosts on the database: each its own on PostgreSQL; on SQLite, which serves one host
        process, the one store, ``n`` times."""
        if self.kind == "sqlite":
            return [await self.open()] * n
        return [await self.open() for _ in range(n)]

    def sql(self, statement: str) -> list[tuple[Any, ...]]:
        """Runs one statement on the database, beside any store (committed); its rows, if any."""
        if self.path is not None:
            with contextlib.closing(sqlite3.connect(self.path)) as db, db:
                return db.execute(statement).fetchall()
        with psycopg.connect(self.url, autocommit=True) as conn, conn.execute(statement) as cursor:
            return cursor.fetchall() if cursor.description else []

    def columns(self, table: str) -> list[str]:
        """The names of ``table``'s columns, in order."""
        if self.path is not None:
            return [row[1] for row in self.sql(f"PRAGMA table_info({table})")]
        where = f"table_schema = current_schema() AND table_name = '{table}'"
        query = f"SELECT column_name FROM information_schema.columns WHERE {where} ORDER BY ordinal_position"
        return [row[0] for row in self.sql(query)]

    async def aclose(self) -> None:
        for store in reversed(self.opened):
            await store.aclose()
        self.opened.clear()


@contextlib.contextmanager
def _postgres_schema(cluster: Cluster) -> Iterator[Backend]:
    """A schema of its own, the first of the URL's search path, in the cluster's database."""
    schema = f"store_{next(_schemas)}"
    with psycopg.connect(cluster.url(), autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    try:
        yield Backend("postgresql", f"{cluster.url()}?options=-csearch_path%3D{schema}")
    finally:
        with psycopg.connect(cluster.url(), autocommit=True) as admin:
            # Whatever the test left connected goes first (the tests run one at a time).
            others = "datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
            admin.execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE {others}")
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Each test once on SQLite (a file in a folder the store makes) and once on PostgreSQL."""
    if request.param == "sqlite":
        path = tmp_path / "host" / "tables.db"
        yield Backend("sqlite", f"sqlite:///{path}", path)
        return
    with _postgres_schema(request.getfixturevalue("postgres_cluster")) as postgres:
        yield postgres


@pytest.fixture
def postgres(postgres_cluster: Cluster) -> Iterator[Backend]:
    """PostgreSQL alone, for what only it does (several hosts on one store, its listening connection)."""
    with _postgres_schema(postgres_cluster) as backend:
        yield backend


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Runs an ``async def`` test in a loop of its own, then closes the stores its backend opened, in that loop."""
    test = pyfuncitem.obj
    if not inspect.iscoroutinefunction(test):
        return None
    arguments = {name: pyfuncitem.funcargs[name] for name in inspect.signature(test).parameters}
    backends = [value for value in arguments.values() if isinstance(value, Backend)]

    async def run() -> None:
        try:
            await test(**arguments)
        finally:
            for each in backends:
                await each.aclose()

    asyncio.run(run())
    return True
