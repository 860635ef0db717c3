"""What one PostgreSQL holds of the host's moves: the statements, commits and WAL of one move as the host's
PostgreSQL store makes them, counted, and the moves per second a private cluster takes from ``pgbench`` running
those statements.

Run by hand (a private cluster in a temporary folder, on 127.0.0.1, removed at the end)::

    .venv/bin/python -m bench.pg_moves                       # fsync on, as a production server
    .venv/bin/python -m bench.pg_moves --no-fsync            # as the tests' cluster (fsync=off)
    .venv/bin/python -m bench.pg_moves --clients 32 --seconds 20

1. Counted: ``--tables`` tables are created through :class:`~mazziere.services.host.store.postgres.PostgresStore`,
   then ``--moves`` moves are made through it as ``Host._move`` makes one (``get``, ``advance`` with the step's
   ``seen`` row of each audience, ``notify``), and ``pg_stat_statements`` (when the server has it),
   ``pg_stat_database`` and ``pg_stat_wal`` give each per move: statements by kind, transactions committed,
   rows written, WAL records, bytes and flushes.
2. Throughput: ``pgbench`` runs a script of the same statements (``bench/pg_move.sql``) from ``--clients`` connections
   for ``--seconds`` on random tables, and its transactions per second are moves per second (its clients share
   this machine's cores with the server: a floor for the server alone); the server's CPU over the run (its
   process tree, ``bench.server_tree``) gives its CPU per move, so the moves one core of PostgreSQL holds. Then the
   same with the step's audiences packed in its row (``bench/pg_move_packed.sql``: the SQLite store's form, which
   the PostgreSQL store reads and a later release may write), and the ratio of the two CPU figures.

The bytes of a move are those measured on a host's store (:data:`TOKEN_BYTES`, :data:`SEEN_BYTES`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import glob
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import psycopg

from bench.server_tree import ServerTree
from mazziere.services.host.store.base import SPECTATORS, Step, TableRecord
from mazziere.services.host.store.postgres import PostgresStore

TOKEN_BYTES = 593
"""A sealed Sette e mezzo state of 4 seats mid-game (docs/performance.md's table of bytes)."""
SEEN_BYTES = 400
"""A step's stored update for one audience, about (a serialized HostedUpdate with its view and legal actions)."""
SEATS = 4
AUDIENCES = (*map(str, range(SEATS)), SPECTATORS)
DATABASE = "mazziere"
FLUSH_SECONDS = 1.0
"""Time for the backends of closed connections to report their statistics."""
SCRIPT = Path(__file__).resolve().parent / "pg_move.sql"
"""One move in pgbench's language."""
PACKED_SCRIPT = SCRIPT.with_name("pg_move_packed.sql")
"""The same move with what the audiences saw packed in the step's row (the SQLite store's form), one insert for six."""


@dataclass(frozen=True)
class Cluster:
    """A private PostgreSQL server: its port, its folder, and how to run its binaries (as ``postgres`` when root)."""

    port: int
    home: Path
    binaries: Path
    as_user: tuple[str, ...]

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{DATABASE}"

    def run(self, *command: str, capture: bool = True) -> str:
        done = subprocess.run(
            [*self.as_user, *command], cwd=self.home, capture_output=capture, text=True, check=False, timeout=600
        )
        if done.returncode != 0:
            log = self.home / "postgres.log"
            raise OSError(f"{command[0]} failed: {done.stdout}{done.stderr}{log.read_text() if log.exists() else ''}")
        return done.stdout or ""


def _binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    initdb = Path(found[-1]) if found else (Path(p) if (p := shutil.which("initdb")) else None)
    return initdb.parent if initdb and (initdb.parent / "pgbench").exists() else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def cluster(fsync: bool) -> Iterator[Cluster]:
    """A cluster started in a temporary folder (``fsync`` and ``synchronous_commit`` on unless ``fsync`` is false),
    with ``pg_stat_statements`` loaded when installed; stopped and removed at the end."""
    binaries = _binaries()
    if binaries is None:
        raise OSError("no initdb, pg_ctl and pgbench under /usr/lib/postgresql/*/bin (apt-get install postgresql)")
    as_user: tuple[str, ...] = ()
    if os.geteuid() == 0:
        pwd.getpwnam("postgres")
        as_user = ("runuser", "-u", "postgres", "--")
    home = Path(tempfile.mkdtemp(prefix="mazziere-pg-moves-"))
    if as_user:
        shutil.chown(home, "postgres")
    found = Cluster(_free_port(), home, binaries, as_user)
    options = f"-p {found.port} -k {home} -c listen_addresses=127.0.0.1 -c max_connections=200"
    if not fsync:
        options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    if glob.glob(f"/usr/share/postgresql/{binaries.parts[-2]}/extension/pg_stat_statements.control"):
        options += " -c shared_preload_libraries=pg_stat_statements -c track_io_timing=on"
    pg_ctl = (str(binaries / "pg_ctl"), "-D", str(home / "data"), "-l", str(home / "postgres.log"), "-o", options)
    try:
        found.run(str(binaries / "initdb"), "-D", str(home / "data"), "-A", "trust", "-U", "postgres", "-E", "UTF8")
        found.run(*pg_ctl, "-w", "-t", "60", "start")
        try:
            found.run(str(binaries / "createdb"), "-h", "127.0.0.1", "-p", str(found.port), "-U", "postgres", DATABASE)
            yield found
        finally:
            found.run(*pg_ctl, "-m", "fast", "-w", "stop")
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _table_id(index: int) -> str:
    return f"bench-{index}"


def _step(seq: int) -> Step:
    return Step(seq, os.urandom(24), {audience: os.urandom(SEEN_BYTES) for audience in AUDIENCES})


async def _fill(store: PostgresStore, tables: int) -> None:
    capabilities = {audience: os.urandom(32) for audience in (*AUDIENCES, "owner")}
    for index in range(tables):
        record = TableRecord(
            _table_id(index), "sette_e_mezzo", os.urandom(TOKEN_BYTES), 0, tuple(f"key{s}" for s in range(SEATS)),
            b'{"names":["a","b","c","d"]}', capabilities,
        )  # fmt: skip
        await store.create(record, _step(0))


async def _moves(store: PostgresStore, count: int) -> float:
    """``count`` moves, one table after another, each as the host makes it; the seconds they took."""
    began = time.perf_counter()
    for n in range(count):
        record = await store.get(_table_id(0))
        assert record is not None
        await store.advance(record.table_id, record.seq, os.urandom(TOKEN_BYTES), 0, _step(record.seq + 1))
        await store.notify(record.table_id, record.seq + 1)
        del n
    return time.perf_counter() - began


STAT_DATABASE = (
    "SELECT xact_commit, tup_inserted, tup_updated, tup_fetched, blks_hit + blks_read "
    f"FROM pg_stat_database WHERE datname = '{DATABASE}'"
)
STAT_WAL = "SELECT wal_records, wal_bytes, wal_write, wal_sync FROM pg_stat_wal"
STAT_STATEMENTS = (
    "SELECT calls, query FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = "
    f"'{DATABASE}') AND query NOT LIKE '%pg_stat%' ORDER BY calls DESC"
)


def _counters(conn: psycopg.Connection[tuple[object, ...]]) -> list[float]:
    conn.execute("SELECT pg_stat_force_next_flush()")  # this backend's counters, not held back for a second
    row = conn.execute(STAT_DATABASE).fetchone()
    wal = conn.execute(STAT_WAL).fetchone()
    return [float(str(value)) for value in (*(row or ()), *(wal or ()))]


def count(url: str, tables: int, moves: int) -> None:
    """Creates the tables through the store, then makes ``moves`` moves and prints what one move costs."""

    async def work() -> float:
        filler = PostgresStore(url, pool_size=4)
        try:
            await _fill(filler, tables)
            await _moves(filler, 10)
        finally:
            await filler.aclose()  # its connections end, and their backends report their statistics
        await asyncio.sleep(FLUSH_SECONDS)
        with psycopg.connect(url, autocommit=True) as conn:
            statements = _has_statements(conn)
            if statements:
                conn.execute("SELECT pg_stat_statements_reset()")
            before = _counters(conn)
        store = PostgresStore(url, pool_size=4)
        try:
            seconds = await _moves(store, moves)
        finally:
            await store.aclose()
        await asyncio.sleep(FLUSH_SECONDS)
        with psycopg.connect(url, autocommit=True) as conn:
            after = _counters(conn)
            calls = conn.execute(STAT_STATEMENTS).fetchall() if statements else []
        names = ("transactions committed", "rows inserted", "rows updated", "rows fetched", "buffers touched",
                 "WAL records", "WAL bytes", "WAL writes", "WAL flushes (fsync)")  # fmt: skip
        each = f"{1000 * seconds / moves:.2f} ms each"
        print(f"\none move through the store ({moves:,} moves, one after another, {each}):")
        for name, first, last in zip(names, before, after, strict=True):
            print(f"  {name} per move: {(last - first) / moves:,.2f}")
        if calls:
            print("  statements per move (pg_stat_statements):")
            for calls_made, query in calls:
                per_move = int(str(calls_made)) / moves
                if per_move >= 0.5:
                    print(f"    {per_move:5.2f}  {' '.join(str(query).split())[:110]}")
        return seconds

    asyncio.run(work())


def _has_statements(conn: psycopg.Connection[tuple[object, ...]]) -> bool:
    loaded = conn.execute("SHOW shared_preload_libraries").fetchone()
    if not loaded or "pg_stat_statements" not in str(loaded[0]):
        return False
    conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    return True


def throughput(found: Cluster, tables: int, clients: int, seconds: float, script: Path = SCRIPT) -> float:
    """``pgbench`` running ``script`` from ``clients`` connections for ``seconds``; prints its moves/s, and returns
    PostgreSQL's CPU seconds a move."""
    path = found.home / script.name
    shutil.copyfile(script, path)
    if found.as_user:
        shutil.chown(path, "postgres")
    command = (
        str(found.binaries / "pgbench"), "-h", "127.0.0.1", "-p", str(found.port), "-U", "postgres", "-n",
        "-M", "prepared", "-c", str(clients), "-j", str(min(clients, os.cpu_count() or 1)), "-T", f"{seconds:g}",
        "-D", f"tables={tables}", "-D", f"token_bytes={TOKEN_BYTES}", "-D", f"seen_bytes={SEEN_BYTES}",
        "-f", str(path), DATABASE,
    )  # fmt: skip
    server = ServerTree(int((found.home / "data" / "postmaster.pid").read_text().split()[0]))
    cpu = server.cpu_seconds()
    out = found.run(*command)
    cpu = server.cpu_seconds() - cpu
    tps = re.search(r"tps = ([\d.]+)", out)
    latency = re.search(r"latency average = ([\d.]+) ms", out)
    failed = re.search(r"number of failed transactions: (\d+)", out)
    print(f"\npgbench, {clients} connections, {seconds:g} s, one move a transaction of {script.name}:")
    rate = float(tps.group(1)) if tps else float("nan")
    print(f"  moves per second: {rate:,.0f}")
    print(f"  PostgreSQL's CPU (every backend and helper): {100 * cpu / seconds:.0f} % of one core, ", end="")
    print(f"{1000 * cpu / (rate * seconds):.2f} ms per move, so {rate * seconds / cpu:,.0f} moves/s per core")
    print(f"  latency of a move, mean: {float(latency.group(1)) if latency else float('nan'):.2f} ms")
    print(f"  failed: {failed.group(1) if failed else '?'}")
    return cpu / (rate * seconds)


def _settings(url: str) -> str:
    names = ("server_version", "fsync", "synchronous_commit", "wal_level", "shared_buffers", "commit_delay")
    with psycopg.connect(url, autocommit=True) as conn:
        return ", ".join(f"{name}={(conn.execute(f'SHOW {name}').fetchone() or ('?',))[0]}" for name in names)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1000, help="tables in the store (1 to 100,000)")
    parser.add_argument("--moves", type=int, default=2000, help="moves counted one after another (1 to 100,000)")
    parser.add_argument("--clients", type=int, default=16, help="pgbench's connections (1 to 150)")
    parser.add_argument("--seconds", type=float, default=10.0, help="pgbench's run (1 to 600 s)")
    parser.add_argument("--fsync", action=argparse.BooleanOptionalAction, default=True, help="fsync on (default)")
    ns = parser.parse_args(argv)
    if not (1 <= ns.tables <= 100_000 and 1 <= ns.moves <= 100_000 and 1 <= ns.clients <= 150):
        parser.error("--tables 1 to 100,000, --moves 1 to 100,000, --clients 1 to 150")
    if not 1 <= ns.seconds <= 600:
        parser.error("--seconds 1 to 600")
    try:
        with cluster(ns.fsync) as found:
            print(f"PostgreSQL: {_settings(found.url)}; {os.cpu_count()} cores shared with the clients")
            print(f"store: {ns.tables:,} tables of {SEATS} seats; token {TOKEN_BYTES} B, {len(AUDIENCES)} audiences "
                  f"× {SEEN_BYTES} B seen per step")  # fmt: skip  # noqa: RUF001
            count(found.url, ns.tables, ns.moves)
            rows = throughput(found, ns.tables, ns.clients, ns.seconds)
            packed = throughput(found, ns.tables, ns.clients, ns.seconds, PACKED_SCRIPT)
            print(f"\nPostgreSQL's CPU a move, packed against a row an audience: {packed / rows:.2f} x")
    except (OSError, KeyError, psycopg.Error) as exc:
        print(f"pg_moves: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
