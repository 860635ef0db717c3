"""The split host (``MAZZIERE_ENGINE_TARGET``): a host whose engine is another server, reached over gRPC, keeps
tables between people as the embedded one does: it opens a table, plays, pushes each move to a watcher, plays a
due turn by its timer, and closes it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from mazziere.services.app import App
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.grpc.server import ServerThread
from mazziere.services.table.sealing import Keyring
from tests.host.test_host import Hosted, cap, host_config, invites, open_trentuno, play_first, start_host, table_of
from tests.service.test_shutdown import wait_for


@pytest.fixture
def split(tmp_path: Path) -> Iterator[Hosted]:
    """A host in front of an engine server of its own (no host there)."""
    config = host_config(tmp_path)
    engine = ServerThread(App(replace(config, host_enabled=False), keyring=Keyring.parse(config.seal_keys)).grpc)
    port = engine.start()
    hosted = start_host(replace(config, engine_target=f"127.0.0.1:{port}"))
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
