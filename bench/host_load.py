"""The host under load: N tables x M watchers on one host process, a move every 2 s per table.

Run by hand (not in CI; all traffic to 127.0.0.1, every loop bounded in count and time)::

    .venv/bin/python -m bench.host_load                                       # the goal: 1,000 tables x 4 watchers
    .venv/bin/python -m bench.host_load --tables 250 --seconds 30
    .venv/bin/python -m bench.host_load --tables 5 --watchers 2 --seconds 3   # a smoke test
    .venv/bin/python -m bench.host_load --tables 300 --timers 60              # with 60 tables of bots on timers

It starts ``mazziere serve`` (the embedded default: gRPC, the host, a SQLite store in a temporary data directory;
REST and metrics off, call logs off, a turn time of a day so no timer plays) pinned to CPU 0 with ``taskset -c 0``,
and runs the load generator, one ``grpc.aio`` process, pinned to CPU 1 (unpinned where ``taskset`` or a second CPU
is missing, and it says so). The generator:

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
whose Play was sent in that window count. The server's CPU share (user + system time from ``/proc/<pid>/stat``
over the window) and the generator's own are printed beside them, so a generator near 100 % shows it, not the
server, was the limit. It prints the table and the goal's lines, each PASS or MISS (1,000 tables with 4 watchers
each, a move every 2 s on each, the server on one core, push p99 at most 100 ms).
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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.goals import verdict
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import host_pb2_grpc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent
CAPABILITY = "x-table-capability"
GOAL_TABLES, GOAL_WATCHERS, GOAL_INTERVAL, GOAL_PUSH_MS = 1000, 4, 2.0, 100.0
GOAL_TIMERS, GOAL_LATENESS_MS = 60, 500.0
"""With this many tables of bots on timers, a due turn is played within this long (p99)."""
GOAL_PACE = 0.95
"""The share of the goal's moves per second (1,000 tables / 2 s) a run must achieve."""
MAX_SEATS = 4
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
ROWS = (
    "tables",
    "watchers connected (asked)",
    "moves per second (the schedule's)",
    "push: Play sent → last watcher has the step, p50/p99",
    "Play latency p50/p99",
    "server CPU (one core = 100 %)",
    "load generator CPU (one core = 100 %)",
    "moves late by more than an interval (turns skipped)",
    "timer lateness: turn due → the step at a watcher, p50/p99",
    "pushes not complete at the end",
    "errors",
)
"""The rows of the printed table, in order."""


@dataclass
class Args:
    tables: int
    watchers: int
    seconds: float
    interval: float
    warmup: float
    game: str
    connections: int
    timers: int = 0
    timer_turn: float = 2.0
    timer_bot: str = "best"


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


@dataclass
class Run:
    """Everything one run measured."""

    args: Args
    start: float = 0.0
    window: tuple[float, float] = (0.0, 0.0)
    pushes: list[float] = field(default_factory=list)
    plays: list[float] = field(default_factory=list)
    lateness: list[float] = field(default_factory=list)
    moves: int = 0
    skipped: int = 0
    stopped: int = 0
    """Tables that stopped playing: their game was over, or their last move never reached the seat to act."""
    connected: int = 0
    connected_tables: int = 0
    connected_at_end: int = 0
    """Watchers whose stream was open when the window ended."""
    full_at_end: int = 0
    """Tables all of whose watchers' streams were open when the window ended."""
    reconnects: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    server_cpu: float = float("nan")
    own_cpu: float = float("nan")
    incomplete: int = 0
    opened_seconds: float = 0.0
    connect_seconds: float = 0.0
    all_connected: asyncio.Event = field(default_factory=asyncio.Event)

    def measured(self, sent: float) -> bool:
        return self.window[0] <= sent < self.window[1]


# -- the load generator ---------------------------------------------------------------------------------------------


async def _watch(run: Run, table: Table, w: int, gate: asyncio.Semaphore) -> None:
    """One watcher: its stream from the start, again from its last seq if it ends (a few times at most)."""
    seat = w if w < table.seats else None
    after, counted = 0, False
    try:
        for attempt in range(RECONNECTS + 1):
            if attempt == 0:
                await gate.acquire()  # released at the first answer: a few streams connect at a time
            request = hpb.WatchRequest(table_id=table.table_id, after_seq=after)
            call = table.stub.Watch(request, metadata=table.watch_metadata[w])
            first = True
            try:
                async for answer in call:
                    if first:
                        first = False
                        if attempt == 0:
                            gate.release()
                        if not counted:
                            counted = True
                            _arrive(run, table)
                    if not answer.HasField("update"):
                        continue
                    _received(run, table, seat, answer.update)
                    after = answer.update.seq
                return  # the stream ended without an error: the table closed
            except grpc.aio.AioRpcError as exc:
                run.errors[f"Watch {_outcome(exc)}"] += 1
                if first and attempt == 0:
                    gate.release()
            run.reconnects += 1
    finally:
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


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _sample_cpu(run: Run, server_pid: int, tables: Sequence[Table]) -> None:
    await asyncio.sleep(max(0.0, run.window[0] - time.perf_counter()))
    wall0, server0, own0 = time.perf_counter(), _cpu_seconds(server_pid), _own_cpu_seconds()
    await asyncio.sleep(max(0.0, run.window[1] - time.perf_counter()))
    wall = time.perf_counter() - wall0
    run.server_cpu = (_cpu_seconds(server_pid) - server0) / wall
    run.own_cpu = (_own_cpu_seconds() - own0) / wall
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
    run = Run(args)
    await _ready(target)
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
        sampler = asyncio.create_task(_sample_cpu(run, server_pid, tables))
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


def _free_port() -> int:
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
    }
    return env


def _pinnable() -> bool:
    """Whether this process may put the server on CPU 0 and itself on CPU 1."""
    return bool(shutil.which("taskset")) and {0, 1} <= os.sched_getaffinity(0)


def _stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
    try:
        server.wait(20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def bench(args: Args, pinned: bool, log: IO[bytes]) -> Run:
    """``mazziere serve`` (on CPU 0 when ``pinned``) and the load generator in this process."""
    exe = shutil.which("mazziere", path=str(Path(sys.executable).parent)) or "mazziere"
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="mazziere-host-load-") as data:
        command = [*(["taskset", "-c", "0"] if pinned else []), exe, "serve"]
        server = subprocess.Popen(command, env=_env(port, data, args), cwd=ROOT, stdout=log, stderr=log)
        try:
            return asyncio.run(generate(args, f"127.0.0.1:{port}", server.pid))
        finally:
            _stop(server)


# -- the report -----------------------------------------------------------------------------------------------------


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _ms(seconds: float) -> str:
    ms = 1000 * seconds
    return f"{ms:.1f}" if ms < 10 else f"{ms:,.0f}"


def _p50_p99(values: Sequence[float]) -> str:
    return f"{_ms(_pct(values, 0.5))}/{_ms(_pct(values, 0.99))} ms ({len(values):,})" if values else "none"


def _machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores{f' ({model})' if model else ''}, Python {sys.version.split()[0]}"


def report(run: Run, pinned: bool) -> None:
    args = run.args
    seats = max(2, min(args.watchers, MAX_SEATS))
    spectators = args.watchers - seats
    extra = f" + {spectators} spectator{'s' if spectators > 1 else ''}" if spectators > 0 else ""
    place = "server pinned to CPU 0, load generator to CPU 1" if pinned else "nothing pinned (no taskset or one CPU)"
    print(
        f"\nhost under load: {args.tables:,} tables × {args.watchers} watchers ({seats} seats"  # noqa: RUF001
        f"{extra} each), {args.game}, a move every "
        f"{args.interval:g} s per table; {args.seconds:g} s measured after {args.warmup:g} s of warm-up; {place}; "
        f"{time.strftime('%Y-%m-%d')}, {_machine()}"
    )
    print(
        f"opened {args.tables:,} tables in {run.opened_seconds:.1f} s; connected {args.tables * args.watchers:,} "
        f"watchers in {run.connect_seconds:.1f} s"
    )
    schedule = args.tables / args.interval
    errors = ", ".join(f"{name} {n:,}" for name, n in sorted(run.errors.items())) or "none"
    if run.reconnects:
        errors += f"; {run.reconnects:,} watchers reconnected"
    if run.stopped:
        errors += f"; {run.stopped:,} tables stopped playing"
    values = (
        f"{args.tables:,}",
        f"{run.connected_at_end:,} ({args.tables * args.watchers:,})",
        f"{run.moves / args.seconds:,.1f} ({schedule:,.1f})",
        _p50_p99(run.pushes),
        _p50_p99(run.plays),
        f"{100 * run.server_cpu:.0f} %",
        f"{100 * run.own_cpu:.0f} %",
        f"{run.skipped:,}",
        _p50_p99(run.lateness) if args.timers else "no timer tables (--timers)",
        f"{run.incomplete:,}",
        errors,
    )
    print("| measure | value |")
    print("|---|---:|")
    for label, value in zip(ROWS, values, strict=True):
        print(f"| {label} | {value} |")
    full = run.full_at_end if args.watchers >= GOAL_WATCHERS else 0
    what = f"tables with {GOAL_WATCHERS} watchers or more, every one connected at the end"
    print(verdict(what, full, GOAL_TABLES, "tables"))
    pace = GOAL_PACE * GOAL_TABLES / GOAL_INTERVAL
    what = f"moves per second ({100 * GOAL_PACE:.0f} % of a move every {GOAL_INTERVAL:g} s on {GOAL_TABLES:,} tables)"
    print(verdict(what, run.moves / args.seconds, pace, "moves/s"))
    p99 = 1000 * _pct(run.pushes, 0.99) if run.pushes and not run.incomplete else float("inf")
    line = verdict("push p99 (Play sent → the table's last watcher has the step)", p99, GOAL_PUSH_MS, "ms", True)
    print(line if pinned else line.removesuffix("PASS") + "MISS (the server was not pinned to one core)")
    if args.timers >= GOAL_TIMERS:
        late = 1000 * _pct(run.lateness, 0.99) if run.lateness else float("inf")
        what = f"timer lateness p99 with {args.timers} tables of {args.timer_bot} bots on timers"
        print(verdict(what, late, GOAL_LATENESS_MS, "ms", True))


def main(argv: list[str] | None = None) -> int:
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
    parser.add_argument("--pinned", action="store_true", help=argparse.SUPPRESS)
    ns = parser.parse_args(argv)
    if not (1 <= ns.tables <= 5000 and 2 <= ns.watchers <= 16 and 1 <= ns.seconds <= 600):
        parser.error("--tables must be 1 to 5,000, --watchers 2 to 16, --seconds 1 to 600")
    if not (0.1 <= ns.interval <= 60 and 1 <= ns.connections <= 1000):
        parser.error("--interval must be 0.1 to 60 s, --connections 1 to 1,000")
    warmup = 2 * ns.interval if ns.warmup is None else min(max(ns.warmup, 0.0), 600.0)
    if not 0 <= ns.timers <= 1000:
        parser.error("--timers must be 0 to 1,000")
    args = Args(
        ns.tables,
        ns.watchers,
        ns.seconds,
        ns.interval,
        warmup,
        ns.game,
        ns.connections,
        ns.timers,
        ns.timer_turn,
        ns.timer_bot,
    )
    if not ns.pinned and _pinnable():
        # this process again, on CPU 1 (it starts the server on CPU 0)
        given = sys.argv[1:] if argv is None else argv
        command = ["taskset", "-c", "1", sys.executable, "-m", "bench.host_load", "--pinned", *given]
        return subprocess.run(command, cwd=ROOT, check=False).returncode
    with tempfile.TemporaryFile() as log:
        try:
            run = bench(args, ns.pinned, log)
        except (grpc.aio.AioRpcError, TimeoutError, OSError) as exc:
            log.seek(0)
            sys.stderr.write(log.read()[-4000:].decode(errors="replace"))
            unserved = isinstance(exc, grpc.aio.AioRpcError) and exc.code() == grpc.StatusCode.UNIMPLEMENTED
            why = "`mazziere serve` serves no HostService here" if unserved else repr(exc)
            print(f"host_load: the run failed: {why}", file=sys.stderr)
            return 1
    report(run, ns.pinned)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
