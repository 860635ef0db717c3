"""The split host (``MAZZIERE_ENGINE_TARGET``): a host whose engine is another server, reached over gRPC, keeps
tables between people as the embedded one does: it opens a table, plays, pushes each move to a watcher, plays a
due turn by its timer (also one that fell due while the engine was away), and closes it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import grpc
import pytest

from mazziere.services.app import App
from mazziere.services.config import Config
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.grpc.server import ServerThread
from mazziere.services.host import host
from mazziere.services.table.sealing import Keyring
from tests.host.test_host import Hosted, cap, host_config, invites, open_trentuno, play_first, start_host, table_of
from tests.ports import free_port
from tests.service.test_shutdown import wait_for


def start_engine(config: Config) -> ServerThread:
    """An engine server (TableService, no host) on ``config``'s port."""
    engine = ServerThread(App(replace(config, host_enabled=False), keyring=Keyring.parse(config.seal_keys)).grpc)
    engine.start()
    return engine


@pytest.fixture
def split(tmp_path: Path) -> Iterator[Hosted]:
    """A host in front of an engine server of its own."""
    config = replace(host_config(tmp_path), port=free_port())
    engine = start_engine(config)
    hosted = start_host(replace(config, port=0, engine_target=f"127.0.0.1:{config.port}"))
    yield hosted
    hosted.close()
    engine.shutdown()


def test_a_split_host_opens_plays_watches_and_closes_a_table(split: Hosted) -> None:
    opened = open_trentuno(split.stub)
    watch = split.stub.Watch(
        hpb.WatchRequest(table_id=opened.table_id), metadata=cap(opened.spectators.capability), timeout=20
    )
    assert next(watch).update.snapshot
    played = play_first(split.stub, opened)
    assert next(m for m in watch if m.HasField("update")).update.seq == played.update.seq
    closed = split.stub.CloseTable(
        hpb.CloseTableRequest(table_id=opened.table_id), metadata=cap(opened.owner.capability)
    )
    assert next(m for m in watch if m.HasField("update")).update.closed
    assert closed.seq == played.update.seq + 1
    assert not [m for m in watch if m.HasField("update")]  # the stream ended at the closing update


def test_a_split_host_plays_a_due_turn(split: Hosted) -> None:
    opened = open_trentuno(split.stub, turn=1)
    first = table_of(split.stub, opened, invites(opened)[0]).update.seq
    wait_for(lambda: table_of(split.stub, opened, invites(opened)[0]).update.seq >= first + 1)


def test_a_turn_due_while_the_engine_is_away_is_played_once_it_is_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The timer claims the turn while the engine restarts, and tries again until it is back, rather than leave the
    turn to the next claim a lease later (made endless here, so only a second try can play it)."""
    monkeypatch.setattr(host, "LEASE_MS", 3_600_000)
    config = replace(host_config(tmp_path), port=free_port())
    engine = start_engine(config)
    hosted = start_host(replace(config, port=0, engine_target=f"127.0.0.1:{config.port}"))
    try:
        opened = open_trentuno(hosted.stub, turn=1)
        first = table_of(hosted.stub, opened, invites(opened)[0]).update.seq
        engine.shutdown()
        time.sleep(2)  # the turn falls due, and is claimed, while no engine answers
        engine = start_engine(config)

        def moved() -> bool:
            try:
                return table_of(hosted.stub, opened, invites(opened)[0]).update.seq > first
            except grpc.RpcError:  # the host's channel to the engine not connected again yet
                return False

        wait_for(moved, seconds=60)
    finally:
        hosted.close()
        engine.shutdown()
