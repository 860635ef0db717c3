"""People at hosted tables: the played seats of each table make scripted moves, a little thought before each, through
one replica and then the other (the other one when one does not answer, as a load balancer sends them). Every Play
sent is timed, and every acknowledged one kept, to find each in the final record."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import grpc
from mazziere_client import MazziereError
from mazziere_client.v1 import host_pb2 as hpb
from mazziere_client.v1 import host_pb2_grpc
from mazziere_client.v1 import table_pb2 as pb

CAPABILITY = "x-table-capability"
PREFERRED = ("STAND", "KEEP", "STOP", "PASS", "STAKE", "DEAL")
"""The moves preferred, so that each hand ends soon: the first of these the seat may make, else its first move."""
CALL_S = 15.0
"""A call's deadline: longer than a replica's grace, so a Play in flight at a SIGTERM gets its answer."""
RETRY_S = 0.1
"""The pause before trying again after a refusal that is not final (a replica away, a table that moved on)."""
AGAIN = frozenset({"STALE_SEQUENCE", "SHUTTING_DOWN", "STORE_UNAVAILABLE"})
"""Refusals a person meets in a rolling deploy and answers by looking again (the table moved on meanwhile, or the
replica or its engine is going away)."""
CUT = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED})
"""Calls cut rather than refused, looked at again too: a replica out of reach, or stopping. A call that reached a
server just as it stopped, before its handler ran, is answered CANCELLED by gRPC itself (grpc/grpc#41785)."""


@dataclass(frozen=True)
class Replica:
    """A host replica's HostService, by name."""

    name: str
    stub: Any

    @classmethod
    def at(cls, name: str, target: str) -> Replica:
        channel = grpc.insecure_channel(target, [("grpc.max_reconnect_backoff_ms", 1000)])
        return cls(name, host_pb2_grpc.HostServiceStub(channel))


@dataclass(frozen=True)
class HostedTable:
    """A table opened on a replica, with every capability its opening answered and the seats people play."""

    name: str
    opened: hpb.OpenTableResponse
    played: frozenset[int]

    @property
    def table_id(self) -> str:
        return str(self.opened.table_id)

    def invite(self, seat: int) -> str:
        return next(str(i.capability) for i in self.opened.invites if i.seat == seat)


@dataclass(frozen=True)
class Sent:
    """One Play: to which replica, when it was sent and answered, and (acknowledged) the step it made."""

    table: str
    replica: str
    sent: float
    answered: float
    seat: int
    kind: str
    seq: int | None
    """The acknowledged step's seq; None for a Play refused or cut."""


def open_table(
    replica: Replica, name: str, game: str, seats: Sequence[str], played: set[int], turn_seconds: int
) -> HostedTable:
    request = hpb.OpenTableRequest(
        game=game, seats=[hpb.HostedSeat(name=n, chips=1000) for n in seats], turn_seconds=turn_seconds
    )
    opened = replica.stub.OpenTable(request, timeout=CALL_S, wait_for_ready=True)
    return HostedTable(name, opened, frozenset(played))


def close_table(replica: Replica, table: HostedTable) -> int:
    request = hpb.CloseTableRequest(table_id=table.table_id)
    owner = [(CAPABILITY, table.opened.owner.capability)]
    answer = replica.stub.CloseTable(request, metadata=owner, timeout=CALL_S, wait_for_ready=True)
    return int(answer.seq)


class InFlight:
    """The Plays under way, by replica: a restart waits for one, so that its stop is seen to let it finish."""

    def __init__(self) -> None:
        self._plays: Counter[str] = Counter()
        self._changed = threading.Condition()

    @contextmanager
    def play(self, replica: str) -> Iterator[None]:
        with self._changed:
            self._plays[replica] += 1
            self._changed.notify_all()
        try:
            yield
        finally:
            with self._changed:
                self._plays[replica] -= 1

    def wait(self, replica: str | None, seconds: float) -> bool:
        """Until a Play is under way on ``replica`` (None: on any); False if none was within ``seconds``."""
        with self._changed:
            return self._changed.wait_for(
                lambda: (self._plays[replica] if replica else self._plays.total()) > 0, seconds
            )


class People(threading.Thread):
    """The people of one table, playing its played seats until stopped (or the table ends), each move through the
    next replica; ``playing`` cleared pauses them between moves."""

    def __init__(
        self, table: HostedTable, replicas: Sequence[Replica], in_flight: InFlight, think_s: float = 0.25
    ) -> None:
        super().__init__(name=f"people-{table.name}", daemon=True)
        self.table = table
        self.replicas = replicas
        self.in_flight = in_flight
        self.think_s = think_s
        self.sent: list[Sent] = []
        self.again: Counter[str] = Counter()
        """The refusals and cuts met and answered by looking again, by reason (or code)."""
        self.errors: list[str] = []
        self.playing = threading.Event()
        self.playing.set()
        self.paused = threading.Event()
        self.stopping = threading.Event()

    def pause(self) -> None:
        """No more moves until :meth:`resume`: returns once the move under way, if any, is over."""
        self.paused.clear()
        self.playing.clear()
        assert self.paused.wait(2 * CALL_S) or not self.is_alive(), f"{self.table.name}: a move did not end"

    def resume(self) -> None:
        self.playing.set()

    def stop(self) -> None:
        self.stopping.set()
        self.playing.set()
        self.join(timeout=2 * CALL_S)

    def run(self) -> None:
        turn = 0
        while not self.stopping.is_set():
            if not self.playing.is_set():
                self.paused.set()
                self.playing.wait()
            replica = self.replicas[turn % len(self.replicas)]
            turn += 1
            try:
                if not self._move(replica):
                    return
            except grpc.RpcError as exc:
                error = MazziereError.from_rpc_error(exc)
                if error.code not in CUT and error.reason not in AGAIN:
                    self.errors.append(f"{self.table.name} on {replica.name}: {error.code.name} {error.reason} {error}")
                    return
                self.again[error.reason or error.code.name] += 1
                self.stopping.wait(RETRY_S)

    def _move(self, replica: Replica) -> bool:
        """One move of a played seat if one is to act (else a short wait); False once the table is over."""
        table = self.table
        now = _table(replica, table.table_id, table.invite(min(table.played))).update
        if now.closed or now.is_over:
            return False
        if not now.to_act or now.to_act[0] not in table.played:
            self.stopping.wait(RETRY_S)  # a seat nobody plays: its timer plays it
            return True
        seat = now.to_act[0]
        mine = _table(replica, table.table_id, table.invite(seat)).update
        legal = {entry.kind: entry for entry in mine.update.legal_actions}
        if not legal:
            return True
        entry = legal[next((kind for kind in PREFERRED if kind in legal), mine.update.legal_actions[0].kind)]
        self.stopping.wait(self.think_s)
        action = pb.Action(seat=seat, kind=entry.kind, amount=entry.min_amount, cards=entry.cards)
        request = hpb.PlayRequest(table_id=table.table_id, expected_seq=mine.seq, action=action)
        sent = time.time()
        seq: int | None = None
        try:
            with self.in_flight.play(replica.name):
                answer = replica.stub.Play(request, metadata=[(CAPABILITY, table.invite(seat))], timeout=CALL_S)
            seq = int(answer.update.seq)
        finally:
            self.sent.append(Sent(table.name, replica.name, sent, time.time(), seat, entry.kind, seq))
        return True


def _table(replica: Replica, table_id: str, capability: str) -> hpb.GetHostedTableResponse:
    request = hpb.GetHostedTableRequest(table_id=table_id)
    answer: hpb.GetHostedTableResponse = replica.stub.GetHostedTable(
        request, metadata=[(CAPABILITY, capability)], timeout=CALL_S
    )
    return answer
