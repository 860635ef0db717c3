"""Hosts that restart and hosts side by side: a SIGKILLed host goes on from its last applied move on either store,
and two host replicas on one PostgreSQL push each other's moves (even one made while the other's notification
connection was down) and fire each timer once."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest

from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import host_pb2_grpc
from tests.host.conftest import Backend, Cluster
from tests.host.test_host import Hosted, cap, host_config, invites, open_trentuno, play_first, start_host, table_of
from tests.ports import free_port
from tests.service.conftest import KEYS
from tests.service.test_shutdown import wait_for

T = TypeVar("T")


SERVE = [sys.executable, "-m", "mazziere.services.cli", "serve"]
LATE_LISTENER = [sys.executable, str(Path(__file__).with_name("late_listener.py")), "serve"]


def _serve(env: dict[str, str], command: list[str] = SERVE) -> tuple[subprocess.Popen[bytes], int]:
    """The server, once its gRPC port takes calls."""
    port = free_port()
    process = subprocess.Popen(
        command,
        env={**os.environ, **env, "MAZZIERE_PORT": str(port), "MAZZIERE_HOST": "127.0.0.1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        grpc.channel_ready_future(channel).result(timeout=30)
    return process, port


def test_a_killed_host_goes_on_from_its_last_applied_move(backend: Backend, tmp_path: Path) -> None:
    """SIGKILL mid-game, start again on the same store: every table goes on (the embedded default keeps its
    sealing key beside a SQLite store; with PostgreSQL the keys come from the settings, as in production)."""
    env = {
        "MAZZIERE_REST_PORT": "0",
        "MAZZIERE_METRICS_PORT": "0",
        "MAZZIERE_LOG_CALLS": "false",
        "MAZZIERE_DATA_DIR": str(tmp_path / "data"),
        "MAZZIERE_STORE_URL": backend.url,
        "MAZZIERE_SEAL_KEYS": "" if backend.kind == "sqlite" else KEYS,
    }
    process, port = _serve(env)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = host_pb2_grpc.HostServiceStub(channel)
            opened = open_trentuno(stub)
            played = play_first(stub, opened)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        process, port = _serve(env)
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = host_pb2_grpc.HostServiceStub(channel)
            assert table_of(stub, opened, invites(opened)[0]).update.seq == played.update.seq
            assert play_first(stub, opened).update.seq == played.update.seq + 1
    finally:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture
def replicas(postgres: Backend, tmp_path: Path) -> Iterator[tuple[Hosted, Hosted]]:
    """Two hosts on one PostgreSQL (a SQLite store serves one host process)."""
    config = host_config(tmp_path, store_url=postgres.url, host_replicas=2)
    first = start_host(config)
    second = start_host(replace(config, data_dir=str(tmp_path / "second")))
    yield first, second
    first.close()
    second.close()


def test_a_move_on_one_replica_is_pushed_to_a_watcher_on_the_other(replicas: tuple[Hosted, Hosted]) -> None:
    a, b = replicas
    opened = open_trentuno(a.stub)
    watch = b.stub.Watch(
        hpb.WatchRequest(table_id=opened.table_id), metadata=cap(opened.spectators.capability), timeout=20
    )
    assert next(watch).update.snapshot
    played = play_first(a.stub, opened)
    pushed = next(m for m in watch if m.HasField("update"))
    assert pushed.update.seq == played.update.seq
    watch.cancel()


def test_a_timer_fires_once_with_two_replicas(replicas: tuple[Hosted, Hosted]) -> None:
    a, b = replicas
    opened = open_trentuno(a.stub, turn=1)
    first = table_of(a.stub, opened, invites(opened)[0]).update.seq
    wait_for(lambda: table_of(b.stub, opened, invites(opened)[0]).update.seq >= first + 2)
    b.stub.CloseTable(hpb.CloseTableRequest(table_id=opened.table_id), metadata=cap(opened.owner.capability))
    time.sleep(0.5)  # a timer claimed before the close finds the table closed and plays nothing
    counts = [
        h.app.metrics.registry.get_sample_value("mazziere_host_timer_lateness_seconds_count") or 0.0 for h in (a, b)
    ]
    moves = [
        h.app.metrics.registry.get_sample_value("mazziere_host_moves_total", {"by": "auto"}) or 0.0 for h in (a, b)
    ]
    assert sum(counts) == sum(moves) >= 2, (counts, moves)  # each due turn claimed and played once


# -- no push lost to a reconnect -------------------------------------------------------------------------------------


def _watching(stub: Any, opened: hpb.OpenTableResponse) -> tuple[Any, list[int]]:
    """A spectator's Watch through ``stub`` (a replica's), its updates' seqs gathered by a thread."""
    watch = stub.Watch(hpb.WatchRequest(table_id=opened.table_id), metadata=cap(opened.spectators.capability))
    seqs: list[int] = []

    def gather() -> None:
        with contextlib.suppress(grpc.RpcError):
            for message in watch:
                if message.HasField("update"):
                    seqs.append(message.update.seq)

    threading.Thread(target=gather, daemon=True).start()
    wait_for(lambda: bool(seqs))
    return watch, seqs


def test_a_move_made_while_a_replica_listens_again_reaches_its_watchers(
    replicas: tuple[Hosted, Hosted], postgres: Backend
) -> None:
    """The other replica's notification connection is cut just before a move: the move still reaches the
    watchers there once it listens again (it reads the watched tables' latest seqs back)."""
    a, b = replicas
    opened = open_trentuno(a.stub)
    watch, seqs = _watching(b.stub, opened)
    listening = "query LIKE 'LISTEN%' AND pid <> pg_backend_pid()"
    assert postgres.sql(f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE {listening}")[0][0]
    played = play_first(a.stub, opened)
    wait_for(lambda: played.update.seq in seqs, seconds=RECONNECT_S)
    watch.cancel()


def test_a_move_made_after_postgresql_came_back_reaches_every_replicas_watchers(
    replicas: tuple[Hosted, Hosted], postgres_cluster: Cluster
) -> None:
    """PostgreSQL stopped for a few seconds, then back: the first move after it reaches the other replica's
    watchers, though that replica was still waiting to listen again when the move was made."""
    a, b = replicas
    opened = open_trentuno(a.stub)
    watch, seqs = _watching(b.stub, opened)
    postgres_cluster.stop()
    time.sleep(3)  # the replicas' retries back off meanwhile
    postgres_cluster.start()
    played = _retried(lambda: play_first(a.stub, opened))
    wait_for(lambda: played.update.seq in seqs, seconds=RECONNECT_S)
    watch.cancel()


def test_a_replica_takes_no_call_before_it_listens(replicas: tuple[Hosted, Hosted], postgres: Backend) -> None:
    """A replica starting beside another whose store is slow to listen: a Watch taken on it as soon as it takes
    calls, and a move made on the other replica right after, reach that watcher (taken before it listened, the
    watch would never hear of the move)."""
    a, _ = replicas
    opened = open_trentuno(a.stub)
    env = {"MAZZIERE_STORE_URL": postgres.url, "MAZZIERE_HOST_REPLICAS": "2", "MAZZIERE_SEAL_KEYS": KEYS}
    env |= {"MAZZIERE_REST_PORT": "0", "MAZZIERE_METRICS_PORT": "0", "MAZZIERE_LOG_CALLS": "false"}
    process, port = _serve(env, LATE_LISTENER)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            watch, seqs = _watching(host_pb2_grpc.HostServiceStub(channel), opened)
            played = play_first(a.stub, opened)
            wait_for(lambda: played.update.seq in seqs, seconds=RECONNECT_S)
            watch.cancel()
    finally:
        process.kill()
        process.wait(timeout=10)


RECONNECT_S = 15.0
"""Far longer than a replica takes to listen again (its retry backs off to 5 s at most)."""


def _retried(work: Callable[[], T]) -> T:
    """``work``, tried again while the store is still coming back (UNAVAILABLE)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            return work()
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
