"""The host on the internet: every host call has a limit per caller, the store a cap, a new table's settings are
checked, and readers never cost the players.

Each test here failed on the host before these defences (docs/security.md, "The host's threat model", names each
one's). Time never decides a test: the callers' buckets run on a clock the test holds still.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from mazziere.services.config import Config, ConfigError
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.host.settings import Settings
from tests.conftest import SUITE_SETTINGS
from tests.host.conftest import REQUIRED, Backend, unavailable
from tests.host.reads import counted_reads
from tests.host.test_host import (
    Hosted,
    cap,
    host_config,
    invites,
    open_trentuno,
    play_first,
    reason,
    refused,
    start_host,
    table_of,
)
from tests.host.test_revocation import Stream
from tests.service.test_shutdown import wait_for

LIMITED = "RESOURCE_EXHAUSTED/CALLER_LIMIT"
NOT_FOUND = "NOT_FOUND/TABLE_NOT_FOUND"


def started(tmp_path: Path, backend: Backend | None = None, **changes: Any) -> Hosted:
    """A host (on ``backend``'s store, else SQLite in ``tmp_path``) whose callers' clock, and its memory of unknown
    ids', stand still."""
    if backend is not None:
        changes["store_url"] = backend.url
    hosted = start_host(host_config(tmp_path / "data", **changes))
    hosted.app.dispatcher.admission.callers.clock = lambda: 1_000.0
    hosted.host.unknown.clock = lambda: 1_000.0  # an unknown id is remembered for as long as the test takes
    return hosted


@pytest.fixture
def hosting(tmp_path: Path) -> Iterator[Callable[..., Hosted]]:
    """Starts hosts with settings of the test's own; stops them after it."""
    made: list[Hosted] = []

    def start(backend: Backend | None = None, **changes: Any) -> Hosted:
        made.append(started(tmp_path / str(len(made)), backend, **changes))
        return made[-1]

    yield start
    for hosted in made:
        hosted.close()


def retry_after(work: Callable[[], Any]) -> tuple[str, float | None, dict[str, str]]:
    """How ``work`` was refused: its code and reason, its RetryInfo's delay, its ErrorInfo's metadata."""
    with pytest.raises(grpc.RpcError) as caught:
        work()
    status = rpc_status.from_call(caught.value)  # type: ignore[arg-type]
    delay, metadata = None, {}
    for detail in status.details if status else ():
        info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
        if detail.Unpack(retry):
            delay = retry.retry_delay.ToNanoseconds() / 1e9
        elif detail.Unpack(info):
            metadata = dict(info.metadata)
    return reason(caught.value), delay, metadata


def refusals(hosted: Hosted, cost: str, why: str) -> float:
    labels = {"cost_class": cost, "reason": why}
    return hosted.app.metrics.registry.get_sample_value("mazziere_admission_refusals_total", labels) or 0.0


def from_address(address: str) -> list[tuple[str, str]]:
    """What a trusted proxy adds for a client at ``address``."""
    return [("x-forwarded-for", f"203.0.113.99, {address}")]


def open_from(hosted: Hosted, address: str = "", turn: int = 600) -> hpb.OpenTableResponse:
    seats = [hpb.HostedSeat(name=name, chips=10) for name in ("Ada", "Bruno", "Carla")]
    request = hpb.OpenTableRequest(game="trentuno", seats=seats, turn_seconds=turn)
    return hosted.stub.OpenTable(request, metadata=from_address(address) if address else None, timeout=10)


# -- tables opened: per caller per minute, open per caller, and in the store ----------------------------------------


def test_a_caller_opens_its_tables_of_the_minute_then_is_told_when_to_come_back(hosting: Any) -> None:
    hosted = hosting(caller_tables_per_minute=3)
    for _ in range(3):
        open_from(hosted)
    code, delay, metadata = retry_after(lambda: open_from(hosted))
    assert code == LIMITED and metadata["limit"] == "tables_per_minute"
    assert delay == pytest.approx(20.0)  # one table back every 60 / 3 seconds
    assert refusals(hosted, "host", "caller_tables_per_minute") == 1


def test_callers_behind_a_trusted_proxy_are_told_apart_by_its_header(hosting: Any) -> None:
    hosted = hosting(caller_tables_per_minute=1, trusted_proxies="127.0.0.1/32")
    open_from(hosted, "198.51.100.1")
    assert retry_after(lambda: open_from(hosted, "198.51.100.1"))[0] == LIMITED
    open_from(hosted, "198.51.100.2")  # another household
    open_from(hosted, "2001:db8:1:2::10")
    assert retry_after(lambda: open_from(hosted, "2001:db8:1:2::11"))[0] == LIMITED  # the same /64
    open_from(hosted, "2001:db8:1:3::10")


def test_an_untrusted_peers_forwarding_header_is_not_believed(hosting: Any) -> None:
    hosted = hosting(caller_tables_per_minute=1)  # no trusted proxies: every caller is its socket's peer
    open_from(hosted, "198.51.100.1")
    assert retry_after(lambda: open_from(hosted, "198.51.100.2"))[0] == LIMITED


def test_a_caller_keeps_at_most_its_open_tables(backend: Backend, hosting: Any) -> None:
    hosted = hosting(backend, caller_open_tables=2, trusted_proxies="127.0.0.1/32")
    first, _ = open_from(hosted, "198.51.100.1"), open_from(hosted, "198.51.100.1")
    code, delay, metadata = retry_after(lambda: open_from(hosted, "198.51.100.1"))
    assert code == LIMITED and metadata["limit"] == "open_tables" and delay
    open_from(hosted, "198.51.100.2")  # another caller's tables are its own
    hosted.stub.CloseTable(hpb.CloseTableRequest(table_id=first.table_id), metadata=cap(first.owner.capability))
    open_from(hosted, "198.51.100.1")  # a closed table no longer counts
    assert refusals(hosted, "host", "caller_open_tables") == 1


def test_a_full_store_refuses_new_tables_and_says_so(backend: Backend, hosting: Any) -> None:
    hosted = hosting(backend, store_max_tables=2)
    opened = [open_trentuno(hosted.stub), open_trentuno(hosted.stub)]
    code, delay, metadata = retry_after(lambda: open_trentuno(hosted.stub))
    assert code == "RESOURCE_EXHAUSTED/STORE_FULL" and delay and metadata["limit"] == "store"
    assert play_first(hosted.stub, opened[0]).update.seq == 1  # the tables it keeps still play
    registry = hosted.app.metrics.registry
    assert registry.get_sample_value("mazziere_host_store_tables_limit") == 2
    assert refusals(hosted, "host", "store_full") == 1


def test_a_store_past_its_bytes_refuses_new_tables(backend: Backend, hosting: Any) -> None:
    hosted = hosting(backend, store_max_bytes=1)  # the empty schema takes more
    assert retry_after(lambda: open_trentuno(hosted.stub))[0] == "RESOURCE_EXHAUSTED/STORE_FULL"
    registry = hosted.app.metrics.registry
    assert (registry.get_sample_value("mazziere_host_store_bytes") or 0) > 1
    assert registry.get_sample_value("mazziere_host_store_bytes_limit") == 1


# -- what a table may ask for ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("turn", [-1_000_000, -1, 86_401, 2**31 - 1])
def test_a_turn_time_outside_a_second_to_a_day_is_refused(hosting: Any, turn: int) -> None:
    hosted = hosting()
    assert refused(lambda: open_from(hosted, turn=turn)) == "INVALID_ARGUMENT/INVALID_REQUEST"


def test_seat_counts_are_checked_before_any_work(hosting: Any) -> None:
    hosted = hosting()
    created: list[int] = []
    tables = hosted.host.tables
    create_table = tables.create_table

    async def counted(request: Any, call: Any) -> Any:
        created.append(len(request.seats))
        return await create_table(request, call)

    tables.create_table = counted  # type: ignore[method-assign]
    try:
        seats = [hpb.HostedSeat(name=f"p{i}", chips=5) for i in range(5_000)]
        many = hpb.OpenTableRequest(game="saltacavallo", seats=seats)
        assert refused(lambda: hosted.stub.OpenTable(many)) == "INVALID_ARGUMENT/INVALID_SEATS"
        none = hpb.OpenTableRequest(game="trentuno")
        assert refused(lambda: hosted.stub.OpenTable(none)) == "INVALID_ARGUMENT/INVALID_SEATS"
        assert created == []  # the engine never saw them
    finally:
        tables.create_table = create_table  # type: ignore[method-assign]


@pytest.mark.parametrize("setting", [{"bot_delay_ms": -1}, {"bot_delay_ms": 60_001}, {"turn_seconds": 86_401}])
def test_bot_delays_and_turn_times_of_the_settings_are_checked_at_start(setting: dict[str, int]) -> None:
    with pytest.raises(ConfigError):
        Config.from_env({f"MAZZIERE_{name.upper()}": str(value) for name, value in setting.items()})


def test_a_stored_negative_turn_time_neither_spins_nor_fills_the_lateness_histogram(hosting: Any) -> None:
    """A table stored with a turn of -1,000,000 s (before turn times were checked), its timer due long ago: its
    turn is observed late from when the timer was set, not from a due time before that, and its next turn ends a
    second after it begins."""
    hosted = hosting()
    opened = open_trentuno(hosted.stub)
    settings = Settings("trentuno", ("Ada", "Bruno", "Carla"), ("", "", ""), -1_000_000)
    with contextlib.closing(sqlite3.connect(Path(hosted.app.config.data_dir) / "tables.db")) as db, db:
        db.execute(
            "UPDATE tables SET settings = ?, due_ms = 1000 WHERE table_id = ?", (settings.encode(), opened.table_id)
        )
    registry = hosted.app.metrics.registry
    wait_for(lambda: (registry.get_sample_value("mazziere_host_moves_total", {"by": "auto"}) or 0) >= 1)
    late = registry.get_sample_value("mazziere_host_timer_lateness_seconds_sum") or 0.0
    assert late < 3_600, late  # was decades: the due time of 1970
    moved = hosted.server.run(hosted.host.store.get(opened.table_id))
    assert moved is not None and moved.due_ms > moved.updated_ms  # was 10^9 ms before it


# -- Watch places: per table and per caller -------------------------------------------------------------------------


def test_a_table_takes_its_seats_and_a_spectator_allowance_of_watchers(hosting: Any) -> None:
    hosted = hosting(table_spectators=1)
    opened = open_trentuno(hosted.stub)
    other = open_trentuno(hosted.stub)
    streams = [Stream(hosted, opened.table_id, opened.spectators.capability) for _ in range(4)]  # 3 seats + 1
    assert Stream(hosted, opened.table_id, opened.spectators.capability).ending() == "RESOURCE_EXHAUSTED/OVERLOADED"
    elsewhere = Stream(hosted, other.table_id, other.spectators.capability)  # other tables are not locked out
    assert not elsewhere.ended.is_set()
    assert refusals(hosted, "watch", "table_watchers") == 1
    for stream in [*streams, elsewhere]:
        stream.cancel()


def test_a_caller_holds_at_most_its_watch_streams(hosting: Any) -> None:
    hosted = hosting(caller_watchers=2)
    tables = [open_trentuno(hosted.stub) for _ in range(3)]
    streams = [Stream(hosted, t.table_id, t.spectators.capability) for t in tables[:2]]
    assert Stream(hosted, tables[2].table_id, tables[2].spectators.capability).ending() == LIMITED
    streams[0].cancel()
    wait_for(lambda: hosted.app.dispatcher.admission.callers.watching("ip:127.0.0.1") == 1)
    again = Stream(hosted, tables[2].table_id, tables[2].spectators.capability)
    assert not again.ended.is_set()
    assert refusals(hosted, "watch", "caller_watchers") == 1
    for stream in (streams[1], again):
        stream.cancel()


# -- plays and reads per second -------------------------------------------------------------------------------------


def test_reads_per_caller_per_second_spend_a_burst_then_are_refused(hosting: Any) -> None:
    hosted = hosting(caller_reads_per_second=2.0, caller_burst_seconds=2.0)
    opened = open_trentuno(hosted.stub)
    for _ in range(4):
        table_of(hosted.stub, opened, opened.spectators.capability)
    code, delay, metadata = retry_after(lambda: table_of(hosted.stub, opened, opened.spectators.capability))
    assert code == LIMITED and metadata["limit"] == "reads_per_second" and delay == pytest.approx(0.5)
    assert refusals(hosted, "host", "caller_rate") == 1


def test_plays_per_caller_per_second_spend_a_burst_then_are_refused(hosting: Any) -> None:
    hosted = hosting(caller_plays_per_second=1.0, caller_burst_seconds=1.0)
    opened = open_trentuno(hosted.stub)
    request = hpb.PlayRequest(table_id=opened.table_id, expected_seq=99)
    assert refused(lambda: hosted.stub.Play(request, metadata=cap(invites(opened)[0]))) != LIMITED
    code, _, metadata = retry_after(lambda: hosted.stub.Play(request, metadata=cap(invites(opened)[0])))
    assert code == LIMITED and metadata["limit"] == "plays_per_second"


# -- readers never cost the players ---------------------------------------------------------------------------------


def test_readers_share_one_snapshot_per_step_and_audience(hosting: Any) -> None:
    hosted = hosting()
    opened = open_trentuno(hosted.stub)
    views: list[Any] = []
    tables = hosted.host.tables
    get_view = tables.get_view

    async def counted(request: Any, call: Any) -> Any:
        views.append(request.seat if request.HasField("seat") else None)
        return await get_view(request, call)

    tables.get_view = counted  # type: ignore[method-assign]
    try:
        spectators = opened.spectators.capability
        with futures.ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda _: table_of(hosted.stub, opened, spectators), range(40)))
        streams = [Stream(hosted, opened.table_id, spectators) for _ in range(5)]
        assert {a.update.seq for a in answers} == {0} and views == [None], views  # one GetView for 40 + 5 readers
        table_of(hosted.stub, opened, invites(opened)[1])
        table_of(hosted.stub, opened, invites(opened)[1])
        assert views == [None, 1]
        played = play_first(hosted.stub, opened).update.seq
        assert table_of(hosted.stub, opened, spectators).update.seq == played  # a new step: a new snapshot
        for stream in streams:
            stream.cancel()
    finally:
        tables.get_view = get_view  # type: ignore[method-assign]


def test_an_unknown_table_is_refused_without_reading_the_store_again(hosting: Any) -> None:
    hosted = hosting()
    with counted_reads(hosted.host.store) as reads:
        unknown = hpb.GetHostedTableRequest(table_id="t_" + "0" * 24)
        for _ in range(5):
            assert refused(lambda: hosted.stub.GetHostedTable(unknown, metadata=cap("x"))) == NOT_FOUND
        long = hpb.GetHostedTableRequest(table_id="t" * 1000)
        assert refused(lambda: hosted.stub.GetHostedTable(long, metadata=cap("x"))) == NOT_FOUND
        assert reads == [unknown.table_id]


def test_a_caller_that_keeps_asking_for_unknown_tables_is_shed_before_any_store_read(hosting: Any) -> None:
    hosted = hosting(caller_unknown_tables_per_minute=3, trusted_proxies="127.0.0.1/32")
    opened = open_from(hosted, "198.51.100.1")
    hostile = [*from_address("198.51.100.66"), ("x-table-capability", "x")]
    for n in range(3):
        request = hpb.GetHostedTableRequest(table_id=f"t_{n:024x}")
        assert refused(lambda r=request: hosted.stub.GetHostedTable(r, metadata=hostile)) == NOT_FOUND
    with counted_reads(hosted.host.store) as reads:
        known = hpb.GetHostedTableRequest(table_id=opened.table_id)
        hostile_known = [*from_address("198.51.100.66"), ("x-table-capability", opened.spectators.capability)]
        code, delay, metadata = retry_after(lambda: hosted.stub.GetHostedTable(known, metadata=hostile_known))
        assert code == LIMITED and metadata["limit"] == "unknown_tables_per_minute" and delay == pytest.approx(20.0)
        assert reads == []  # shed before the store
        other = [*from_address("198.51.100.1"), ("x-table-capability", opened.spectators.capability)]
        assert hosted.stub.GetHostedTable(known, metadata=other).update.seq == 0  # other callers are served
    assert refusals(hosted, "host", "caller_unknown_tables") == 1


# -- the PostgreSQL cases run in `make test` ------------------------------------------------------------------------


def test_a_missing_postgresql_fails_the_run_that_requires_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """`make test` sets MAZZIERE_REQUIRE_POSTGRES=1 (kept by tests/conftest.py): there, a PostgreSQL case that cannot
    run fails the suite; a pytest run of its own skips it."""
    monkeypatch.setenv(REQUIRED, "1")
    with pytest.raises(pytest.fail.Exception, match="must run"):
        unavailable("no initdb")
    monkeypatch.delenv(REQUIRED)
    with pytest.raises(pytest.skip.Exception):
        unavailable("no initdb")
    assert REQUIRED in SUITE_SETTINGS
