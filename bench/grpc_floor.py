"""The host against the floor of its transport, in one run: ``bench.host_load``'s load served alternately by
``mazziere serve`` and by a bare ``grpc.aio`` server of the same HostService (this module's ``--serve``) that
keeps each table's seq and watchers in memory and does nothing else: no rules, no store, no redaction, no
admission, one message per move written to every watcher. What the host spends a move beyond the floor's is its
own; the floor's is what grpcio in Python costs any server of this protocol on this machine.

Run by hand (not in CI; all traffic to 127.0.0.1)::

    .venv/bin/python -m bench.grpc_floor                                      # 1,000 tables x 4, 2 rounds
    .venv/bin/python -m bench.grpc_floor --tables 5 --seconds 2 --rounds 1    # a smoke test

Both servers run on the event loop the host runs on (uvloop), pinned alike (``bench.server_tree.Placement``), under
the same generator (``bench.host_load.generate``). The floor's updates carry only what the generator reads (seq,
the seat to act, one legal move), so its messages are smaller than the host's (a seat's view and events).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2_grpc

from bench.goals import note
from bench.host_load import ROOT, bench_host, free_port, generate, placed, stop_server
from bench.load_report import GOAL_CPU_PER_MOVE_MS, Figures
from bench.load_run import Args, Run
from bench.server_tree import Placement
from mazziere.services.core import eventloop
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb

SERVICE = "mazziere.v1.HostService"


@dataclass
class FloorTable:
    """A table as the floor keeps it: its seats, its seq, and a queue per watcher."""

    seats: int
    seq: int = 0
    watchers: set[asyncio.Queue[bytes]] = field(default_factory=set)

    def update(self) -> hpb.HostedUpdate:
        legal = pb.SeatUpdate(legal_actions=[pb.LegalAction(kind="STAND")])
        return hpb.HostedUpdate(seq=self.seq, update=legal, to_act=[self.seq % self.seats], game="sette_e_mezzo")


class Floor:
    """OpenTable, Watch and Play of the HostService, and nothing else."""

    def __init__(self) -> None:
        self.tables: dict[str, FloorTable] = {}

    async def open_table(self, request: hpb.OpenTableRequest, context: Any) -> hpb.OpenTableResponse:
        table_id = f"t_{len(self.tables)}"
        table = self.tables[table_id] = FloorTable(len(request.seats))
        invites = [hpb.Invite(seat=s, capability=f"{table_id}-{s}") for s in range(table.seats)]
        spectators = hpb.Invite(capability=f"{table_id}-spectators")
        return hpb.OpenTableResponse(table_id=table_id, invites=invites, spectators=spectators, update=table.update())

    async def watch(self, request: hpb.WatchRequest, context: Any) -> AsyncIterator[bytes]:
        table = self.tables[request.table_id]
        news: asyncio.Queue[bytes] = asyncio.Queue()
        table.watchers.add(news)
        try:
            yield hpb.WatchResponse(update=table.update()).SerializeToString()
            while True:
                yield await news.get()
        finally:
            table.watchers.discard(news)

    async def play(self, request: hpb.PlayRequest, context: Any) -> hpb.PlayResponse:
        table = self.tables[request.table_id]
        table.seq += 1
        update = table.update()
        news = hpb.WatchResponse(update=update).SerializeToString()
        for watcher in table.watchers:
            watcher.put_nowait(news)
        return hpb.PlayResponse(update=update)

    def handler(self) -> grpc.GenericRpcHandler:
        return grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "OpenTable": grpc.unary_unary_rpc_method_handler(
                    self.open_table, hpb.OpenTableRequest.FromString, hpb.OpenTableResponse.SerializeToString
                ),
                "Watch": grpc.unary_stream_rpc_method_handler(self.watch, hpb.WatchRequest.FromString, None),
                "Play": grpc.unary_unary_rpc_method_handler(
                    self.play, hpb.PlayRequest.FromString, hpb.PlayResponse.SerializeToString
                ),
            },
        )


async def serve(port: int) -> None:
    """The floor on 127.0.0.1:``port``, with gRPC health (SERVING), until it is stopped."""
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((Floor().handler(),))
    health_pb2_grpc.add_HealthServicer_to_server(health.aio.HealthServicer(), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


def bench_floor(args: Args, placement: Placement, log: Any) -> Run:
    """The floor server (on the placement's cores) and the load generator in this process."""
    port = free_port()
    command = [*placement.server_prefix(), sys.executable, "-m", "bench.grpc_floor", "--serve", str(port)]
    server = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=log)
    try:
        return asyncio.run(generate(args, f"127.0.0.1:{port}", server.pid))
    finally:
        stop_server(server)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1000, help="tables (1 to 2,000)")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds measured a run (1 to 300)")
    parser.add_argument("--rounds", type=int, default=2, help="alternated pairs of runs (1 to 20)")
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--pinned", action="store_true", help=argparse.SUPPRESS)
    ns = parser.parse_args(argv)
    if ns.serve is not None:
        eventloop.run(serve(ns.serve))
        return 0
    if not (1 <= ns.tables <= 2000 and 1 <= ns.seconds <= 300 and 1 <= ns.rounds <= 20):
        parser.error("--tables must be 1 to 2,000, --seconds 1 to 300, --rounds 1 to 20")
    placement = placed("bench.grpc_floor", 1, ns.pinned, argv)
    if isinstance(placement, int):
        return placement
    args = Args(ns.tables, 4, ns.seconds, 2.0, 4.0, "sette_e_mezzo", 32)
    sides = {"host": bench_host, "gRPC floor": bench_floor}
    runs: dict[str, list[Run]] = {name: [] for name in sides}
    with tempfile.TemporaryFile() as log:
        for round_ in range(ns.rounds):
            for name in list(sides) if round_ % 2 == 0 else reversed(sides):
                run = sides[name](args, placement, log)
                if run.errors or run.incomplete:
                    print(f"grpc_floor: the {name} run had errors {dict(run.errors)} or incomplete pushes")
                    return 1
                runs[name].append(run)
    print(
        f"\nthe host against a bare gRPC server of its protocol: {ns.tables:,} tables x 4 watchers, a move every 2 s "
        f"per table, {ns.seconds:g} s measured, {ns.rounds} alternated pairs (medians); {placement.describe()}"
    )
    print("| server | moves/s | push p50/p99 | server CPU | CPU per move |\n|---|---:|---:|---:|---:|")
    medians: dict[str, float] = {}
    for name, side in runs.items():
        figures = [Figures.of(run) for run in side]
        medians[name] = statistics.median(f.cpu_per_move_ms for f in figures)
        rate = statistics.median(run.moves / run.args.seconds for run in side)
        p50 = statistics.median(1000 * statistics.median(run.pushes) for run in side)
        p99 = statistics.median(f.push_p99_ms for f in figures)
        cpu = statistics.median(f.cpu_share for f in figures)
        print(f"| {name} | {rate:,.1f} | {p50:.1f}/{p99:,.0f} ms | {cpu:.0f} % | {medians[name]:.2f} ms |")
    host, floor = medians["host"], medians["gRPC floor"]
    ratio = f"{host / floor:.2f} x" if floor else "n/a (the floor's CPU under the clock's tick)"
    print(note("the host's CPU per move against the bare gRPC floor's", ratio))
    share = f"{floor:.2f} ms, {100 * floor / GOAL_CPU_PER_MOVE_MS:.0f} % of the goal's {GOAL_CPU_PER_MOVE_MS} ms"
    print(note("the floor's CPU per move", share))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
