"""Watches a hosted table through ``mazziere_client`` alone while its server stops and starts again; tests/clients runs
it in the client's own venv.

It starts ``$MAZZIERE_SERVE serve`` itself (a SQLite store in a temporary data folder, sealing keys of its own, the
same port every time), opens a table, watches it as the spectators, plays moves, stops the server with SIGTERM (its
watches end as UNAVAILABLE, SHUTTING_DOWN) and with SIGKILL (a cut connection), starts it again on the same store
after each, plays on, closes the table, and prints one JSON object of what the watcher delivered. It also prints
what a refused watch raised and how a cancelled one ended.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc
from mazziere_client import Client, MazziereError
from mazziere_client.v1 import host_pb2 as hpb
from mazziere_client.v1 import host_pb2_grpc
from mazziere_client.v1 import table_pb2 as pb

CAPABILITY = "x-table-capability"
PATIENCE = 120.0
"""Seconds to wait for anything before giving up (a server's start on a loaded machine, the watcher's catch-up)."""


class Players:
    """The players' and the owner's calls, on a channel of their own that waits for the server to be back."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.stub: Any = host_pb2_grpc.HostServiceStub(channel)

    def open(self, request: hpb.OpenTableRequest) -> hpb.OpenTableResponse:
        answer: hpb.OpenTableResponse = self.stub.OpenTable(request, timeout=PATIENCE, wait_for_ready=True)
        return answer

    def table(self, table_id: str, capability: str) -> hpb.HostedUpdate:
        request = hpb.GetHostedTableRequest(table_id=table_id)
        answer: hpb.GetHostedTableResponse = self.stub.GetHostedTable(
            request, metadata=[(CAPABILITY, capability)], timeout=PATIENCE, wait_for_ready=True
        )
        return answer.update

    def play(self, request: hpb.PlayRequest, capability: str) -> hpb.HostedUpdate:
        answer: hpb.PlayResponse = self.stub.Play(
            request, metadata=[(CAPABILITY, capability)], timeout=PATIENCE, wait_for_ready=True
        )
        return answer.update

    def close(self, table_id: str, owner: str) -> int:
        request = hpb.CloseTableRequest(table_id=table_id)
        answer: hpb.CloseTableResponse = self.stub.CloseTable(
            request, metadata=[(CAPABILITY, owner)], timeout=PATIENCE, wait_for_ready=True
        )
        return answer.seq


class Server:
    """``mazziere serve`` on one port and one data folder, started again as often as needed."""

    def __init__(self, command: str, data: str) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        keys = f"k1:{base64.b64encode(os.urandom(32)).decode()}"
        self.env = {
            **os.environ,
            "MAZZIERE_HOST": "127.0.0.1",
            "MAZZIERE_PORT": str(self.port),
            "MAZZIERE_REST_PORT": "0",
            "MAZZIERE_METRICS_PORT": "0",
            "MAZZIERE_SEAL_KEYS": keys,  # the same keys every time: the stored tables open again
            "MAZZIERE_DATA_DIR": data,
            "MAZZIERE_HEARTBEAT_SECONDS": "0.5",
            "MAZZIERE_LOG_CALLS": "false",
        }
        self.command = [command, "serve"]
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        self.process = subprocess.Popen(self.command, env=self.env, stderr=subprocess.DEVNULL)
        with grpc.insecure_channel(self.target) as channel:
            grpc.channel_ready_future(channel).result(timeout=PATIENCE)

    def stop(self, how: signal.Signals) -> None:
        assert self.process is not None
        self.process.send_signal(how)
        self.process.wait(timeout=PATIENCE)
        self.process = None


class Watcher:
    """A ``Watch`` read on a thread of its own: what it delivered, each retry's code and reason, how it ended."""

    def __init__(self, client: Client, table_id: str, capability: str) -> None:
        self.watch = client.watch(table_id, capability, on_retry=self.note_retry)
        self.updates: list[dict[str, Any]] = []
        self.retries: list[str] = []
        self.ended: str = ""
        self.caught_up = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)

    def note_retry(self, error: MazziereError | None, delay: float) -> None:
        self.retries.append(f"{error.code.name}/{error.reason}" if error else "ended")

    def _read(self) -> None:
        try:
            for answer in self.watch:
                if answer.HasField("update"):
                    update = answer.update
                    with self.caught_up:
                        self.updates.append({"seq": update.seq, "snapshot": update.snapshot, "closed": update.closed})
                        self.caught_up.notify_all()
            self.ended = "done"
        except MazziereError as exc:
            self.ended = f"{exc.code.name}/{exc.reason}"
        with self.caught_up:
            self.caught_up.notify_all()

    def wait_for(self, seq: int) -> None:
        with self.caught_up:
            if not self.caught_up.wait_for(lambda: self.watch.last_seq >= seq or self.ended, timeout=PATIENCE):
                raise TimeoutError(f"the watcher did not reach seq {seq}: {self.updates}")


def play(players: Players, opened: hpb.OpenTableResponse, moves: int) -> int:
    """Plays ``moves`` moves, each the first legal move of the seat to act; the table's seq after them."""
    invites = {invite.seat: invite.capability for invite in opened.invites}
    seq = 0
    for _ in range(moves):
        seat = players.table(opened.table_id, invites[0]).to_act[0]
        mine = players.table(opened.table_id, invites[seat])
        entry = mine.update.legal_actions[0]
        action = pb.Action(seat=seat, kind=entry.kind, amount=entry.min_amount, cards=entry.cards)
        if entry.HasField("target"):
            action.target = entry.target
        move = hpb.PlayRequest(table_id=opened.table_id, expected_seq=mine.seq, action=action)
        seq = players.play(move, invites[seat]).seq
    return seq


@contextmanager
def running(server: Server) -> Iterator[None]:
    server.start()
    try:
        yield
    finally:
        if server.process is not None:
            server.stop(signal.SIGKILL)


def refused(client: Client, table_id: str, capability: str) -> str:
    try:
        for _ in client.watch(table_id, capability):
            pass
    except MazziereError as exc:
        return f"{exc.code.name}/{exc.reason}"
    return "not refused"


def cancelled(client: Client, opened: hpb.OpenTableResponse) -> str:
    """A watch cancelled from another thread while it waits for the next update ends, without an error."""
    with client.watch(opened.table_id, opened.spectators.capability) as watch:
        next(watch)  # the table as it is
        threading.Timer(0.2, watch.cancel).start()
        rest = list(watch)
    return f"ended after {len(rest)} more"


def main() -> int:
    out: dict[str, Any] = {}
    server = Server(os.environ["MAZZIERE_SERVE"], tempfile.mkdtemp(prefix="mazziere-watch-"))
    with running(server), Client(server.target) as client, grpc.insecure_channel(server.target) as channel:
        players = Players(channel)
        seats = [hpb.HostedSeat(name="Anna", chips=100), hpb.HostedSeat(name="Bruno", chips=100)]
        opened = players.open(hpb.OpenTableRequest(game="sette_e_mezzo", seats=seats, turn_seconds=3600))
        out["refused"] = {
            "wrong_capability": refused(client, opened.table_id, "not-a-capability"),
            "no_such_table": refused(client, "t_nosuchtable", opened.spectators.capability),
        }
        out["cancelled"] = cancelled(client, opened)

        watcher = Watcher(client, opened.table_id, opened.spectators.capability)
        watcher.thread.start()
        watcher.wait_for(0)
        seq = play(players, opened, 3)
        for how in (signal.SIGTERM, signal.SIGKILL):
            watcher.wait_for(seq)  # mid-stream: SIGTERM ends it as SHUTTING_DOWN, SIGKILL cuts the connection
            out[f"retries_before_{how.name}"] = len(watcher.retries)
            server.stop(how)
            server.start()
            seq = play(players, opened, 3)  # maybe before the watcher is back: it reads them from the store
        closed_at = players.close(opened.table_id, opened.owner.capability)
        watcher.thread.join(PATIENCE)
        out["played_to"], out["closed_at"] = seq, closed_at
        out["updates"], out["retries"], out["ended"] = watcher.updates, watcher.retries, watcher.ended
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
