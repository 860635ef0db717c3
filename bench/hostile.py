"""Other callers' latency, and the probes', while one caller floods the server with costly calls.

Run by hand (not in CI; all traffic to 127.0.0.1, every loop bounded in time)::

    .venv/bin/python -m bench.hostile                         # every configuration, 10 s per row (about 5 minutes)
    .venv/bin/python -m bench.hostile --quick                 # 2 s per row: a smoke test
    .venv/bin/python -m bench.hostile --configuration host    # the host's rows alone (bench/hostile_host.py)
    .venv/bin/python -m bench.hostile --configuration embedded --worker-processes 0 --worker-processes 1
                                                              # the same rows with each setting, then side by side

For each configuration (``embedded``: ``mazziere serve``, gRPC and REST in one process; ``split``: ``mazziere
serve`` with ``MAZZIERE_REST_PORT=0`` for gRPC and ``mazziere gateway --target`` for HTTP) it starts the server
processes on free ports with the documented defaults (call logs off, metrics off), then runs one row per hostile
load. In every row, for ``--seconds``:

- the victim, a second caller on tables of its own (Sette e mezzo, 3 seats), plays legal moves one call after the
  other over gRPC and, at the same time, over REST (``POST /v1/tables:act``), as a host does: each ``Act`` names the
  other seats as ``viewers``, so the answer holds every seat's legal actions; every call's latency is kept;
- the victim also asks for ``Advise`` (default samples, gRPC) every 0.2 s, and counts the answers refused;
- probes poll ``/healthz`` (a new connection each time, as a kubelet does) and the gRPC health ``Check`` every
  0.1 s;
- the hostile caller, in a process of its own, keeps N calls in flight on tables it created itself (Trentuno, 3
  seats, where ``best`` and sampled advice cost most: some 30 ms and 1.5 s of CPU): it ignores ``RetryInfo`` and
  ``Retry-After``, sends its next call as soon as an answer comes, and counts the answers by code.

With tenants (the default), the servers get ``MAZZIERE_TENANTS`` with two tenants, ``victim`` and ``hostile``, and
each caller sends its own key as ``authorization: Bearer <key>`` (HTTP header, gRPC metadata); the probes send
none. ``--anonymous`` sets no tenants and sends no keys. It prints a table per configuration and the goals, each
with PASS or MISS: victim p99 within 3 x its own baseline (row "none") under every load, probes under 100 ms,
the hostile's excess shed with OVERLOADED and a retry hint, other callers' ``Advise`` never refused.

``--worker-processes N`` (repeatable) starts the servers with ``MAZZIERE_WORKER_PROCESSES=N`` (0: bots and advice
on the server's threads), each value in turn, and ends with the victim's p99 and the probes' worst under each value
side by side.

The third configuration, ``host``, is the host's own rows: a victim table of three people with watchers beside
hostile loads on the host (:mod:`bench.hostile_host`).
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import multiprocessing
import os
import random
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from bench import hostile_host
from bench.goals import verdict
from bench.load_report import ms, pct
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import service_pb2_grpc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent
VICTIM_GAME, HOSTILE_GAME, SEATS = "sette_e_mezzo", "trentuno", 3
CALL_TIMEOUT = 60.0
"""Seconds any call or probe may take: long enough to measure the worst waits, short enough to bound a row."""
PROBE_EVERY, ADVISE_EVERY = 0.1, 0.2
SETTLE = 1.0
"""Seconds between rows, so that the calls of one row are answered before the next row starts."""
MAX_CALLS = 100_000
"""The most calls one thread sends in a row, whatever the time."""
GOAL_RATIO, GOAL_PROBE_MS = 3.0, 100.0

Metadata = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Load:
    label: str
    rpc: str  # "": none; "rest_act", "grpc_act", "grpc_advise"
    inflight: int = 0


LOADS = (
    Load("none", ""),
    Load('64 × `POST /v1/tables:act {"autoPlay":"best"}` in flight', "rest_act", 64),  # noqa: RUF001
    Load("64 × gRPC Act with `auto_play: best`", "grpc_act", 64),  # noqa: RUF001
    Load("8 × Advise with 1,000 samples (gRPC)", "grpc_advise", 8),  # noqa: RUF001
)


@dataclass
class Tally:
    """Answers by outcome: OK, shed (OVERLOADED: RESOURCE_EXHAUSTED, a 429), or another code."""

    ok: int = 0
    shed: int = 0
    hinted: int = 0
    """Shed answers that said when to retry (a RetryInfo over gRPC, a Retry-After header over HTTP)."""
    other: dict[str, int] = field(default_factory=dict)

    @property
    def calls(self) -> int:
        return self.ok + self.shed + sum(self.other.values())

    def add(self, outcome: str, hinted: bool = False) -> None:
        if outcome == "OK":
            self.ok += 1
        elif outcome == "OVERLOADED":
            self.shed += 1
            self.hinted += hinted
        else:
            self.other[outcome] = self.other.get(outcome, 0) + 1

    def merge(self, more: Tally) -> None:
        self.ok, self.shed, self.hinted = self.ok + more.ok, self.shed + more.shed, self.hinted + more.hinted
        for outcome, n in more.other.items():
            self.other[outcome] = self.other.get(outcome, 0) + n

    def others(self) -> str:
        return ", ".join(f"{outcome} {n}" for outcome, n in sorted(self.other.items()))


def _metadata(key: str | None) -> Metadata:
    return (("authorization", f"Bearer {key}"),) if key else ()


SHED = frozenset({"OVERLOADED", "QUOTA_EXCEEDED"})
"""The reasons of a call shed by admission: the server at a class's limit, or the caller's tenant at its share."""


def _grpc_outcome(exc: grpc.RpcError) -> tuple[str, bool]:
    """``("OVERLOADED", has RetryInfo)`` for a shed call, else the status code's name (and its reason)."""
    code = exc.code() if isinstance(exc, grpc.Call) else grpc.StatusCode.UNKNOWN
    reason, hinted = "", False
    status = rpc_status.from_call(exc) if isinstance(exc, grpc.Call) else None
    details: list[Any] = list(status.details) if status else []
    for detail in details:
        info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
        if detail.Is(info.DESCRIPTOR) and detail.Unpack(info):
            reason = info.reason
        elif detail.Is(retry.DESCRIPTOR):
            hinted = True
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and reason in SHED:
        return "OVERLOADED", hinted
    return f"{code.name} {reason}".strip(), False


class GrpcTable:
    """A table the caller created over gRPC, its latest state, and its seats' keys and legal actions."""

    def __init__(self, stub: Any, game: str, metadata: Metadata, rng: random.Random) -> None:
        self.stub, self.game, self.metadata, self.rng = stub, game, metadata, rng
        self.new()

    def new(self) -> None:
        """A fresh table (retried while refused, for at most about ten seconds)."""
        seats = [pb.Seat(name=f"p{i}", chips=100) for i in range(SEATS)]
        for attempt in range(100):
            try:
                created = self.stub.CreateTable(
                    svc.CreateTableRequest(game=self.game, seats=seats), metadata=self.metadata, timeout=CALL_TIMEOUT
                )
                break
            except grpc.RpcError:
                if attempt == 99:
                    raise
                time.sleep(0.1)
        self.table_id, self.state, self.seq = created.table_id, created.state, created.seq
        self.keys: dict[int, str] = {k.seat: k.key for k in created.seat_keys}
        self.over = False
        self._take(created)

    def _take(self, answer: Any) -> None:
        self.to_act: list[int] = list(answer.to_act)
        self.legal: dict[int, list[Any]] = {u.seat: list(u.legal_actions) for u in answer.updates if u.HasField("seat")}

    def act(self, auto_play: str = "") -> tuple[str, bool]:
        """One ``Act``: a random legal move (with every other seat as a viewer), or ``auto_play``'s; keeps the new
        state (``over`` once the game is over: then ``new()``)."""
        seat = self.to_act[0]
        request = svc.ActRequest(table_id=self.table_id, state=self.state, expected_seq=self.seq)
        request.seat_key = self.keys[seat]
        if auto_play:
            request.auto_play = auto_play
        else:
            entry = self.rng.choice(self.legal[seat])
            request.action.CopyFrom(pb.Action(seat=seat, kind=entry.kind, amount=entry.min_amount, cards=entry.cards))
            if entry.HasField("target"):
                request.action.target = entry.target
            request.viewers.extend(pb.SeatKey(seat=s, key=k) for s, k in self.keys.items() if s != seat)
        try:
            answer = self.stub.Act(request, metadata=self.metadata, timeout=CALL_TIMEOUT)
        except grpc.RpcError as exc:
            return _grpc_outcome(exc)
        self.state, self.seq, self.over = answer.state, answer.seq, answer.is_over
        self._take(answer)
        return "OK", False

    def advise(self, samples: int = 0) -> tuple[str, bool]:
        seat = self.to_act[0]
        request = svc.AdviseRequest(
            table_id=self.table_id, state=self.state, seat=seat, seat_key=self.keys[seat], samples=samples
        )
        try:
            self.stub.Advise(request, metadata=self.metadata, timeout=CALL_TIMEOUT)
        except grpc.RpcError as exc:
            return _grpc_outcome(exc)
        return "OK", False

    def to_decision(self) -> None:
        """Plays legal moves until the seat to act has a real choice (for a Sette e mezzo or Trentuno table)."""
        for _ in range(10):
            if len(self.legal.get(self.to_act[0], [])) > 1:
                return
            self.act()
            if self.over:
                self.new()


class RestTable:
    """A table the caller created over REST (one keep-alive connection), as ``GrpcTable``."""

    def __init__(self, port: int, game: str, key: str | None, rng: random.Random) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=CALL_TIMEOUT)
        self.headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
        self.game, self.rng = game, rng
        self.new()

    def post(self, path: str, body: dict[str, Any], seat_key: str = "") -> tuple[int, dict[str, Any], bool]:
        """(HTTP status, JSON answer, whether a Retry-After came); status 0 if the connection broke."""
        headers = {**self.headers, **({"X-Seat-Key": seat_key} if seat_key else {})}
        try:
            self.conn.request("POST", path, json.dumps(body), headers)
            response = self.conn.getresponse()
            answer = json.loads(response.read() or b"{}")
        except (OSError, http.client.HTTPException, ValueError):
            self.conn.close()  # the next request connects again
            return 0, {}, False
        return response.status, answer, response.getheader("Retry-After") is not None

    def new(self) -> None:
        seats = [{"name": f"p{i}", "chips": "100"} for i in range(SEATS)]
        for attempt in range(100):
            status, created, _ = self.post("/v1/tables", {"game": self.game, "seats": seats})
            if status == 200:
                break
            if attempt == 99:
                raise RuntimeError(f"CreateTable: HTTP {status} {created}")
            time.sleep(0.1)
        self.table_id, self.state, self.seq = created["tableId"], created["state"], created.get("seq", "0")
        self.keys: dict[int, str] = {k.get("seat", 0): k["key"] for k in created["seatKeys"]}
        self.over = False
        self._take(created)

    def _take(self, answer: dict[str, Any]) -> None:
        self.to_act: list[int] = answer.get("toAct", [])
        self.legal: dict[int, list[dict[str, Any]]] = {
            u.get("seat", 0): u.get("legalActions", []) for u in answer.get("updates", []) if "seat" in u
        }

    def act(self, auto_play: str = "") -> tuple[str, bool]:
        seat = self.to_act[0]
        body: dict[str, Any] = {"tableId": self.table_id, "state": self.state, "expectedSeq": self.seq}
        if auto_play:
            body["autoPlay"] = auto_play
        else:
            entry = self.rng.choice(self.legal[seat])
            body["action"] = {"seat": seat, "kind": entry["kind"], "amount": entry.get("minAmount", "0")}
            body["action"].update({k: entry[k] for k in ("target", "cards") if k in entry})
            body["viewers"] = [{"seat": s, "key": k} for s, k in self.keys.items() if s != seat]
        status, answer, retry_after = self.post("/v1/tables:act", body, self.keys[seat])
        if status != 200:
            reasons = [d.get("reason", "") for d in answer.get("error", {}).get("details", [])]
            if status == 429 and SHED & set(reasons):
                return "OVERLOADED", retry_after
            return f"HTTP {status} {' '.join(r for r in reasons if r)}".strip(), False
        self.state, self.seq, self.over = answer["state"], answer.get("seq", "0"), answer.get("isOver", False)
        self._take(answer)
        return "OK", False


@dataclass(frozen=True)
class Place:
    """Where the servers listen, and the callers' keys (``None``: anonymous)."""

    grpc_port: int
    http_port: int
    victim_key: str | None
    hostile_key: str | None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"


def _hostile(place: Place, load: Load, seconds: float, ready: Any, go: Any, out: Any) -> None:
    """The hostile caller (in a process of its own): ``load.inflight`` threads, each on a table of its own, each
    sending its next call as soon as the last is answered, for ``seconds`` after ``go``. It runs at the lowest CPU
    priority: refused at once, it would otherwise spin a core of this small machine, and take it from the victim's
    own client rather than from the server the bench measures."""
    os.nice(19)
    channel = grpc.insecure_channel(place.target)
    stub = service_pb2_grpc.TableServiceStub(channel)
    metadata = _metadata(place.hostile_key)
    tables: list[GrpcTable | RestTable] = []
    for i in range(load.inflight):
        rng = random.Random(i)
        if load.rpc == "rest_act":
            tables.append(RestTable(place.http_port, HOSTILE_GAME, place.hostile_key, rng))
        else:
            table = GrpcTable(stub, HOSTILE_GAME, metadata, rng)
            if load.rpc == "grpc_advise":
                table.to_decision()
            tables.append(table)
    tallies = [Tally() for _ in tables]
    ready.set()
    go.wait(CALL_TIMEOUT)
    end = time.monotonic() + seconds

    def run(table: GrpcTable | RestTable, tally: Tally) -> None:
        for _ in range(MAX_CALLS):
            if time.monotonic() >= end:
                return
            if isinstance(table, GrpcTable) and load.rpc == "grpc_advise":
                tally.add(*table.advise(samples=1000))
            else:
                tally.add(*table.act("best"))
                if table.over:
                    table.new()

    threads = [threading.Thread(target=run, args=pair) for pair in zip(tables, tallies, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    total = Tally()
    for tally in tallies:
        total.merge(tally)
    out.put(total)
    channel.close()


@dataclass
class Row:
    load: Load
    grpc_act: list[float] = field(default_factory=list)
    rest_act: list[float] = field(default_factory=list)
    healthz: list[float] = field(default_factory=list)
    health: list[float] = field(default_factory=list)
    victim_grpc: Tally = field(default_factory=Tally)
    victim_rest: Tally = field(default_factory=Tally)
    probe_failures: list[str] = field(default_factory=list)
    advise: Tally = field(default_factory=Tally)
    hostile: Tally | None = None


def _until(end: float, pause: float = 0.0) -> Iterator[None]:
    """Yields until ``end`` (monotonic), at most ``MAX_CALLS`` times, sleeping ``pause`` between."""
    for _ in range(MAX_CALLS):
        if time.monotonic() >= end:
            return
        yield
        if pause:
            time.sleep(pause)


def _victim(table: GrpcTable | RestTable, latencies: list[float], tally: Tally, end: float) -> None:
    for _ in _until(end):
        start = time.perf_counter()
        outcome, hinted = table.act()
        if outcome == "OK":
            latencies.append(time.perf_counter() - start)
        tally.add(outcome, hinted)
        if outcome == "OVERLOADED":
            time.sleep(1.0)  # a well-behaved caller waits as its RetryInfo or Retry-After says
        if table.over:
            table.new()


def _victim_advise(table: GrpcTable, row: Row, end: float) -> None:
    for _ in _until(end, ADVISE_EVERY):
        row.advise.add(*table.advise())


def _probe_healthz(port: int, row: Row, end: float) -> None:
    for _ in _until(end, PROBE_EVERY):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=CALL_TIMEOUT)
        start = time.perf_counter()
        try:
            conn.request("GET", "/healthz")
            ok = conn.getresponse().status == 200
        except (OSError, http.client.HTTPException):
            ok = False
        row.healthz.append(time.perf_counter() - start)
        if not ok:
            row.probe_failures.append("/healthz")
        conn.close()


def _probe_health(stub: Any, row: Row, end: float) -> None:
    for _ in _until(end, PROBE_EVERY):
        start = time.perf_counter()
        try:
            answer = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=CALL_TIMEOUT)
            ok = answer.status == health_pb2.HealthCheckResponse.SERVING
        except grpc.RpcError:
            ok = False
        row.health.append(time.perf_counter() - start)
        if not ok:
            row.probe_failures.append("gRPC health")


def run_row(place: Place, load: Load, seconds: float) -> Row:
    """One row: the victim and the probes for ``seconds``, beside the hostile load (if any)."""
    row = Row(load)
    metadata = _metadata(place.victim_key)
    with grpc.insecure_channel(place.target) as channel, grpc.insecure_channel(place.target) as probe_channel:
        stub = service_pb2_grpc.TableServiceStub(channel)
        grpc_table = GrpcTable(stub, VICTIM_GAME, metadata, random.Random(1))
        rest_table = RestTable(place.http_port, VICTIM_GAME, place.victim_key, random.Random(2))
        advised = GrpcTable(stub, VICTIM_GAME, metadata, random.Random(3))
        advised.to_decision()
        health = health_pb2_grpc.HealthStub(probe_channel)
        hostile: BaseProcess | None = None
        if load.rpc:
            context = multiprocessing.get_context("spawn")
            ready, go, out = context.Event(), context.Event(), context.Queue()
            hostile = context.Process(target=_hostile, args=(place, load, seconds, ready, go, out), daemon=True)
            hostile.start()
            if not ready.wait(CALL_TIMEOUT):
                raise RuntimeError("the hostile caller did not get ready")
            go.set()
        end = time.monotonic() + seconds
        jobs: list[tuple[Callable[..., None], tuple[Any, ...]]] = [
            (_victim, (grpc_table, row.grpc_act, row.victim_grpc, end)),
            (_victim, (rest_table, row.rest_act, row.victim_rest, end)),
            (_victim_advise, (advised, row, end)),
            (_probe_healthz, (place.http_port, row, end)),
            (_probe_health, (health, row, end)),
        ]
        threads = [threading.Thread(target=job, args=args) for job, args in jobs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if hostile is not None:
            row.hostile = out.get(timeout=2 * CALL_TIMEOUT)
            hostile.join(CALL_TIMEOUT)
        rest_table.conn.close()
    return row


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(grpc_port: int, rest_port: int, tenants: str | None, processes: int | None = None) -> dict[str, str]:
    """The documented defaults (whatever the caller's ``MAZZIERE_*``), on 127.0.0.1, call logs and metrics off;
    ``processes``: the worker processes, if not the default's."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("MAZZIERE_")}
    env |= {
        "MAZZIERE_HOST": "127.0.0.1",
        "MAZZIERE_PORT": str(grpc_port),
        "MAZZIERE_REST_HOST": "127.0.0.1",
        "MAZZIERE_REST_PORT": str(rest_port),
        "MAZZIERE_METRICS_PORT": "0",
        "MAZZIERE_LOG_CALLS": "false",
        "MAZZIERE_SEAL_KEYS": f"bench:{base64.b64encode(os.urandom(32)).decode()}",
        "MAZZIERE_DATA_DIR": tempfile.mkdtemp(prefix="mazziere-bench-"),  # its own store: SQLite serves one host
    }
    if tenants:
        env["MAZZIERE_TENANTS"] = tenants
    if processes is not None:
        env["MAZZIERE_WORKER_PROCESSES"] = str(processes)
    return env


def _wait_ready(place: Place, processes: list[subprocess.Popen[bytes]]) -> None:
    deadline = time.monotonic() + CALL_TIMEOUT
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{place.http_port}/readyz", timeout=1) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline or any(p.poll() is not None for p in processes):
            raise RuntimeError("the server did not start")
        time.sleep(0.2)


@contextmanager
def serving(configuration: str, anonymous: bool, worker_processes: int | None = None) -> Iterator[Place]:
    """``mazziere serve`` (embedded), or ``mazziere serve`` for gRPC and ``mazziere gateway`` for HTTP (split)."""
    exe = shutil.which("mazziere", path=str(Path(sys.executable).parent)) or "mazziere"
    victim, hostile = (None, None) if anonymous else (secrets.token_urlsafe(24), secrets.token_urlsafe(24))
    tenants = None
    if victim and hostile:
        tenants = json.dumps(
            {"tenants": [{"name": "victim", "keys": [victim]}, {"name": "hostile", "keys": [hostile]}]}
        )
    place = Place(_free_port(), _free_port(), victim, hostile)
    commands = [(["serve"], _env(place.grpc_port, place.http_port, tenants, worker_processes))]
    if configuration == "split":
        commands = [
            (["serve"], _env(place.grpc_port, 0, tenants, worker_processes)),
            (["gateway", "--target", place.target], _env(place.grpc_port, place.http_port, tenants)),  # binds REST only
        ]
    with ExitStack() as stack:
        processes: list[subprocess.Popen[bytes]] = []
        logs = []
        for args, env in commands:
            log = stack.enter_context(tempfile.TemporaryFile())
            logs.append(log)
            processes.append(subprocess.Popen([exe, *args], env=env, cwd=ROOT, stdout=log, stderr=log))
            stack.callback(_stop, processes[-1])  # on leaving: the gateway first, then the gRPC server
        try:
            _wait_ready(place, processes)
        except RuntimeError:
            for log in logs:
                log.seek(0)
                sys.stderr.write(log.read()[-4000:].decode(errors="replace"))
            raise
        yield place


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _duration(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds >= 10 else f"{ms(seconds)} ms"


def _p50_p99(values: list[float]) -> str:
    return f"{ms(statistics.median(values))}/{ms(pct(values, 0.99))} ms" if values else "no answer"


def _shed(hostile: Tally | None, hint: str) -> str:
    if hostile is None:
        return "n/a"
    text = f"{hostile.shed:,} of {hostile.calls:,}"
    if hostile.shed:
        text += f" ({hint} on all)" if hostile.hinted == hostile.shed else f" ({hint} on {hostile.hinted:,})"
    return text + (f"; {hostile.others()}" if hostile.other else "")


def report(configuration: str, rows: list[Row]) -> None:
    """The table of one configuration, the details of each row, and the goals with PASS or MISS."""
    print("| hostile load | victim gRPC Act p50/p99 | victim REST Act p50/p99 | `/healthz` max | gRPC health max "
          "| hostile calls shed | other callers' Advise |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---|---|")
    for row in rows:
        hint = "Retry-After" if row.load.rpc == "rest_act" else "RetryInfo"
        print(
            f"| {row.load.label} | {_p50_p99(row.grpc_act)} | {_p50_p99(row.rest_act)} | "
            f"{_duration(max(row.healthz))} | {_duration(max(row.health))} | {_shed(row.hostile, hint)} | "
            f"{row.advise.shed} of {row.advise.calls} OVERLOADED |"
        )
    for row in rows:
        refusals = [
            f"{name} {tally.calls - tally.ok} of {tally.calls} refused ({tally.others() or 'OVERLOADED'})"
            for name, tally in (("gRPC", row.victim_grpc), ("REST", row.victim_rest), ("Advise", row.advise))
            if tally.calls != tally.ok
        ]
        print(
            f"  {row.load.label}: victim {len(row.grpc_act)} gRPC and {len(row.rest_act)} REST Acts answered"
            f"{'; ' + ', '.join(refusals) if refusals else ''}; /healthz p99 {_duration(pct(row.healthz, 0.99))}, "
            f"gRPC health p99 {_duration(pct(row.health, 0.99))}"
            f"{'; failed probes: ' + ', '.join(row.probe_failures) if row.probe_failures else ''}"
        )
    _goals(configuration, rows)


Measure = Callable[[Row], list[float]]


def _goals(configuration: str, rows: list[Row]) -> None:
    base, loaded = rows[0], rows[1:]
    victims: list[tuple[str, Measure]] = [("gRPC", lambda r: r.grpc_act), ("REST", lambda r: r.rest_act)]
    for name, of in victims:
        worst = max(loaded, key=lambda r: pct(of(r), 0.99))
        what = f"{configuration}: victim {name} Act p99 / its baseline, worst row ({worst.load.label})"
        print(verdict(what, pct(of(worst), 0.99) / pct(of(base), 0.99), GOAL_RATIO, "x", at_most=True))
    probes: list[tuple[str, Measure]] = [("`/healthz`", lambda r: r.healthz), ("gRPC health", lambda r: r.health)]
    for name, of in probes:
        worst = max(rows, key=lambda r: max(of(r)))
        what = f"{configuration}: {name} max, worst row ({worst.load.label})"
        print(verdict(what, 1000 * max(of(worst)), GOAL_PROBE_MS, "ms", at_most=True))
    hostile = [r.hostile for r in loaded if r.hostile is not None]
    met = all(t.shed and t.hinted == t.shed and not t.other for t in hostile)
    counts = "; ".join(f"{t.shed:,} of {t.calls:,} shed, {t.hinted:,} with a retry hint" for t in hostile)
    print(f"goal: {configuration}: the hostile's excess shed (OVERLOADED, RetryInfo / Retry-After) in every row: "
          f"{counts}  {'PASS' if met else 'MISS'}")  # fmt: skip
    worst = max(rows, key=lambda r: r.advise.shed)
    what = f"{configuration}: other callers' Advise refused, worst row ({worst.load.label}: {worst.advise.calls} calls)"
    print(verdict(what, worst.advise.shed, 0, "calls", at_most=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds of load per row (1 to 60; default 10)")
    parser.add_argument("--quick", action="store_true", help="2 s per row: a smoke test")
    parser.add_argument(
        "--configuration", action="append", choices=["embedded", "split", "host"], help="default: all three"
    )
    parser.add_argument("--anonymous", action="store_true", help="no tenants, no keys")
    parser.add_argument(
        "--worker-processes",
        type=int,
        action="append",
        metavar="N",
        help="MAZZIERE_WORKER_PROCESSES of the servers; repeat to compare (default: the documented default)",
    )
    args = parser.parse_args(argv)
    seconds = 2.0 if args.quick else min(max(args.seconds, 1.0), 60.0)
    callers = "anonymous callers" if args.anonymous else "tenants: each caller sends its own key"
    settings: list[int | None] = args.worker_processes or [None]
    compared: dict[str, dict[int | None, list[Row]]] = {}
    for configuration in args.configuration or ["embedded", "split", "host"]:
        if configuration == "host":
            hostile_host.main(seconds)
            continue
        for processes in settings:
            when = time.strftime("%Y-%m-%d")
            which = "" if processes is None else f", MAZZIERE_WORKER_PROCESSES={processes}"
            print(f"\n{configuration}{which}: {seconds:g} s per row, {callers}; {when}, {os.cpu_count()} cores")
            rows = []
            with serving(configuration, args.anonymous, processes) as place:
                for load in LOADS:
                    rows.append(run_row(place, load, seconds))
                    time.sleep(SETTLE)
            report(configuration, rows)
            compared.setdefault(configuration, {})[processes] = rows
    if len(settings) > 1:
        side_by_side(compared)
    return 0


def side_by_side(compared: dict[str, dict[int | None, list[Row]]]) -> None:
    """Each configuration's rows under each number of worker processes: the victim's p99s and the probes' worst."""
    for configuration, by_setting in compared.items():
        settings = list(by_setting)
        heads = " | ".join(f"{name} ({n} processes)" for n in settings for name in ("gRPC Act p99", "REST Act p99"))
        probes = " | ".join(f"health max ({n} processes)" for n in settings)
        print(f"\n{configuration}, side by side\n| hostile load | {heads} | {probes} |")
        print("|---|" + "---:|" * (3 * len(settings)))
        for i, load in enumerate(LOADS):
            rows = [by_setting[n][i] for n in settings]
            acts = " | ".join(f"{ms(pct(r.grpc_act, 0.99))} ms | {ms(pct(r.rest_act, 0.99))} ms" for r in rows)
            worst = " | ".join(_duration(max(max(r.healthz), max(r.health))) for r in rows)
            print(f"| {load.label} | {acts} | {worst} |")


if __name__ == "__main__":
    raise SystemExit(main())
