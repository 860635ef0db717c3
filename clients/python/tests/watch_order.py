"""``Watch``'s order and retries against a scripted HostService (a gRPC server in this process, no Mazziere server):
each case's streams answer what the script says, then end as it says. tests/clients runs it in the client's own venv
and checks the JSON object it prints: per case, the updates delivered, the ``after_seq`` of each stream asked for,
the retries and how the watch ended.
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status
from mazziere_client import Backoff, Client, MazziereError
from mazziere_client.v1 import host_pb2 as hpb

OPEN = "open"
"""A stream's end that never comes: it stays open until the client cancels it."""
ENDED = "ended"
"""A stream that ends without an error and without the closing update."""


def step(seq: int, *, snapshot: bool = False, closed: bool = False) -> hpb.WatchResponse:
    return hpb.WatchResponse(update=hpb.HostedUpdate(seq=seq, snapshot=snapshot, closed=closed))


def presence(seq: int) -> hpb.WatchResponse:
    return hpb.WatchResponse(presence=[hpb.Presence(seat=0, connected=True)], seq=seq)


def repeat_with_presence(seq: int) -> hpb.WatchResponse:
    return hpb.WatchResponse(update=step(seq).update, presence=presence(0).presence)


def heartbeat(seq: int) -> hpb.WatchResponse:
    return hpb.WatchResponse(heartbeat=True, seq=seq)


def status(code: int, reason: str = "", retry_seconds: float = 0.0) -> status_pb2.Status:
    """A status as the server sends it: an ErrorInfo (unless ``reason`` is empty) and a RetryInfo if asked."""
    details: list[any_pb2.Any] = []
    if reason:
        details.append(any_pb2.Any())
        details[-1].Pack(error_details_pb2.ErrorInfo(reason=reason, domain="mazziere.v1"))
    if retry_seconds:
        details.append(any_pb2.Any())
        delay = duration_pb2.Duration()
        delay.FromNanoseconds(round(retry_seconds * 1e9))
        details[-1].Pack(error_details_pb2.RetryInfo(retry_delay=delay))
    return status_pb2.Status(code=code, message=reason or "no reason", details=details)


@dataclass
class Stream:
    answers: list[hpb.WatchResponse]
    end: str | status_pb2.Status = OPEN


@dataclass
class ScriptedHost:
    """Answers each Watch with the next stream of its script; notes each request's after_seq and capability."""

    streams: list[Stream] = field(default_factory=list)
    after_seqs: list[int] = field(default_factory=list)
    capabilities: set[str] = field(default_factory=set)

    def Watch(self, request: hpb.WatchRequest, context: grpc.ServicerContext) -> Iterator[hpb.WatchResponse]:
        self.after_seqs.append(request.after_seq)
        self.capabilities |= {str(value) for key, value in context.invocation_metadata() if key == "x-table-capability"}
        stream = self.streams.pop(0) if self.streams else Stream([])
        yield from stream.answers
        if isinstance(stream.end, status_pb2.Status):
            context.abort_with_status(rpc_status.to_status(stream.end))
        while stream.end == OPEN and context.is_active():
            time.sleep(0.01)


def run(streams: list[Stream], after_seq: int = 0, cancel_after: int | None = None) -> dict[str, Any]:
    """Watches a scripted host; ``cancel_after``: cancel from another thread once that many answers came."""
    host = ScriptedHost(streams)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    handler = grpc.unary_stream_rpc_method_handler(
        host.Watch,
        request_deserializer=hpb.WatchRequest.FromString,
        response_serializer=hpb.WatchResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("mazziere.v1.HostService", {"Watch": handler}),)
    )
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    out: dict[str, Any] = {"delivered": [], "presences": 0, "retries": []}

    def note(error: MazziereError | None, delay: float) -> None:
        out["retries"].append({"error": f"{error.code.name}/{error.reason}" if error else None, "delay": delay})

    try:
        with Client(f"127.0.0.1:{port}") as client:
            watch = client.watch("t_1", "invite", after_seq, backoff=Backoff(first=0.001, longest=0.004), on_retry=note)
            try:
                for answer in watch:
                    assert not answer.heartbeat, answer
                    if answer.HasField("update"):
                        out["delivered"].append([answer.update.seq, answer.update.snapshot])
                    out["presences"] += bool(answer.presence)
                    if cancel_after is not None and len(out["delivered"]) == cancel_after:
                        threading.Timer(0.05, watch.cancel).start()  # while it waits for the next answer
                out["ended"] = "done"
            except MazziereError as exc:
                out["ended"] = f"{exc.code.name}/{exc.reason}"
            out["last_seq"] = watch.last_seq
    finally:
        server.stop(None)
    out["after_seqs"], out["capabilities"] = host.after_seqs, sorted(host.capabilities)
    return out


def backoff_bounds() -> bool:
    """Each wait is between half and all of min(longest, first * 2 ** (n - 1))."""
    rng, backoff = random.Random(1), Backoff(first=0.1, longest=1.0)
    for attempt, ceiling in enumerate((0.1, 0.2, 0.4, 0.8, 1.0, 1.0), start=1):
        if not all(ceiling / 2 <= backoff.delay(attempt, rng) <= ceiling for _ in range(50)):
            return False
    return 2.5 <= Backoff().delay(100, rng) <= 5.0


def main() -> int:
    shutting_down = status(code_pb2.UNAVAILABLE, "SHUTTING_DOWN")
    out = {
        "across_reconnects": run(
            [
                Stream([step(0, snapshot=True), step(1), step(2)], shutting_down),
                # a repeat with a presence change keeps the change; a heartbeat past the last step: this one is behind
                Stream([presence(0), repeat_with_presence(2), step(3), heartbeat(5), step(4)]),
                Stream([], ENDED),
                Stream([step(4), step(6), step(5)]),  # a step skipped: watch again
                Stream([step(5), presence(5), step(6), step(7, closed=True), step(8)]),
            ]
        ),
        "after_seq_zero": run(
            [Stream([step(0, snapshot=True)], ENDED), Stream([presence(0), step(0), step(1, closed=True)])]
        ),
        "snapshot_answered": run(
            [Stream([presence(0), step(10)], ENDED), Stream([step(8, snapshot=True), step(9), step(10, closed=True)])],
            after_seq=9,
        ),
        "refusals": {
            name: run(
                [Stream([step(3, snapshot=True)], status(code_pb2.UNAVAILABLE)), Stream([], status(code, "REFUSED"))]
            )
            for name, code in (
                ("PERMISSION_DENIED", code_pb2.PERMISSION_DENIED),
                ("NOT_FOUND", code_pb2.NOT_FOUND),
                ("INVALID_ARGUMENT", code_pb2.INVALID_ARGUMENT),
                ("FAILED_PRECONDITION", code_pb2.FAILED_PRECONDITION),
            )
        },
        "busy": run(
            [
                Stream([], status(code_pb2.RESOURCE_EXHAUSTED, "OVERLOADED", retry_seconds=0.02)),
                Stream([], status(code_pb2.RESOURCE_EXHAUSTED, "RESPONSE_TOO_LARGE")),
            ]
        ),
        "cancelled": run([Stream([step(0, snapshot=True), step(1)])], cancel_after=2),
        "backoff_bounds": backoff_bounds(),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
