"""A hosted table's updates that come back by themselves: ``Watch`` follows ``HostService.Watch`` across cut
connections and server restarts, resuming from the last update it delivered, so its reader sees every update once,
in order.

It reconnects, after a jittered exponential backoff (``Backoff``), when the stream fails as UNAVAILABLE (a server
shutting down, ``SHUTTING_DOWN``, or one that cannot be reached), breaks off in any way that is not a refusal (a
cut connection), or ends without the table's closing update; and when a heartbeat or a presence change says the
table is at a later ``seq`` than the last update delivered (this stream fell behind). A refusal ends it by raising
``MazziereError`` (PERMISSION_DENIED: a wrong or revoked capability; NOT_FOUND: no such table; INVALID_ARGUMENT,
FAILED_PRECONDITION, ...); the table's closing update ends it once delivered.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol, Self, cast

import grpc

from mazziere_client.errors import MazziereError
from mazziere_client.v1 import host_pb2 as hpb
from mazziere_client.v1 import host_pb2_grpc

CAPABILITY_HEADER = "x-table-capability"

# Refusals: the same request would be refused again. RESOURCE_EXHAUSTED is one too, but for a server at its limit.
REFUSALS = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.OUT_OF_RANGE,
        grpc.StatusCode.UNIMPLEMENTED,
        grpc.StatusCode.UNAUTHENTICATED,
    }
)
BUSY_REASONS = frozenset({"OVERLOADED", "QUOTA_EXCEEDED"})


def is_refusal(error: MazziereError) -> bool:
    """Whether watching again could not help: a refusal, not a cut connection or a server going away."""
    if error.code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return error.reason not in BUSY_REASONS
    return error.code in REFUSALS


@dataclass(frozen=True)
class Backoff:
    """How long to wait before watching again: the n-th attempt in a row waits a random time between half and all of
    ``min(longest, first * 2 ** (n - 1))`` seconds (0.125-0.25 s, 0.25-0.5 s, ... up to 2.5-5 s by default), and at
    least a busy server's ``retry_delay``. Any answer received starts the count again."""

    first: float = 0.25
    longest: float = 5.0

    def delay(self, attempt: int, rng: random.Random) -> float:
        ceiling = min(self.longest, self.first * 2 ** min(attempt - 1, 32))
        return rng.uniform(ceiling / 2, ceiling)


class WatchCall(Protocol):
    """A Watch stream as grpcio returns it: its answers, and a way to stop it."""

    def __iter__(self) -> Iterator[hpb.WatchResponse]: ...

    def __next__(self) -> hpb.WatchResponse: ...

    def cancel(self) -> bool: ...


class HostServiceStub(Protocol):
    """The typed face of the generated ``host_pb2_grpc.HostServiceStub`` (untyped as grpcio-tools writes it)."""

    def Watch(self, request: hpb.WatchRequest, *, metadata: list[tuple[str, str]]) -> WatchCall: ...


def host_stub(channel: grpc.Channel) -> HostServiceStub:
    make_stub: Callable[[grpc.Channel], object] = host_pb2_grpc.HostServiceStub
    return cast(HostServiceStub, make_stub(channel))


class UpdateOrder:
    """Which answers of a stream to hand on, given the last ``seq`` delivered: each update once, in order.

    ``take`` returns the answer to deliver (``None``: nothing new in it; a presence change whose update was a
    repeat loses the update) and whether to watch again from ``last`` (the stream skipped a step, or says the table
    is further on than this stream has come)."""

    def __init__(self, after_seq: int) -> None:
        self.last = after_seq
        self.delivered = False
        self.closed = False

    def resume_from(self) -> int:
        """The ``after_seq`` to watch with: the caller's until an update is delivered, then the last update's seq.
        After seq 0 it is -1 (every step from the opening, seq 0 then dropped as a repeat), since ``after_seq`` 0
        would answer the table as it is now and skip the steps between."""
        return -1 if self.delivered and self.last == 0 else self.last

    def take(self, answer: hpb.WatchResponse) -> tuple[hpb.WatchResponse | None, bool]:
        if answer.HasField("update"):
            update = answer.update
            if update.snapshot or update.seq == self.last + 1:
                self.last, self.closed, self.delivered = update.seq, update.closed, True
                return answer, False
            repeat = update.seq <= self.last
            if answer.presence and repeat:
                return hpb.WatchResponse(presence=answer.presence, seq=answer.seq), False
            return None, not repeat  # a repeat is dropped; a step skipped means watching again from the last one
        behind = answer.seq > 0 and answer.seq > self.last
        return (answer if answer.presence else None), behind


class Watch(Iterator[hpb.WatchResponse]):
    """Every ``WatchResponse`` of a hosted table that carries an update or a presence change, across reconnections:
    each update once, in order (heartbeats are kept here). Iterate over it; it ends after the table's closing update
    (``update.closed``) or when cancelled, and raises ``MazziereError`` on a refusal.

    ``after_seq`` is ``WatchRequest.after_seq``: 0 starts with the table as it is (a snapshot), -1 with every step
    from the opening, N with the step after N. ``last_seq`` is the last update's seq delivered so far (to watch again
    later from there). ``cancel()`` stops it from any thread, as leaving a ``with`` block does. ``on_retry(error,
    delay)`` is told each time it is about to watch again: the error (``None`` for a stream that ended or fell
    behind) and the seconds it waits first. ``reconnects`` counts them.
    """

    def __init__(
        self,
        channel: grpc.Channel,
        table_id: str,
        capability: str,
        after_seq: int = 0,
        *,
        backoff: Backoff | None = None,
        on_retry: Callable[[MazziereError | None, float], None] | None = None,
    ) -> None:
        self.table_id = table_id
        self.reconnects = 0
        self._stub = host_stub(channel)
        self._metadata = [(CAPABILITY_HEADER, capability)]
        self._order = UpdateOrder(after_seq)
        self._backoff = backoff or Backoff()
        self._on_retry = on_retry
        self._rng = random.Random()
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._call: WatchCall | None = None
        self._answers = self._follow()

    @property
    def last_seq(self) -> int:
        return self._order.last

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> hpb.WatchResponse:
        return next(self._answers)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.cancel()

    def cancel(self) -> None:
        """Stops watching: the iteration ends (at once, even while it waits for an answer or to reconnect)."""
        self._stopped.set()
        with self._lock:
            call = self._call
        if call is not None:
            call.cancel()

    def _follow(self) -> Iterator[hpb.WatchResponse]:
        attempt = 0
        while not self._stopped.is_set():
            error: MazziereError | None = None
            call = self._open()
            try:
                for answer in call:
                    attempt = 0
                    delivered, behind = self._order.take(answer)
                    if delivered is not None:
                        yield delivered
                    if self._order.closed:
                        return
                    if behind:
                        break
            except grpc.RpcError as exc:
                if self._stopped.is_set():
                    return
                error = MazziereError.from_rpc_error(exc)
                if is_refusal(error):
                    raise error from exc
            finally:
                call.cancel()
                with self._lock:
                    self._call = None
            attempt += 1
            delay = max(self._backoff.delay(attempt, self._rng), (error and error.retry_delay) or 0.0)
            self.reconnects += 1
            if self._on_retry is not None:
                self._on_retry(error, delay)
            if self._stopped.wait(delay):
                return

    def _open(self) -> WatchCall:
        request = hpb.WatchRequest(table_id=self.table_id, after_seq=self._order.resume_from())
        call = self._stub.Watch(request, metadata=self._metadata)
        with self._lock:
            self._call = call
        if self._stopped.is_set():  # cancelled while it opened: cancel() did not see this call
            call.cancel()
        return call
