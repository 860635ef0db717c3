"""``MAZZIERE_PROCESSES``: one ``mazziere serve`` on several processes sharing its ports and one SQLite store. A
Watch served by one process has every move played through another, in order and with no gap; the processes stop
together; a second server on the same store is refused."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from mazziere.services.config import Config, ConfigError
from mazziere.services.core.forking import machine_cores
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import host_pb2_grpc
from tests.host.test_host import cap, invites, open_trentuno, play_first
from tests.host.test_replicas import SERVE, _serve
from tests.service.test_shutdown import wait_for

PROCESSES = 2


class Server:
    def __init__(self, process: subprocess.Popen[bytes], port: int) -> None:
        self.process, self.port = process, port

    def children(self) -> list[int]:
        """The serving processes (the supervisor's children)."""
        found = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        return sorted(int(pid) for pid in found)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("processes")
    process, port = _serve(_env(data))
    try:
        server = Server(process, port)
        wait_for(lambda: len(server.children()) == PROCESSES)
        yield server
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def _env(data: Path) -> dict[str, str]:
    return {
        "MAZZIERE_PROCESSES": str(PROCESSES),
        "MAZZIERE_REST_PORT": "0",
        "MAZZIERE_METRICS_PORT": "0",
        "MAZZIERE_LOG_CALLS": "false",
        "MAZZIERE_WORKER_PROCESSES": "0",
        "MAZZIERE_DATA_DIR": str(data),
    }


# -- which process serves a connection, from /proc ------------------------------------------------------------


def _socket_inodes(pid: int) -> set[int]:
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(int(link[8:-1]))
    return inodes


def _connections() -> list[tuple[int, int, int]]:
    """Every TCP socket of this machine: (local port, remote port, inode)."""
    rows = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, remote, inode = fields[1], fields[2], int(fields[9])
            rows.append((int(local.rsplit(":", 1)[1], 16), int(remote.rsplit(":", 1)[1], 16), inode))
    return rows


def _connected_channel(server: Server) -> tuple[grpc.Channel, int]:
    """A new channel to ``server`` (its own connection) and the process that accepted its connection."""
    before = _socket_inodes(os.getpid())
    channel = grpc.insecure_channel(f"127.0.0.1:{server.port}", options=[("grpc.use_local_subchannel_pool", 1)])
    grpc.channel_ready_future(channel).result(timeout=10)
    rows = _connections()
    mine = _socket_inodes(os.getpid()) - before
    ports = [local for local, remote, inode in rows if inode in mine and remote == server.port]
    assert len(ports) == 1, ports
    served = [inode for local, remote, inode in rows if local == server.port and remote == ports[0]]
    owners = [pid for pid in server.children() if _socket_inodes(pid) & set(served)]
    assert len(owners) == 1, owners
    return channel, owners[0]


def _channels_on_each_process(server: Server) -> dict[int, grpc.Channel]:
    """One channel served by each process (connections are spread by the kernel: opened until each has one)."""
    found: dict[int, grpc.Channel] = {}
    for _ in range(64):
        channel, pid = _connected_channel(server)
        if pid in found:
            channel.close()
        else:
            found[pid] = channel
        if len(found) == PROCESSES:
            return found
    raise AssertionError(f"64 connections reached only {sorted(found)}")


# -- the tests ------------------------------------------------------------------------------------------------


def test_a_watch_in_one_process_gets_every_move_made_through_another(server: Server) -> None:
    channels = _channels_on_each_process(server)
    (watching, watched_channel), (playing, playing_channel) = sorted(channels.items())
    assert watching != playing
    players = host_pb2_grpc.HostServiceStub(playing_channel)
    watchers = host_pb2_grpc.HostServiceStub(watched_channel)
    opened = open_trentuno(players)
    stream: Any = watchers.Watch(
        hpb.WatchRequest(table_id=opened.table_id), metadata=cap(opened.owner.capability), timeout=20
    )
    first = next(stream)
    start = first.update.seq
    seqs = [play_first(players, opened).update.seq for _ in range(6)]
    assert seqs == list(range(start + 1, start + 7))
    seen: list[int] = []
    for answer in stream:
        if answer.HasField("update") and answer.update.seq > start:
            seen.append(answer.update.seq)
        if seen and seen[-1] >= seqs[-1]:
            break
    stream.cancel()
    assert seen == seqs  # in order, none missing, none twice
    for channel in channels.values():
        channel.close()


def test_the_processes_answer_the_same_table(server: Server) -> None:
    channels = _channels_on_each_process(server)
    stubs = [host_pb2_grpc.HostServiceStub(channel) for channel in channels.values()]
    opened = open_trentuno(stubs[0])
    owner = opened.owner.capability
    views = [
        stub.GetHostedTable(hpb.GetHostedTableRequest(table_id=opened.table_id), metadata=cap(owner)) for stub in stubs
    ]
    assert {view.update.seq for view in views} == {opened.update.seq}
    assert sorted(invites(opened)) == [0, 1, 2]
    for channel in channels.values():
        channel.close()


def test_a_second_server_on_the_same_store_is_refused(tmp_path: Path) -> None:
    first, _ = _serve(_env(tmp_path))
    try:
        second = subprocess.run(
            SERVE, env={**os.environ, **_env(tmp_path), "MAZZIERE_PORT": "0"}, capture_output=True, timeout=60
        )
        assert second.returncode == 1
        assert b"another host uses this store" in second.stdout + second.stderr
    finally:
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=30) == 0


def test_a_process_that_ends_stops_the_others_and_the_server_fails(tmp_path: Path) -> None:
    process, port = _serve(_env(tmp_path))
    server = Server(process, port)
    wait_for(lambda: len(server.children()) == PROCESSES)
    children = server.children()
    os.kill(children[0], signal.SIGKILL)
    assert process.wait(timeout=30) == 1  # the service manager starts it again
    assert not any(Path(f"/proc/{pid}").exists() and _running(pid) for pid in children)


def test_sigterm_stops_every_process_cleanly(tmp_path: Path) -> None:
    process, port = _serve(_env(tmp_path))
    server = Server(process, port)
    wait_for(lambda: len(server.children()) == PROCESSES)
    children = server.children()
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    assert not any(Path(f"/proc/{pid}").exists() and _running(pid) for pid in children)


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_the_processes_are_0_for_every_core_or_1_to_64() -> None:
    assert Config.from_env({"MAZZIERE_PROCESSES": "0"}).processes == 0
    assert Config.from_env({}).processes == 1
    for wrong in ("-1", "65"):
        with pytest.raises(ConfigError, match="MAZZIERE_PROCESSES"):
            Config.from_env({"MAZZIERE_PROCESSES": wrong})
    with pytest.raises(ConfigError, match="in memory"):
        Config.from_env({"MAZZIERE_PROCESSES": "2", "MAZZIERE_STORE_URL": "sqlite:///:memory:"})
    assert machine_cores() == len(os.sched_getaffinity(0)) >= 1
