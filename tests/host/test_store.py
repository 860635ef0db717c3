"""The host's stores, SQLite and PostgreSQL, by one suite: every test that takes ``backend`` runs on both.

"Hosts" are stores of several host processes on one database: on PostgreSQL each its own store (its own
connections), on SQLite the one store, which serves one host process. Times are passed in (``now_ms``): nothing
here sleeps or waits on the clock.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import psycopg
import pytest

from mazziere.services.host.store import (
    SCHEMA_VERSION,
    SPECTATORS,
    Step,
    Store,
    StoreError,
    TableRecord,
    open_store,
    schema,
)
from mazziere.services.host.store.postgres import PostgresStore, read_notification
from mazziere.services.host.store.records import Records
from mazziere.services.host.store.siblings import Siblings
from mazziere.services.host.store.sqlite import SqliteStore
from tests.host.conftest import Backend

AUDIENCES = (SPECTATORS, "0", "1")
HEAR_S = 60.0
"""How long a listener is awaited before the test fails instead of hanging (a notification takes milliseconds)."""


def table(table_id: str = "t1", **changes: object) -> TableRecord:
    fields: dict[str, object] = {
        "table_id": table_id,
        "game": "sette_e_mezzo",
        "token": b"token-0",
        "seq": 0,
        "seat_keys": ("key-a", "key-b"),
        "settings": b'{"turn_seconds": 30}',
        "capabilities": {"owner": b"d-owner", SPECTATORS: b"d-spectators", "0": b"d-0", "1": b"d-1"},
        "due_ms": 0,
        "created_ms": 1_000,
        "updated_ms": 1_000,
    }
    fields.update(changes)
    return TableRecord(**fields)  # type: ignore[arg-type]


def step(seq: int, audiences: tuple[str, ...] = AUDIENCES, tag: str = "") -> Step:
    """Step ``seq``, whose update for each audience reads ``audience@seq`` (and the tag)."""
    return Step(seq, f"action {seq}".encode(), {a: f"{a}@{seq}{tag}".encode() for a in audiences})


async def advance(store: Store, table_id: str, seq: int, *, due_ms: int = 0, tag: str = "") -> bool:
    """Advances ``table_id`` from ``seq - 1`` to ``seq``."""
    return await store.advance(table_id, seq - 1, f"token-{seq}{tag}".encode(), due_ms, step(seq, tag=tag))


async def test_a_table_and_its_first_step_round_trip(backend: Backend) -> None:
    store = await backend.open()
    kept = table()
    await store.create(kept, step(0))
    assert await store.get("t1") == kept
    assert await store.get("t2") is None
    assert await store.count() == 1
    for audience in AUDIENCES:
        assert await store.steps("t1", audience, -1) == [(0, f"{audience}@0".encode())]
    with pytest.raises(StoreError):
        await store.create(table(), step(0))
    assert await store.count() == 1


async def test_a_move_at_the_tables_seq_applies_and_appends_and_a_stale_one_changes_nothing(backend: Backend) -> None:
    store = await backend.open()
    await store.create(table(due_ms=5_000), step(0))
    assert await advance(store, "t1", 1, due_ms=9_000)
    now = await store.get("t1")
    assert now is not None
    assert (now.seq, now.token, now.due_ms) == (1, b"token-1", 9_000)
    assert now.updated_ms > 1_000  # the store's clock, not the record's
    assert await store.steps("t1", "0", 0) == [(1, b"0@1")]

    assert not await store.advance("t1", 0, b"stale", 0, step(1, tag="stale"))
    assert not await store.advance("t1", 0, b"stale", 0, step(2, tag="stale"))
    assert not await store.advance("gone", 0, b"stale", 0, step(1))
    assert await store.get("t1") == now
    assert await store.steps("t1", "0", -1) == [(0, b"0@0"), (1, b"0@1")]


async def test_a_step_is_kept_in_one_row_on_sqlite_and_one_row_an_audience_on_postgresql(backend: Backend) -> None:
    """SQLite packs what each audience saw in the step's row; PostgreSQL, which replicas of several releases share
    through a rolling deploy, keeps the rows every release reads."""
    store = await backend.open()
    await store.create(table(), step(0))
    assert await advance(store, "t1", 1)
    rows = backend.sql("SELECT seq, length(seen) FROM steps ORDER BY seq")
    seen_rows = backend.sql("SELECT count(*) FROM seen")[0][0]
    if backend.kind == "sqlite":
        assert all(size > 0 for _, size in rows) and seen_rows == 0
    else:
        assert all(size == 0 for _, size in rows) and seen_rows == 2 * len(AUDIENCES)
    for audience in AUDIENCES:
        assert await store.steps("t1", audience, -1) == [(0, f"{audience}@0".encode()), (1, f"{audience}@1".encode())]


async def test_steps_kept_one_row_an_audience_are_read_in_order_with_the_packed_ones(backend: Backend) -> None:
    """A store of version 3 (one row an audience) goes on with packed steps on SQLite: a resume reads both, in
    order, in pages, nothing lost or repeated."""
    store = await backend.open()
    await store.create(table(), step(0))
    await store.aclose()
    for seq in range(1, 6):  # as a host before version 4 wrote them
        backend.sql(f"INSERT INTO steps (table_id, seq, action) VALUES ('t1', {seq}, 'a')")
        for audience in AUDIENCES:
            body = f"{audience}@{seq}".encode().hex()
            backend.sql(f"INSERT INTO seen VALUES ('t1', '{audience}', {seq}, {_blob(backend, body)})")
    backend.sql("UPDATE tables SET seq = 5 WHERE table_id = 't1'")
    store = await backend.open()
    for seq in range(6, 11):
        assert await advance(store, "t1", seq)
    everything = [(seq, f"0@{seq}".encode()) for seq in range(11)]
    assert await store.steps("t1", "0", -1) == everything
    for after in range(-1, 11):
        for limit in (1, 3, 1000):
            assert await store.steps("t1", "0", after, limit) == everything[after + 1 :][:limit]


async def test_steps_packed_in_their_row_are_read_by_either_store(backend: Backend) -> None:
    """The SQLite store's form, and on PostgreSQL a later release's (this one reads it first: a rolling deploy's
    expand step), read in order and in pages with the rows an audience, an audience missing from a step skipped."""
    store = await backend.open()
    await store.create(table(), step(0))
    await store.aclose()
    for seq in range(1, 9):  # seat 1 sees only even steps
        seen = _blob(backend, schema.pack_seen(step(seq, AUDIENCES if seq % 2 == 0 else (SPECTATORS, "0")).seen).hex())
        backend.sql(f"INSERT INTO steps (table_id, seq, action, seen) VALUES ('t1', {seq}, 'a', {seen})")
    backend.sql("UPDATE tables SET seq = 8 WHERE table_id = 't1'")
    store = await backend.open()
    assert await advance(store, "t1", 9)
    assert await store.steps("t1", "0", -1) == [(seq, f"0@{seq}".encode()) for seq in range(10)]
    assert [seq for seq, _ in await store.steps("t1", "1", -1)] == [0, 2, 4, 6, 8, 9]
    for limit in (1, 2, 4):
        pages, after = [], -1
        while page := await store.steps("t1", "1", after, limit):
            assert len(page) <= limit
            pages += [seq for seq, _ in page]
            after = page[-1][0]
        assert pages == [0, 2, 4, 6, 8, 9]


async def test_postgresql_reads_both_forms_of_the_steps_from_one_snapshot(
    postgres: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """During a rolling deploy a replica writing the packed form and one writing the rows may commit steps 4 and 5
    between a reader's two reads: it sees both or neither, never 5 without 4 (its watcher would miss 4)."""
    store = await postgres.open()
    await store.create(table(), step(0))
    for seq in range(1, 4):
        assert await advance(store, "t1", seq)
    read_packed = schema.audience_steps

    def steps_committed_meanwhile(rows: Sequence[Sequence[object]], audience: str) -> list[tuple[int, bytes]]:
        monkeypatch.setattr(schema, "audience_steps", read_packed)
        with psycopg.connect(postgres.url, autocommit=True) as conn:
            conn.execute("UPDATE tables SET seq = 5 WHERE table_id = 't1'")
            conn.execute(
                "INSERT INTO steps (table_id, seq, action, seen) VALUES ('t1', 4, 'a', %s)",
                (schema.pack_seen(step(4).seen),),
            )
            conn.execute("INSERT INTO steps (table_id, seq, action) VALUES ('t1', 5, 'a')")
            for audience_of_5, body in step(5).seen.items():
                conn.execute("INSERT INTO seen VALUES ('t1', %s, 5, %s)", (audience_of_5, body))
        return read_packed(rows, audience)

    monkeypatch.setattr(schema, "audience_steps", steps_committed_meanwhile)
    assert [seq for seq, _ in await store.steps("t1", "0", 3)] == []
    assert [seq for seq, _ in await store.steps("t1", "0", 3)] == [4, 5]


def _blob(backend: Backend, hex_digits: str) -> str:
    return f"x'{hex_digits}'" if backend.kind == "sqlite" else f"'\\x{hex_digits}'::bytea"


async def test_of_50_moves_at_one_seq_from_several_hosts_exactly_one_lands(backend: Backend) -> None:
    hosts = await backend.hosts(3)
    await hosts[0].create(table(), step(0))
    landed = await asyncio.gather(*(advance(hosts[n % 3], "t1", 1, tag=f"/{n}") for n in range(50)))
    assert landed.count(True) == 1
    winner = landed.index(True)
    now = await hosts[1].get("t1")
    assert now is not None and (now.seq, now.token) == (1, f"token-1/{winner}".encode())
    assert await hosts[2].steps("t1", "1", -1) == [(0, b"1@0"), (1, f"1@1/{winner}".encode())]


async def test_steps_resume_after_any_seq_per_audience_losing_and_repeating_nothing(backend: Backend) -> None:
    store = await backend.open()
    for table_id in ("t1", "t2"):
        await store.create(table(table_id), step(0))
    for seq in range(1, 13):
        # Seat 1 sees only even steps, as a seat may see nothing of a step.
        audiences = AUDIENCES if seq % 2 == 0 else (SPECTATORS, "0")
        assert await store.advance("t1", seq - 1, b"token", 0, step(seq, audiences))
    assert await advance(store, "t2", 1)

    everything = await store.steps("t1", "0", -1)
    assert everything == [(seq, f"0@{seq}".encode()) for seq in range(13)]
    for after in range(-1, 14):
        assert await store.steps("t1", "0", after) == everything[after + 1 :]
    assert [seq for seq, _ in await store.steps("t1", "1", 3)] == [4, 6, 8, 10, 12]
    assert [seq for seq, _ in await store.steps("t1", "1", -1, limit=2)] == [0, 2]  # a page counts its own steps
    assert [seq for seq, _ in await store.steps("t1", "1", 2, limit=3)] == [4, 6, 8]
    assert await store.steps("t1", "7", -1) == []
    assert await store.steps("t2", SPECTATORS, -1) == [(0, b"spectators@0"), (1, b"spectators@1")]

    pages, after = [], -1
    while page := await store.steps("t1", SPECTATORS, after, limit=5):
        assert len(page) <= 5
        pages.extend(page)
        after = page[-1][0]
    assert pages == [(seq, f"spectators@{seq}".encode()) for seq in range(13)]


async def test_a_capability_is_replaced_and_the_others_stay(backend: Backend) -> None:
    store = await backend.open()
    await store.create(table(), step(0))
    await store.set_capability("t1", "0", b"d-0-new")
    await store.set_capability("t1", "2", b"d-2")
    await store.set_capability("gone", "0", b"d-x")
    now = await store.get("t1")
    assert now is not None
    assert now.capabilities == {
        "owner": b"d-owner",
        SPECTATORS: b"d-spectators",
        "0": b"d-0-new",
        "1": b"d-1",
        "2": b"d-2",
    }
    assert await store.get("gone") is None


async def test_closing_appends_the_closing_step_and_stops_every_move(backend: Backend) -> None:
    store = await backend.open()
    await store.create(table(due_ms=5_000), step(0))
    assert await advance(store, "t1", 1, due_ms=5_000)
    assert not await store.close("t1", step(1, tag="closed"))  # not past the table's seq
    assert await store.close("t1", step(2, tag="closed"))
    now = await store.get("t1")
    assert now is not None and (now.closed, now.seq, now.due_ms) == (True, 2, 0)
    assert await store.steps("t1", "0", 1) == [(2, b"0@2closed")]
    assert not await store.close("t1", step(3))
    assert not await advance(store, "t1", 3)
    assert not await store.close("gone", step(1))
    assert await store.claim_due(10_000, 1_000, "host") == []
    assert await store.steps("t1", "0", 1) == [(2, b"0@2closed")]


async def test_a_due_timer_is_claimed_once_until_its_lease_runs_out(backend: Backend) -> None:
    first, second = await backend.hosts(2)
    await first.create(table("late", due_ms=2_000), step(0))
    await first.create(table("early", due_ms=1_000), step(0))
    await first.create(table("future", due_ms=50_000), step(0))
    await first.create(table("untimed", due_ms=0), step(0))
    await first.create(table("closed", due_ms=1_000, closed=True), step(0))

    assert await first.claim_due(10_000, 5_000, "first", limit=1) == [("early", 0)]
    assert await first.claim_due(10_000, 5_000, "first") == [("late", 0)]
    assert await second.claim_due(10_000, 5_000, "second") == []
    assert await second.claim_due(14_999, 5_000, "second") == []
    assert await second.claim_due(15_000, 5_000, "second") == [("early", 0), ("late", 0)]

    # A move clears the lease: the timer it sets is claimable as soon as it is due.
    assert await advance(second, "late", 1, due_ms=16_000)
    assert await first.claim_due(15_500, 5_000, "first") == []
    assert await first.claim_due(16_000, 5_000, "first") == [("late", 1)]
    assert await second.claim_due(60_000, 5_000, "second") == [("early", 0), ("late", 1), ("future", 0)]


async def test_of_hosts_claiming_at_once_exactly_one_claims_each_table(backend: Backend) -> None:
    hosts = await backend.hosts(2)
    ids = [f"t{n:02}" for n in range(30)]
    for n, table_id in enumerate(ids):
        await hosts[0].create(table(table_id, due_ms=1_000 + n), step(0))
    claims = await asyncio.gather(*(hosts[n % 2].claim_due(5_000, 60_000, f"host-{n}", limit=4) for n in range(12)))
    claimed = [table_id for claim in claims for table_id, _ in claim]
    assert sorted(claimed) == ids
    assert await hosts[1].claim_due(5_000, 60_000, "late") == []


async def test_expiring_removes_idle_tables_with_their_log(backend: Backend) -> None:
    store = await backend.open()
    await store.create(table("old", updated_ms=1_000), step(0))
    await store.create(table("moved", updated_ms=1_000), step(0))
    await store.create(table("new", updated_ms=9_000), step(0))
    assert await advance(store, "moved", 1)
    assert await store.expire(5_000) == 1
    assert await store.get("old") is None
    assert await store.steps("old", "0", -1) == []
    for kept in ("moved", "new"):
        assert await store.get(kept) is not None
    assert await store.count() == 2
    for log in ("capabilities", "steps", "seen"):
        assert backend.sql(f"SELECT count(*) FROM {log} WHERE table_id = 'old'") == [(0,)]
    assert await store.expire(5_000) == 0


async def test_the_latest_token_is_the_table_changed_last_closed_or_not(backend: Backend) -> None:
    """What the server checks its kept sealing key against at start (tests/host/test_keys_at_start.py)."""
    store = await backend.open()
    assert await store.latest_token() is None
    await store.create(table("t1", token=b"first"), step(0))
    await store.create(table("t2", token=b"second", updated_ms=2_000), step(0))
    assert await store.latest_token() == b"second"
    assert await advance(store, "t1", 1)
    assert await store.latest_token() == b"token-1"
    assert await store.close("t1", step(2))
    assert await store.latest_token() == b"token-1"


async def test_both_stores_keep_one_schema_and_its_version(backend: Backend) -> None:
    await backend.open()
    assert backend.sql("SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]
    assert {name: backend.columns(name) for name in ("tables", "capabilities", "steps", "seen", "presence")} == {
        "tables": [
            *("table_id", "game", "token", "seq", "seat_keys", "settings", "due_ms"),
            *("lease_owner", "lease_until_ms", "closed", "created_ms", "updated_ms", "owner", "hosting"),
        ],
        "capabilities": ["table_id", "audience", "digest"],
        "steps": ["table_id", "seq", "action", "seen"],
        "seen": ["table_id", "audience", "seq", "body"],
        "presence": ["table_id", "seat", "seen_ms"],
    }


@pytest.mark.parametrize(
    "older",
    [
        pytest.param(("DROP TABLE seen", "UPDATE schema_version SET version = 0"), id="version-0-missing-a-table"),
        pytest.param(("DROP TABLE seen", "DROP TABLE schema_version"), id="no-version"),
        pytest.param(("ALTER TABLE steps DROP COLUMN seen", "UPDATE schema_version SET version = 3"), id="version-3"),
    ],
)
async def test_a_store_of_an_older_schema_migrates_forward_keeping_its_tables(
    backend: Backend, older: tuple[str, ...]
) -> None:
    store = await backend.open()
    await store.create(table(), step(0))
    await store.aclose()
    for statement in older:
        backend.sql(statement)

    store = await backend.open()
    assert backend.sql("SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]
    assert await store.get("t1") == table()
    assert await advance(store, "t1", 1)
    assert await store.steps("t1", "0", 0) == [(1, b"0@1")]


async def test_a_store_of_a_newer_schema_is_refused(backend: Backend) -> None:
    await (await backend.open()).aclose()
    backend.sql(f"UPDATE schema_version SET version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer than this host's"):
        await backend.open()


async def test_a_listener_hears_every_hosts_notifications(backend: Backend) -> None:
    speaker, hearer = await backend.hosts(2)
    heard: asyncio.Queue[tuple[str, int, str]] = asyncio.Queue()

    async def failing(table_id: str, seq: int, revoked: str, seen: object = None) -> None:
        raise RuntimeError("a listener that fails does not stop the others")

    async def listener(table_id: str, seq: int, revoked: str, seen: object = None) -> None:
        await heard.put((table_id, seq, revoked))

    await hearer.listen(failing)
    await hearer.listen(listener)
    await speaker.notify("t1", 3)
    await speaker.notify("with:colon", 12)
    await hearer.notify("t2", 1)
    await speaker.notify("t1", 3, revoked="spectators")  # a capability reissued: its streams end on every host
    assert [await asyncio.wait_for(heard.get(), HEAR_S) for _ in range(4)] == [
        ("t1", 3, ""),
        ("with:colon", 12, ""),
        ("t2", 1, ""),
        ("t1", 3, "spectators"),
    ]


async def test_reopened_the_store_keeps_every_table(backend: Backend) -> None:
    store = await backend.open()
    for n in range(5):
        await store.create(table(f"t{n}", due_ms=1_000), step(0))
        assert await advance(store, f"t{n}", 1, due_ms=2_000)
    before = [await store.get(f"t{n}") for n in range(5)]
    await store.aclose()

    store = await backend.open()
    assert await store.count() == 5
    assert [await store.get(f"t{n}") for n in range(5)] == before
    assert await store.steps("t4", "1", -1) == [(0, b"1@0"), (1, b"1@1")]


async def test_a_closed_store_refuses_calls(backend: Backend) -> None:
    store = await backend.open()
    await store.aclose()
    await store.aclose()
    with pytest.raises(StoreError, match="closed"):
        await store.get("t1")


# -- SQLite only ---------------------------------------------------------------------------------------------------


async def test_a_second_sqlite_store_on_the_same_file_is_refused_while_the_first_is_open(tmp_path: Path) -> None:
    path = tmp_path / "tables.db"
    first = SqliteStore(path)
    with pytest.raises(StoreError, match=r"another host uses this store .*use PostgreSQL for replicas"):
        SqliteStore(path)
    with pytest.raises(StoreError, match="another host uses this store"):
        open_store(f"sqlite:///{path}")
    await first.aclose()
    second = open_store(f"sqlite:///{path}")
    assert await second.count() == 0
    await second.aclose()


async def test_the_sqlite_database_is_private_in_the_folders_it_makes(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "tables.db"
    store = SqliteStore(path)
    await store.create(table(), step(0))
    for file in (path, *(Path(f"{path}{suffix}") for suffix in ("-wal", "-shm", ".lock"))):
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, file
    await store.aclose()


async def test_a_sqlite_call_waiting_on_the_disk_leaves_the_event_loop_running(tmp_path: Path) -> None:
    path = tmp_path / "tables.db"
    store = SqliteStore(path)
    await store.create(table(), step(0))
    # Another writer holds the database: the store's next write waits for it (up to its busy timeout, 5 s). Were
    # the store waiting on the event loop's thread, this test could not release the writer, and the move would
    # fail with "database is locked".
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    waiting = asyncio.ensure_future(advance(store, "t1", 1))
    await asyncio.sleep(0.1)
    assert not waiting.done()
    writer.execute("ROLLBACK")
    writer.close()
    assert await waiting
    # The calls run one at a time, in the order they were made.
    assert await asyncio.gather(*(advance(store, "t1", seq) for seq in range(2, 22))) == [True] * 20
    await store.aclose()


@pytest.mark.parametrize("sync", ["full", "normal"])
def test_a_killed_sqlite_host_loses_no_move_it_answered(tmp_path: Path, sync: str) -> None:
    path = tmp_path / "tables.db"
    host = textwrap.dedent(f"""
        import asyncio, os, signal, sys
        from mazziere.services.host.store import Step, TableRecord
        from mazziere.services.host.store.sqlite import SqliteStore

        async def main() -> None:
            store = SqliteStore({str(path)!r}, sync={sync!r})
            await store.create(TableRecord("t1", "g", b"token-0", 0, (), b"{{}}"), Step(0, b"", {{"0": b"0@0"}}))
            for seq in range(1, 4):
                assert await store.advance("t1", seq - 1, f"token-{{seq}}".encode(), 0, Step(seq, b"", {{"0": b"x"}}))
            moves = [store.advance("t1", 3, f"token-4-{{n}}".encode(), 0, Step(4, b"", {{"0": b"y"}}))
                     for n in range(5)]
            assert sorted(await asyncio.gather(*moves)) == [False] * 4 + [True]
            print("answered", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

        asyncio.run(main())
    """)
    done = subprocess.run([sys.executable, "-c", host], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert done.stdout == "answered\n"

    async def reopen() -> None:
        store = SqliteStore(path)  # the killed host's lock went with it
        kept = await store.get("t1")
        assert kept is not None and (kept.seq, kept.token) == (4, b"token-4-0")
        assert [seq for seq, _ in await store.steps("t1", "0", -1)] == [0, 1, 2, 3, 4]
        await store.aclose()

    asyncio.run(reopen())


def _held(entered: threading.Event, release: threading.Event) -> Callable[[sqlite3.Connection], str]:
    """A write that holds the store's writing thread, inside its group's transaction, until ``release``."""

    def hold(db: sqlite3.Connection) -> str:
        entered.set()
        release.wait(HEAR_S)
        return "held"

    return hold


def _failing_at_commit(db: sqlite3.Connection) -> None:
    """A write whose group cannot commit: a foreign key broken, checked only at COMMIT."""
    db.execute("PRAGMA defer_foreign_keys = ON")
    db.execute("INSERT INTO steps (table_id, seq, action) VALUES ('nowhere', 1, x'')")


async def _moves_behind_a_held_group(
    store: SqliteStore, last: Callable[[sqlite3.Connection], None] | None
) -> list[bool | BaseException]:
    """Eight moves (and ``last``) made while the group before them holds the writing thread: they wait, a read does
    not, and they form one group once it is released."""
    entered, release = threading.Event(), threading.Event()
    holding = asyncio.ensure_future(store.commits.write(_held(entered, release)))
    assert await asyncio.get_running_loop().run_in_executor(None, entered.wait, HEAR_S)
    seqs = [record.seq for record in [await store.get(f"t{n}") for n in range(8)] if record is not None]
    moves = [asyncio.ensure_future(advance(store, f"t{n}", seqs[n] + 1)) for n in range(8)]
    extra = [asyncio.ensure_future(store.commits.write(last))] if last is not None else []
    await asyncio.sleep(0.1)
    assert not any(move.done() for move in moves)  # none answered before its group commits
    kept = await store.get("t0")  # a read, on its own connection, while a write transaction is open
    assert kept is not None and kept.seq == seqs[0]
    groups = store.commits.groups
    release.set()
    assert await holding == "held"
    outcomes = await asyncio.gather(*moves, *extra, return_exceptions=True)
    assert store.commits.groups == groups + 1  # the eight moves (and the last write) shared one commit
    return outcomes[:8]


async def test_concurrent_sqlite_moves_share_one_commit_and_each_is_answered_only_after_it(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "tables.db")
    for n in range(8):
        await store.create(table(f"t{n}"), step(0))
    assert await _moves_behind_a_held_group(store, None) == [True] * 8
    # The same, with a write in the group that makes its commit fail: no move of the group was answered, nor kept.
    outcomes = await _moves_behind_a_held_group(store, _failing_at_commit)
    assert all(isinstance(outcome, StoreError) for outcome in outcomes), outcomes
    assert [record.seq for n in range(8) if (record := await store.get(f"t{n}")) is not None] == [1] * 8
    assert [seq for seq, _ in await store.steps("t3", "0", -1)] == [0, 1]
    await store.aclose()


async def test_a_failing_write_in_a_group_leaves_the_others_of_it(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "tables.db")
    await store.create(table("t1"), step(0))
    outcomes = await asyncio.gather(
        advance(store, "t1", 1), store.create(table("t1"), step(0)), advance(store, "t1", 2), return_exceptions=True
    )
    assert outcomes[0] is True and isinstance(outcomes[1], StoreError) and outcomes[2] is True
    kept = await store.get("t1")
    assert kept is not None and kept.seq == 2
    await store.aclose()


# -- PostgreSQL only -----------------------------------------------------------------------------------------------


async def test_a_dropped_listening_connection_is_made_again(postgres: Backend) -> None:
    backend = postgres
    speaker, hearer = await backend.hosts(2)
    heard: asyncio.Queue[tuple[str, int]] = asyncio.Queue()

    async def listener(table_id: str, seq: int, revoked: str, seen: object = None) -> None:
        await heard.put((table_id, seq))

    await hearer.listen(listener)
    await speaker.notify("t1", 1)
    assert await asyncio.wait_for(heard.get(), HEAR_S) == ("t1", 1)
    listening = "datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()"
    (old,) = backend.sql(f"SELECT pid FROM pg_stat_activity WHERE {listening}")
    assert backend.sql(f"SELECT pg_terminate_backend({old[0]})") == [(True,)]

    # Notify until heard: those sent while the connection is down are lost, as the store says.
    seq = 2
    while True:
        await speaker.notify("t1", seq)
        try:
            got = await asyncio.wait_for(heard.get(), 0.05)
            break
        except TimeoutError:
            seq += 1
            assert seq < HEAR_S / 0.05, "the listener did not connect again"
    assert got[0] == "t1" and got[1] >= 2
    (new,) = backend.sql(f"SELECT pid FROM pg_stat_activity WHERE {listening}")
    assert new != old


async def test_hosts_opening_together_on_a_new_database_make_its_schema_once(postgres: Backend) -> None:
    backend = postgres
    stores = [backend.make() for _ in range(4)]
    backend.opened.extend(stores)
    await asyncio.gather(*(store.open() for store in stores))
    assert backend.sql("SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]
    assert await stores[3].count() == 0


async def test_a_postgres_error_names_the_server_but_not_the_password() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens there
    store = PostgresStore(f"postgresql://host:pa55-w0rd-x@127.0.0.1:{port}/tables?connect_timeout=5")
    with pytest.raises(StoreError) as refused:
        await store.get("t1")
    assert f"127.0.0.1:{port}/tables" in str(refused.value)
    assert "pa55-w0rd-x" not in str(refused.value)
    await store.aclose()
    with pytest.raises(StoreError, match="not a connection string"):
        PostgresStore("postgresql://[broken")


def test_a_notification_of_a_later_version_is_read_for_what_this_one_knows() -> None:
    """During a rolling deploy replicas of two versions hear each other: fields after the seq this version does not
    know are kept aside and ignored."""
    assert read_notification("t_abc:12") == ("t_abc", "12", {})
    assert read_notification("t_abc:12:phase=waiting:more=1") == ("t_abc", "12", {"phase": "waiting", "more": "1"})
    assert read_notification("with:colon:12") == ("with:colon", "12", {})
    assert read_notification("t_abc:12:revoked=0") == ("t_abc", "12", {"revoked": "0"})


async def test_the_records_a_sqlite_store_keeps_are_what_its_disk_holds(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "tables.db", clock=lambda: 7_000)
    await store.create(table(), step(0))
    for seq in range(1, 4):
        assert await store.get("t1") is not None  # kept after the first read, then as each move leaves it
        assert await advance(store, "t1", seq, due_ms=seq * 100)
    assert not await advance(store, "t1", 3)  # a stale move changes nothing, kept or not
    for write in ("moves", "capability", "close"):
        if write == "capability":
            await store.set_capability("t1", "0", b"d-0-again")
        if write == "close":
            assert await store.close("t1", step(4))
        kept = await store.get("t1")
        store.records.clear()
        assert kept == await store.get("t1"), write
    await store.aclose()


def test_a_record_read_while_its_table_was_written_is_not_kept() -> None:
    records = Records(tables=2)
    old = table("t1")
    before = records.writes("t1")
    records.begin("t1")  # a write began while the read was on its way: what the read found may be old
    records.keep(old, before)
    assert records.get("t1") is None
    records.keep(old, records.writes("t1"))
    assert records.get("t1") is old
    before = records.writes("t1")
    records.keep(table("t2"), records.writes("t2"))
    records.keep(table("t3"), records.writes("t3"))  # t1 forgotten to make room
    assert records.get("t1") is None
    records.keep(old, before)  # read before a table was forgotten: not kept either
    assert records.get("t1") is None


@pytest.mark.parametrize("write", ["hosting", "capability", "move", "close"])
async def test_a_record_read_while_its_table_is_being_written_is_not_kept_past_the_write(
    tmp_path: Path, write: str
) -> None:
    """A read that runs while a write of its table waits for its commit sees the row as it was: it may answer so,
    but once the write is done the store reads the row again (it kept the old one, and a paused table went on
    showing itself playing, its turn never due)."""
    store = SqliteStore(tmp_path / "tables.db", clock=lambda: 7_000)
    await store.create(table(), step(0))
    committing, release = asyncio.Event(), asyncio.Event()
    commit = store._commit

    async def held(work: Callable[[sqlite3.Connection], object]) -> object:
        committing.set()
        await release.wait()
        return await commit(work)

    store._commit = held  # type: ignore[method-assign]
    writing = asyncio.ensure_future(
        {
            "hosting": lambda: store.set_hosting("t1", 0, '{"paused": true}', 0),
            "capability": lambda: store.set_capability("t1", "0", b"d-0-again"),
            "move": lambda: advance(store, "t1", 1, due_ms=500),
            "close": lambda: store.close("t1", step(1)),
        }[write]()
    )
    await committing.wait()
    assert (await store.get("t1")) == table()  # read meanwhile: the row as it was
    release.set()
    await writing
    store._commit = commit  # type: ignore[method-assign]
    kept = await store.get("t1")
    store.records.clear()
    assert kept == await store.get("t1") != table()
    await store.aclose()


async def _siblings(path: Path) -> tuple[SqliteStore, SqliteStore]:
    """Two stores on one SQLite file as two processes of one host have them (a socket pair between them)."""
    ends = socket.socketpair()
    return SqliteStore(path, siblings=Siblings([ends[0]])), SqliteStore(path, siblings=Siblings([ends[1]]))


async def test_sibling_sqlite_stores_hear_each_others_moves_with_what_each_audience_saw(tmp_path: Path) -> None:
    first, second = await _siblings(tmp_path / "tables.db")
    heard: asyncio.Queue[tuple[str, int, str, object]] = asyncio.Queue()

    async def listener(table_id: str, seq: int, revoked: str, seen: object = None) -> None:
        await heard.put((table_id, seq, revoked, seen))

    await first.listen(listener)
    await second.listen(listener)
    await second.create(table(), step(0))
    assert await first.get("t1") == table()  # read, and kept
    assert await advance(second, "t1", 1)
    await second.notify("t1", 1)  # the move's own notification: told here, not handed on again
    told = [await asyncio.wait_for(heard.get(), HEAR_S) for _ in range(2)]
    assert sorted(told, key=str) == sorted([("t1", 1, "", step(1).seen), ("t1", 1, "", None)], key=str)
    kept = await first.get("t1")
    assert kept is not None and kept.seq == 1  # the record kept before was forgotten with the news
    await second.set_capability("t1", "0", b"d-0-new")
    await second.notify("t1", 1, revoked="0")
    assert ("t1", 1, "0", None) in [await asyncio.wait_for(heard.get(), HEAR_S) for _ in range(2)]
    reread = await first.get("t1")
    assert reread is not None and reread.capabilities["0"] == b"d-0-new"
    await first.aclose()
    await second.aclose()


async def test_a_sibling_asked_for_a_later_seq_than_it_kept_reads_the_table_again(tmp_path: Path) -> None:
    """A move a sibling made and answered before its news came: the next move's ``expected_seq`` reads it."""
    first, second = await _siblings(tmp_path / "tables.db")
    await second.create(table(), step(0))
    assert (await first.get("t1")) == table()
    assert await advance(second, "t1", 1)  # first has not listened: it hears nothing of this
    stale = await first.get("t1")
    assert stale is not None and stale.seq == 0
    fresh = await first.get("t1", at_least=1)
    assert fresh is not None and fresh.seq == 1 and fresh.token == b"token-1"
    await first.aclose()
    await second.aclose()


async def test_a_sibling_that_expires_tables_makes_the_others_forget_what_they_kept(tmp_path: Path) -> None:
    first, second = await _siblings(tmp_path / "tables.db")
    heard: list[str] = []

    async def listener(table_id: str, seq: int, revoked: str, seen: object = None) -> None:
        heard.append(table_id)

    await first.listen(listener)
    await second.listen(listener)
    await second.create(table(updated_ms=1), step(0))
    assert await first.get("t1") is not None  # kept
    assert await second.expire(idle_before_ms=10**15) == 1
    for _ in range(1000):
        if await first.get("t1") is None:
            break
        await asyncio.sleep(0.01)
    assert await first.get("t1") is None and heard == []  # forgotten, and no listener told of a table ""
    await first.aclose()
    await second.aclose()
