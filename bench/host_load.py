"""The host under load: N tables x M watchers, a move every 2 s per table; beside it, in the same run, a minimal
Colyseus room server under the same load (the reference: an upper bound for a room server).

Run by hand (not in CI; all traffic to 127.0.0.1, every loop bounded in count and time)::

    .venv/bin/python -m bench.host_load                                       # the goal: 1,000 tables x 4 watchers
    .venv/bin/python -m bench.host_load --tables 250 --seconds 30
    .venv/bin/python -m bench.host_load --tables 5 --watchers 2 --seconds 3   # a smoke test
    .venv/bin/python -m bench.host_load --tables 300 --timers 60              # with 60 tables of bots on timers
    .venv/bin/python -m bench.host_load --tables 300 --noise                  # a spinner and an fsyncing neighbour
    .venv/bin/python -m bench.host_load --processes 2                         # MAZZIERE_PROCESSES=2
    .venv/bin/python -m bench.host_load --soak 600 --no-colyseus              # memory per watcher over 10 minutes
    .venv/bin/python -m bench.host_load --tables 300 --soak 180 --connection-age 60   # streams renewed every 60-90 s

It starts ``mazziere serve`` (the embedded default: gRPC, the host, a SQLite store in a temporary data directory;
REST and metrics off, call logs off, a turn time of a day so no timer plays; ``MAZZIERE_PROCESSES`` from
``--processes``, 1 by default) pinned to CPU 0 with ``taskset -c 0`` (to CPUs 0 to N-1 with ``--processes N``),
and runs the load generator, one ``grpc.aio`` process, pinned to the next CPU (nothing is pinned where ``taskset``
or that many CPUs are missing, and it says so). The generator:

- opens ``--tables`` tables (Sette e mezzo by default, ``--game trentuno`` too), each with ``min(--watchers, 4)``
  person seats and no bot, 16 OpenTable calls in flight;
- opens ``--watchers`` Watch streams per table, one per seat with that seat's invite and the rest with the
  spectators' invite, spread over ``--connections`` HTTP/2 connections, and waits until every one has its first
  answer;
- then, on each table, every ``--interval`` seconds (table i starts at i/N of an interval, so the moves are spread
  evenly), plays for the seat to act the first legal move that seat's own Watch update lists, with that seat's
  invite, at that update's ``seq`` (the DEAL when a hand has ended). A table whose last move has not reached the
  seat to act's watcher yet waits for it; a move more than an interval late skips its missed turns (counted).

With ``--timers N`` it also opens N timer tables: one person who never plays (a turn of ``--timer-turn`` seconds,
so the host plays it when it runs out) and three ``--timer-bot`` bots, each watched by a spectator; every step of
those is a due turn the host plays, and the time from its due moment (the previous update's
``turn_ends_unix_ms``) to the spectator having it is its timer lateness.

For each move it keeps the time just before its Play call is sent, the Play call's latency, and the time the last
of the table's watchers received the step (push). After ``--warmup`` seconds it measures for ``--seconds``: moves
whose Play was sent in that window count. The server is measured as its whole process tree (``bench.server_tree``:
its pid and every descendant, worker processes included, from ``/proc``): its CPU share over the window, its CPU
per move, and its memory per watcher (the tree's memory at the window's end less its idle memory, once it answered
and before any table, over the watchers). The generator's CPU is printed beside, so a generator near 100 % shows it,
not the server, was the limit.

Then the same load runs on the Colyseus room server of ``bench/colyseus`` (``bench.colyseus_load``; its server on
the host's first core, its Node generator on the generator's core), when its packages are installed
(``--colyseus`` insists, ``--no-colyseus`` skips it). ``--noise`` runs, beside each server, a spinner on each of its
cores and a writer fsyncing a file in its data directory (``bench.noise``). ``--soak SECONDS`` measures that long and
prints the memory per watcher sampled over it; ``--connection-age SECONDS`` sets the server's
``MAZZIERE_MAX_CONNECTION_AGE_MS`` (its grace left at the default), so a soak shows its watchers renewed.

It prints both sides in one table (``bench.load_report``), the goal's lines, each PASS or MISS (1,000 tables with 4
watchers each, a move every 2 s on each, the server on one core: push p99 at most 100 ms, the server tree at most
50 % of the core, at most 0.7 ms of CPU per move), and the Colyseus ratios as a reference.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench import colyseus_load
from bench.load_report import GOAL_INTERVAL, GOAL_TABLES, GOAL_WATCHERS, MAX_SEATS, report
from bench.load_run import Args, Run
from bench.noise import neighbours
from bench.server_tree import Placement, ServerTree, Window
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import host_pb2_grpc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent
CAPABILITY = "x-table-capability"
TURN_SECONDS = 86_400
"""A person's turn time at every table: a day, so no timer plays a turn during a run."""
OPEN_IN_FLIGHT, CONNECT_IN_FLIGHT = 16, 32
CALL_TIMEOUT = 30.0
"""Seconds any one call may take."""
START_SECONDS = 60.0
"""Seconds the server may take to start."""
READY_SECONDS = 30.0
"""Seconds a table waits for its last move to reach the seat to act's watcher before it stops playing."""
DRAIN_SECONDS = 5.0
"""Seconds after the last move for the pushes still on their way."""
RECONNECTS = 3
"""Times one watcher opens its stream again (from the last seq it received) after the stream ended."""
NOISE_MARGIN = 600.0
"""Seconds the noise may run beyond the warm-up and the window (while the tables open and the watchers connect)."""
SOAK_SAMPLES, SOAK_SAMPLE_MIN = 20, 5.0
"""A soak samples the server tree's memory about this many times, at most once every this many seconds."""


class Table:
    """One hosted table as the generator follows it: its invites, what each seat's watcher last received, and the
    moves whose step has not reached every watcher yet."""

    def __init__(self, index: int, opened: hpb.OpenTableResponse, watchers: int, stub: Any) -> None:
        self.index, self.table_id, self.stub = index, opened.table_id, stub
        invites = {invite.seat: invite.capability for invite in opened.invites}
        self.seats = len(invites)
        self.metadata = {seat: ((CAPABILITY, capability),) for seat, capability in invites.items()}
        spectators = ((CAPABILITY, opened.spectators.capability),)
        self.watch_metadata = [self.metadata[w] if w < self.seats else spectators for w in range(watchers)]
        self.watchers = watchers
        self.latest: dict[int, hpb.HostedUpdate] = {}
        """By seat: the last update that seat's watcher received."""
        self.seq = opened.update.seq
        self.to_act: list[int] = list(opened.update.to_act)
        self.over = opened.update.is_over
        self.sent: dict[int, float] = {}
        """By the seq a move makes: the time just before its Play call was sent."""
        self.arrived: Counter[int] = Counter()
        """By seq: the watchers that received that step."""
        self.connected = 0
        self.changed = asyncio.Event()

    def advance(self, update: hpb.HostedUpdate) -> None:
        if update.seq > self.seq:
            self.seq, self.to_act, self.over = update.seq, list(update.to_act), update.is_over

    def ready(self) -> hpb.HostedUpdate | None:
        """The update of the seat to act, if its watcher has the table's latest step and it lists a legal move."""
        if self.over or not self.to_act:
            return None
        update = self.latest.get(self.to_act[0])
        if update is None or update.seq != self.seq or not update.update.legal_actions:
            return None
        return update


# -- the load generator ---------------------------------------------------------------------------------------------


async def _watch(run: Run, table: Table, w: int, gate: asyncio.Semaphore) -> None:
    """One watcher: its stream from the start, and again from its last seq whenever it ends before the table's
    closing update: after its lifetime, as the project's clients do (counted renewed), or on an error (a few times
    at most)."""
    seat = w if w < table.seats else None
    after, counted, gated, failures = 0, False, True, 0
    await gate.acquire()  # released at the first answer: a few streams connect at a time
    try:
        while failures <= RECONNECTS:
            request = hpb.WatchRequest(table_id=table.table_id, after_seq=after)
            call = table.stub.Watch(request, metadata=table.watch_metadata[w])
            answered = False
            try:
                async for answer in call:
                    if not answered:
                        answered = True
                        if gated:
                            gated = False
                            gate.release()
                        if not counted:
                            counted = True
                            _arrive(run, table)
                    if not answer.HasField("update"):
                        continue
                    _received(run, table, seat, answer.update)
                    after = answer.update.seq
                    if answer.update.closed:
                        return
                if answered:  # the stream's lifetime ended it: resume it
                    run.renewed += 1
                    continue
            except grpc.aio.AioRpcError as exc:
                run.errors[f"Watch {_outcome(exc)}"] += 1
            if gated:
                gated = False
                gate.release()
            failures += 1
            if failures <= RECONNECTS:
                run.reconnects += 1
    finally:
        if gated:
            gate.release()
        if counted:
            table.connected -= 1
            run.connected -= 1


def _outcome(exc: grpc.aio.AioRpcError) -> str:
    """The status code's name and the ErrorInfo's reason, if any."""
    reason = ""
    for name, value in exc.trailing_metadata() or ():
        if name == "grpc-status-details-bin" and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    reason = info.reason
    return f"{exc.code().name} {reason}".strip()


def _arrive(run: Run, table: Table) -> None:
    table.connected += 1
    run.connected += 1
    if table.connected == table.watchers:
        run.connected_tables += 1
        if run.connected_tables == run.args.tables:
            run.all_connected.set()


def _received(run: Run, table: Table, seat: int | None, update: hpb.HostedUpdate) -> None:
    now = time.perf_counter()
    if seat is not None:
        table.latest[seat] = update
    table.advance(update)
    sent = table.sent.get(update.seq)
    if sent is not None:
        table.arrived[update.seq] += 1
        if table.arrived[update.seq] == table.watchers:
            del table.sent[update.seq], table.arrived[update.seq]
            if run.measured(sent):
                run.pushes.append(now - sent)
    table.changed.set()


async def _play(run: Run, table: Table) -> None:
    """The table's moves, one every interval from its own offset, until the window ends."""
    interval = run.args.interval
    due = run.start + interval * table.index / run.args.tables
    end = run.window[1]
    while due < end:
        wait = due - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        ready_by = time.perf_counter() + READY_SECONDS
        while (update := table.ready()) is None:
            if table.over or time.perf_counter() > ready_by:
                run.stopped += 1
                return
            table.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(table.changed.wait(), READY_SECONDS)
        seat = table.to_act[0]
        entry = update.update.legal_actions[0]
        action = pb.Action(seat=seat, kind=entry.kind, amount=entry.min_amount, cards=entry.cards)
        if entry.HasField("target"):
            action.target = entry.target
        request = hpb.PlayRequest(table_id=table.table_id, expected_seq=update.seq, action=action)
        sent = time.perf_counter()
        table.sent[update.seq + 1] = sent
        try:
            answer = await table.stub.Play(request, metadata=table.metadata[seat], timeout=CALL_TIMEOUT)
        except grpc.aio.AioRpcError as exc:
            run.errors[f"Play {_outcome(exc)}"] += 1
            table.sent.pop(update.seq + 1, None)
            table.arrived.pop(update.seq + 1, None)
        else:
            if run.measured(sent):
                run.plays.append(time.perf_counter() - sent)
                run.moves += 1
            table.advance(answer.update)
        due += interval
        late = time.perf_counter() - due
        if late > interval:
            missed = int(late // interval)
            due += missed * interval
            if run.measured(due):
                run.skipped += missed


def _own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _sample(run: Run, window: Window, tables: Sequence[Table]) -> None:
    await asyncio.sleep(max(0.0, run.window[0] - time.perf_counter()))
    wall0, own0 = time.perf_counter(), _own_cpu_seconds()
    window.begin()
    await asyncio.sleep(max(0.0, run.window[1] - time.perf_counter()))
    window.end()
    run.own_cpu = (_own_cpu_seconds() - own0) / (time.perf_counter() - wall0)
    run.connected_at_end = run.connected
    run.full_at_end = sum(t.connected == t.watchers for t in tables)


async def _open(stub: Any, args: Args, seats: int, index: int, gate: asyncio.Semaphore) -> hpb.OpenTableResponse:
    request = hpb.OpenTableRequest(
        game=args.game,
        seats=[hpb.HostedSeat(name=f"t{index}p{s}", chips=1000) for s in range(seats)],
        turn_seconds=TURN_SECONDS,
    )
    async with gate:
        answer: hpb.OpenTableResponse = await stub.OpenTable(request, timeout=CALL_TIMEOUT)
        return answer


async def _timer_table(run: Run, stub: Any, index: int, gate: asyncio.Semaphore) -> None:
    """A table of one absent person and bots, every step of it a due turn; its spectator measures the lateness."""
    args = run.args
    seats = [hpb.HostedSeat(name=f"timer{index}", chips=1000)]
    seats += [hpb.HostedSeat(name=f"timer{index}bot{b}", chips=1000, bot=args.timer_bot) for b in range(3)]
    request = hpb.OpenTableRequest(game=args.game, seats=seats, turn_seconds=max(1, round(args.timer_turn)))
    async with gate:
        opened: hpb.OpenTableResponse = await stub.OpenTable(request, timeout=CALL_TIMEOUT)
    due, seq = opened.update.turn_ends_unix_ms, opened.update.seq
    call = stub.Watch(
        hpb.WatchRequest(table_id=opened.table_id), metadata=((CAPABILITY, opened.spectators.capability),)
    )
    try:
        async for answer in call:
            if not answer.HasField("update") or answer.update.seq <= seq:
                continue
            if due and run.measured(time.perf_counter()):
                run.lateness.append(max(0.0, time.time() - due / 1000))
            due, seq = answer.update.turn_ends_unix_ms, answer.update.seq
    except grpc.aio.AioRpcError as exc:
        run.errors[f"timer Watch {_outcome(exc)}"] += 1


async def _ready(target: str) -> None:
    """Waits until the server answers its health check SERVING."""
    deadline = time.monotonic() + START_SECONDS
    async with grpc.aio.insecure_channel(target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                answer = await health.Check(health_pb2.HealthCheckRequest(service=""), timeout=2)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                if time.monotonic() > deadline:
                    raise
            await asyncio.sleep(0.2)


async def generate(args: Args, target: str, server_pid: int) -> Run:
    """Opens the tables, connects their watchers, plays for the warm-up and the window, and drains the pushes."""
    run = Run(args, tree=Window(ServerTree(server_pid), args.soak_every))
    await _ready(target)
    assert run.tree is not None
    await run.tree.idle()
    options = [("grpc.use_local_subchannel_pool", 1)]  # each channel its own connection
    channels = [grpc.aio.insecure_channel(target, options=options) for _ in range(min(args.connections, args.tables))]
    stubs = [host_pb2_grpc.HostServiceStub(channel) for channel in channels]
    seats = max(2, min(args.watchers, MAX_SEATS))
    tasks: list[asyncio.Task[None]] = []
    try:
        began = time.perf_counter()
        gate = asyncio.Semaphore(OPEN_IN_FLIGHT)
        opened = await asyncio.gather(*(_open(stubs[i % len(stubs)], args, seats, i, gate) for i in range(args.tables)))
        tables = [Table(i, o, args.watchers, stubs[i % len(stubs)]) for i, o in enumerate(opened)]
        run.opened_seconds = time.perf_counter() - began
        began = time.perf_counter()
        gate = asyncio.Semaphore(CONNECT_IN_FLIGHT)
        tasks = [asyncio.create_task(_watch(run, t, w, gate)) for t in tables for w in range(args.watchers)]
        await asyncio.wait_for(run.all_connected.wait(), CALL_TIMEOUT + args.tables * args.watchers * 0.05)
        run.connect_seconds = time.perf_counter() - began
        run.start = time.perf_counter() + 0.5
        run.window = (run.start + args.warmup, run.start + args.warmup + args.seconds)
        gate = asyncio.Semaphore(OPEN_IN_FLIGHT)
        tasks += [asyncio.create_task(_timer_table(run, stubs[i % len(stubs)], i, gate)) for i in range(args.timers)]
        sampler = asyncio.create_task(_sample(run, run.tree, tables))
        await asyncio.gather(*(_play(run, t) for t in tables), sampler)
        drained_by = time.perf_counter() + DRAIN_SECONDS
        while time.perf_counter() < drained_by and any(run.measured(s) for t in tables for s in t.sent.values()):
            await asyncio.sleep(0.1)
        run.incomplete = sum(run.measured(s) for t in tables for s in t.sent.values())
        return run
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for channel in channels:
            await channel.close()


# -- the server -----------------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(port: int, data: str, args: Args) -> dict[str, str]:
    """The embedded default's settings (whatever the caller's ``MAZZIERE_*``), on 127.0.0.1: REST, metrics and
    call logs off, room for every watcher, no timer due during the run, and the one caller it is (the generator)
    the room of all the players it stands for."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("MAZZIERE_")}
    env |= {
        "MAZZIERE_HOST": "127.0.0.1",
        "MAZZIERE_PORT": str(port),
        "MAZZIERE_REST_PORT": "0",
        "MAZZIERE_METRICS_PORT": "0",
        "MAZZIERE_LOG_CALLS": "false",
        "MAZZIERE_LOG_LEVEL": "warning",
        "MAZZIERE_DATA_DIR": data,
        "MAZZIERE_SEAL_KEYS": f"bench:{base64.b64encode(os.urandom(32)).decode()}",
        "MAZZIERE_TURN_SECONDS": str(TURN_SECONDS),
        "MAZZIERE_WATCHERS": str(max(10_000, 2 * args.tables * args.watchers)),
        # One generator stands in for every player: the limits a caller has (docs/security.md) would stop it.
        "MAZZIERE_CALLER_TABLES_PER_MINUTE": str(10 * (args.tables + args.timers)),
        "MAZZIERE_CALLER_OPEN_TABLES": str(10 * (args.tables + args.timers)),
        "MAZZIERE_CALLER_WATCHERS": str(max(10_000, 2 * args.tables * args.watchers)),
        "MAZZIERE_CALLER_PLAYS_PER_SECOND": str(100 * args.tables),
        "MAZZIERE_CALLER_READS_PER_SECOND": str(100 * (args.tables + args.timers)),
        "MAZZIERE_PROCESSES": str(args.processes),
    }
    if args.connection_age:  # the grace left at the server's default
        env["MAZZIERE_MAX_CONNECTION_AGE_MS"] = str(round(1000 * args.connection_age))
    return env


def stop_server(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
    try:
        server.wait(20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


@contextlib.contextmanager
def _beside(args: Args, placement: Placement, directory: Path) -> Iterator[str]:
    """The noise of ``--noise`` for the whole run (at most its longest possible length), or nothing."""
    if not args.noise:
        yield ""
        return
    with neighbours(placement, directory, NOISE_MARGIN + args.warmup + args.seconds) as what:
        yield what


def bench_host(args: Args, placement: Placement, log: IO[bytes]) -> Run:
    """``mazziere serve`` (on the placement's cores) and the load generator in this process."""
    exe = shutil.which("mazziere", path=str(Path(sys.executable).parent)) or "mazziere"
    port = free_port()
    with (
        tempfile.TemporaryDirectory(prefix="mazziere-host-load-") as data,
        _beside(args, placement, Path(data)) as noise,
    ):
        command = [*placement.server_prefix(), exe, "serve"]
        server = subprocess.Popen(command, env=_env(port, data, args), cwd=ROOT, stdout=log, stderr=log)
        try:
            run = asyncio.run(generate(args, f"127.0.0.1:{port}", server.pid))
        finally:
            stop_server(server)
    run.noise = noise
    return run


def bench_colyseus(args: Args, placement: Placement, log: IO[bytes]) -> Run:
    """The Colyseus room server under the same load, its generator on this process's core."""
    timing = (args.interval, args.warmup, args.seconds)
    with tempfile.TemporaryDirectory(prefix="mazziere-colyseus-load-") as data, _beside(args, placement, Path(data)):
        measure = colyseus_load.measure(args.tables, args.watchers, timing, placement, args.soak_every, log)
        result, window = asyncio.run(measure)
    run = Run(args, tree=window, moves=int(result["moves"]), skipped=int(result["skipped"]))
    run.pushes = [ms / 1000 for ms in result["pushes_ms"]]
    run.stopped, run.incomplete = int(result["stopped"]), int(result["incomplete"])
    run.errors, run.own_cpu = result["errors"], float(result["own_cpu"])
    run.connected_at_end, run.connect_seconds = int(result["connected_at_end"]), float(result["connect_seconds"])
    return run


def _failed(log: IO[bytes], why: str) -> None:
    log.seek(0)
    sys.stderr.write(log.read()[-4000:].decode(errors="replace"))
    print(f"host_load: {why}", file=sys.stderr)


def _parse(argv: list[str] | None) -> tuple[argparse.Namespace, Args]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=GOAL_TABLES, help="tables (1 to 5,000; default 1,000)")
    parser.add_argument("--watchers", type=int, default=GOAL_WATCHERS, help="Watch streams per table (2 to 16)")
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds measured after the warm-up (1 to 600)")
    parser.add_argument("--interval", type=float, default=GOAL_INTERVAL, help="seconds between a table's moves")
    parser.add_argument("--warmup", type=float, help="seconds of moves before the window (default: 2 intervals)")
    parser.add_argument("--game", choices=["sette_e_mezzo", "trentuno"], default="sette_e_mezzo")
    parser.add_argument("--connections", type=int, default=32, help="HTTP/2 connections the generator spreads over")
    parser.add_argument("--timers", type=int, default=0, help="tables of bots and an absent person, on timers")
    parser.add_argument("--timer-turn", type=float, default=2.0, help="the timer tables' turn time (seconds)")
    parser.add_argument("--timer-bot", default="best", help="the timer tables' bot policy (best, cautious, random)")
    parser.add_argument("--processes", type=int, default=1, help="the server's MAZZIERE_PROCESSES (1 to 64)")
    parser.add_argument("--noise", action="store_true", help="a spinner on the server's cores, an fsyncing writer")
    parser.add_argument("--soak", type=float, help="measure this long (10 to 3,600 s), memory sampled over it")
    parser.add_argument("--connection-age", type=float, default=0.0, help="the server's connection age (seconds)")
    parser.add_argument(
        "--colyseus", action=argparse.BooleanOptionalAction,
        help="the Colyseus room server beside the host (default: when its packages are installed)",
    )  # fmt: skip
    parser.add_argument("--pinned", action="store_true", help=argparse.SUPPRESS)
    ns = parser.parse_args(argv)
    if not (1 <= ns.tables <= 5000 and 2 <= ns.watchers <= 16 and 1 <= ns.seconds <= 600):
        parser.error("--tables must be 1 to 5,000, --watchers 2 to 16, --seconds 1 to 600")
    if not (0.1 <= ns.interval <= 60 and 1 <= ns.connections <= 1000):
        parser.error("--interval must be 0.1 to 60 s, --connections 1 to 1,000")
    if not (0 <= ns.timers <= 1000 and 1 <= ns.processes <= 64):
        parser.error("--timers must be 0 to 1,000, --processes 1 to 64")
    if ns.soak is not None and not 10 <= ns.soak <= 3600:
        parser.error("--soak must be 10 to 3,600 s")
    if not (ns.connection_age == 0 or 10 <= ns.connection_age <= 3600):
        parser.error("--connection-age must be 10 to 3,600 s")
    warmup = 2 * ns.interval if ns.warmup is None else min(max(ns.warmup, 0.0), 600.0)
    seconds = ns.seconds if ns.soak is None else ns.soak
    every = 0.0 if ns.soak is None else max(SOAK_SAMPLE_MIN, ns.soak / SOAK_SAMPLES)
    args = Args(
        ns.tables, ns.watchers, seconds, ns.interval, warmup, ns.game, ns.connections, ns.timers, ns.timer_turn,
        ns.timer_bot, ns.processes, ns.noise, every, ns.connection_age,
    )  # fmt: skip
    return ns, args


def placed(module: str, processes: int, pinned: bool, argv: list[str] | None) -> Placement | int:
    """Where a bench of ``module`` runs: the placement, when this process is the generator already placed
    (``pinned``: the server's cores are the first ones) or nothing can be pinned; else this bench run again on the
    generator's core with ``--pinned`` (it starts the server on the others), and its exit code."""
    placement = Placement.plan(processes)
    if pinned:
        return Placement(tuple(range(processes)), processes)
    if not placement.pinned:
        return placement
    given = sys.argv[1:] if argv is None else argv
    command = ["taskset", "-c", str(placement.generator), sys.executable, "-m", module, "--pinned", *given]
    return subprocess.run(command, cwd=ROOT, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    ns, args = _parse(argv)
    placement = placed("bench.host_load", args.processes, ns.pinned, argv)
    if isinstance(placement, int):
        return placement
    why = "--no-colyseus" if ns.colyseus is False else colyseus_load.missing()
    if ns.colyseus and why:
        print(f"host_load: --colyseus, but {why}", file=sys.stderr)
        return 1
    with tempfile.TemporaryFile() as log:
        try:
            host = bench_host(args, placement, log)
        except (grpc.aio.AioRpcError, TimeoutError, OSError) as exc:
            unserved = isinstance(exc, grpc.aio.AioRpcError) and exc.code() == grpc.StatusCode.UNIMPLEMENTED
            _failed(log, f"the run failed: {'`mazziere serve` serves no HostService here' if unserved else repr(exc)}")
            return 1
        colyseus = None
        if not why:
            log.seek(0)
            log.truncate()
            try:
                colyseus = bench_colyseus(args, placement, log)
            except (TimeoutError, OSError, ValueError, KeyError) as exc:
                why = f"it failed: {exc!r}"
                _failed(log, f"the Colyseus run failed: {exc!r}")
    report(host, colyseus, why, placement)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
