"""bench.hostile's host rows: a victim table played by three people, watched, beside one hostile load on the host at a
time.

Run with the other rows (``python -m bench.hostile``) or alone (``python -m bench.hostile --configuration host``);
all traffic to 127.0.0.1, every loop bounded in count and time. It starts ``mazziere serve`` (embedded, the documented
defaults, a SQLite store in a temporary folder, call logs and metrics off) with ``MAZZIERE_TRUSTED_PROXIES`` set to
127.0.0.1, and every caller sends the address it stands for in ``x-forwarded-for``: the victim's household one
address, the hostile caller another for each row. (A server that has no such setting ignores both, and sees one
caller.) In every row, for ``seconds``:

- **the victim**: three people at a Trentuno table, each with a Watch stream, and two spectators' streams; they play
  the first legal move of the seat to act, one move every 0.1 s, and each move's time from its Play sent to the last
  of the five watchers having it (Play→push) is kept. A finished game starts another table;
- **a probe** polls ``/healthz`` (a new connection each time) every 0.1 s;
- **the hostile caller**, in a process of its own at the lowest CPU priority, runs one load (:data:`LOADS`) and
  counts its answers by code and ErrorInfo reason (and whether a refusal said when to retry).

Between rows it measures the store's growth (the SQLite file and its write-ahead log, and its tables). It prints a
table (the victim's Play→push p50/p99 and p99 against its baseline row, ``/healthz`` max, what was shed by reason,
the store's growth) and the goals, each PASS or MISS.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import multiprocessing
import os
import re
import secrets
import select
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2

from bench.load_report import ms, pct
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import host_pb2_grpc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent
CAPABILITY = "x-table-capability"
VICTIM = "198.51.100.10"
"""The victim household's address."""
HOSTILE = "203.0.113.{}"
"""The hostile caller's address in row n (a new caller each row)."""
CALL_TIMEOUT = 30.0
PLAY_EVERY, PROBE_EVERY = 0.1, 0.1
PUSH_TIMEOUT = 10.0
"""The longest the victim waits for a move to reach its watchers (counted as lost beyond)."""
MAX_CALLS = 100_000
"""The most calls one hostile thread sends in a row."""
SETTLE = 1.0
NO_ANSWER = "no answer"
"""A call the server had not answered when the row ended (neither answered nor refused)."""


@dataclass(frozen=True)
class HostLoad:
    label: str
    kind: str  # "": none
    count: int = 0


LOADS = (
    HostLoad("none", ""),
    HostLoad("OpenTable flood: 8 threads, 12-seat tables", "open", 8),
    HostLoad("Watch flood from one caller: 2,000 streams", "watch", 2000),
    HostLoad("stalled readers: 300 Connect streams on the victim's spectators' link", "stalled", 300),
    HostLoad("spectators' GetHostedTable flood: 16 threads", "get", 16),
    HostLoad("unknown-id flood: 32 threads, no capability", "unknown", 32),
    HostLoad("bot tables: 60 × 1 person + 8 `best` bots, turn -1,000,000 s", "bots", 60),  # noqa: RUF001
)


@dataclass(frozen=True)
class Place:
    grpc_port: int
    http_port: int
    data: Path

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"


def _metadata(address: str, capability: str = "") -> tuple[tuple[str, str], ...]:
    forwarded = (("x-forwarded-for", address),)
    return (*forwarded, (CAPABILITY, capability)) if capability else forwarded


def outcome(exc: grpc.RpcError) -> tuple[str, bool]:
    """``("CODE REASON", has a RetryInfo)`` of a refusal (of a blocking call, or of an asyncio one)."""
    code = exc.code() if isinstance(exc, grpc.Call | grpc.aio.AioRpcError) else grpc.StatusCode.UNKNOWN
    trailers = exc.trailing_metadata() if isinstance(exc, grpc.Call | grpc.aio.AioRpcError) else ()
    details = [v for k, v in trailers or () if k == "grpc-status-details-bin" and isinstance(v, bytes)]
    status = status_pb2.Status.FromString(details[0]) if details else None
    reason, hinted = "", False
    for detail in status.details if status else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Is(info.DESCRIPTOR) and detail.Unpack(info):
            reason = info.reason
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            hinted = True
    return f"{code.name} {reason}".strip(), hinted


@dataclass
class Tally:
    """The hostile's answers: by outcome ("OK", "RESOURCE_EXHAUSTED CALLER_LIMIT", ...), and refusals with a hint."""

    outcomes: Counter[str] = field(default_factory=Counter)
    hinted: int = 0
    note: str = ""

    def add(self, what: str, hinted: bool = False) -> None:
        self.outcomes[what] += 1
        self.hinted += hinted

    @property
    def calls(self) -> int:
        return sum(self.outcomes.values())

    @property
    def refused(self) -> int:
        return self.calls - self.outcomes["OK"] - self.outcomes[NO_ANSWER]

    def refusals(self) -> list[str]:
        return [what for what in self.outcomes if what not in ("OK", NO_ANSWER)]

    def shed(self) -> str:
        refusals = sorted(((self.outcomes[what], what) for what in self.refusals()), reverse=True)
        text = f"{self.refused:,} of {self.calls:,}"
        if refusals:
            text += ": " + ", ".join(f"{what.split()[-1]} {n:,}" for n, what in refusals)
        if self.outcomes[NO_ANSWER]:
            text += f"; {self.outcomes[NO_ANSWER]:,} not answered in the row"
        return text + (f" ({self.note})" if self.note else "")


# -- the hostile caller ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Victim:
    """What the hostile knows of the victim: its table and its spectators' link (meant to be shared)."""

    table_id: str
    spectators: str


def _hostile(place: Place, load: HostLoad, address: str, victim: Victim, seconds: float, go: Any, out: Any) -> None:
    """The hostile caller, in a process of its own at the lowest priority; puts its Tally on ``out``."""
    os.nice(19)
    tally = Tally()
    go.wait(CALL_TIMEOUT)
    end = time.monotonic() + seconds
    if load.kind == "watch":
        asyncio.run(_watch_flood(place, load.count, address, end, tally))
    elif load.kind == "stalled":
        _stalled(place, load.count, address, victim, end, tally)
    else:
        _threads(place, load, address, victim, end, tally)
    out.put(tally)


def _threads(place: Place, load: HostLoad, address: str, victim: Victim, end: float, tally: Tally) -> None:
    """``load.count`` threads, each sending its next call as soon as the last is answered."""
    lock = threading.Lock()
    with grpc.insecure_channel(place.target) as channel:
        stub = host_pb2_grpc.HostServiceStub(channel)
        if load.kind == "bots":
            _bot_tables(stub, load.count, address, end, tally)
            return
        call = _call(stub, load.kind, address, victim)

        def run() -> None:
            for _ in range(MAX_CALLS):
                if time.monotonic() >= end:
                    return
                try:
                    call()
                    result = ("OK", False)
                except grpc.RpcError as exc:
                    result = outcome(exc)
                with lock:
                    tally.add(*result)

        threads = [threading.Thread(target=run) for _ in range(load.count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()


def _call(stub: Any, kind: str, address: str, victim: Victim) -> Callable[[], Any]:
    if kind == "open":
        seats = [hpb.HostedSeat(name=f"Giocatore {i}", chips=100) for i in range(12)]
        opening = hpb.OpenTableRequest(game="sette_e_mezzo", seats=seats)
        return lambda: stub.OpenTable(opening, metadata=_metadata(address), timeout=CALL_TIMEOUT)
    if kind == "get":
        reading = hpb.GetHostedTableRequest(table_id=victim.table_id)
        metadata = _metadata(address, victim.spectators)
        return lambda: stub.GetHostedTable(reading, metadata=metadata, timeout=CALL_TIMEOUT)

    def unknown() -> Any:
        request = hpb.GetHostedTableRequest(table_id=f"t_{secrets.token_hex(12)}")
        return stub.GetHostedTable(request, metadata=_metadata(address, "x" * 43), timeout=CALL_TIMEOUT)

    return unknown


def _bot_tables(stub: Any, count: int, address: str, end: float, tally: Tally) -> None:
    """Opens up to ``count`` tables of one person and eight `best` bots on a turn of -1,000,000 s (1 s where that is
    refused), then lets them run."""
    bots = [hpb.HostedSeat(name=f"Bot {i}", chips=100, bot="best") for i in range(8)]
    seats = [hpb.HostedSeat(name="Ada", chips=100), *bots]
    turn = -1_000_000
    for _ in range(count):
        if time.monotonic() >= end:
            break
        request = hpb.OpenTableRequest(game="trentuno", seats=seats, turn_seconds=turn)
        try:
            stub.OpenTable(request, metadata=_metadata(address), timeout=CALL_TIMEOUT)
            tally.add("OK")
        except grpc.RpcError as exc:
            tally.add(*outcome(exc))
            if exc.code() == grpc.StatusCode.INVALID_ARGUMENT and turn < 0:
                turn = 1
    tally.note = f"{tally.outcomes['OK']} opened, turn {turn} s"
    time.sleep(max(0.0, end - time.monotonic()))


async def _watch_flood(place: Place, count: int, address: str, end: float, tally: Tally) -> None:
    """``count`` Watch streams on a table of the hostile's own, each read until the row ends."""
    async with grpc.aio.insecure_channel(place.target) as channel:
        stub = host_pb2_grpc.HostServiceStub(channel)
        seats = [hpb.HostedSeat(name=f"p{i}", chips=10) for i in range(3)]
        try:
            request = hpb.OpenTableRequest(game="trentuno", seats=seats)
            opened = await stub.OpenTable(request, metadata=_metadata(address))
        except grpc.RpcError as exc:
            tally.add(*outcome(exc))
            return
        watch = hpb.WatchRequest(table_id=opened.table_id)
        metadata = _metadata(address, opened.spectators.capability)
        held = 0

        async def one() -> None:
            nonlocal held
            stream = stub.Watch(watch, metadata=metadata)
            counted = False
            try:
                async for _ in stream:
                    if not counted:
                        counted, held = True, held + 1
                        tally.add("OK")
            except grpc.aio.AioRpcError as exc:
                if not counted:
                    late = exc.code() == grpc.StatusCode.CANCELLED and time.monotonic() >= end
                    tally.add(*((NO_ANSWER, False) if late else outcome(exc)))
            except asyncio.CancelledError:
                if not counted:
                    tally.add(NO_ANSWER)
                stream.cancel()
                raise

        tasks = [asyncio.create_task(one()) for _ in range(count)]
        await asyncio.sleep(max(0.0, end - time.monotonic()))
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        tally.note = f"{held} held"


def _stalled(place: Place, count: int, address: str, victim: Victim, end: float, tally: Tally) -> None:
    """``count`` Connect Watch streams on the victim's table that read their first answer, then nothing more."""
    body = json.dumps({"tableId": victim.table_id}).encode()
    envelope = b"\x00" + len(body).to_bytes(4, "big") + body
    head = (
        f"POST /mazziere.v1.HostService/Watch HTTP/1.1\r\nHost: 127.0.0.1:{place.http_port}\r\n"
        "Content-Type: application/connect+json\r\nConnect-Protocol-Version: 1\r\n"
        f"{CAPABILITY}: {victim.spectators}\r\nX-Forwarded-For: {address}\r\nContent-Length: {len(envelope)}\r\n\r\n"
    ).encode()
    held: list[socket.socket] = []
    for _ in range(count):
        if time.monotonic() >= end:
            break
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        try:
            sock.connect(("127.0.0.1", place.http_port))
            sock.sendall(head + envelope)
            tally.add(_first_answer(sock, min(end, time.monotonic() + 5.0)))
        except OSError:
            tally.add("connection refused or reset")
        held.append(sock)  # an answered stream is held unread; a refused one is closed by the server
    tally.note = f"{tally.outcomes['OK']} held unread"
    time.sleep(max(0.0, end - time.monotonic()))
    for sock in held:
        sock.close()


def _first_answer(sock: socket.socket, until: float) -> str:
    """Reads until the stream's first answer or its end: "OK", or the refusal's code and reason."""
    data = b""
    while time.monotonic() < until:
        ready, _, _ = select.select([sock], [], [], max(0.0, until - time.monotonic()))
        if not ready:
            break
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
        if b'"update"' in data or b'"presence"' in data:
            return "OK"
        if b'"error"' in data or b'"code"' in data:
            code = re.search(rb'"code":\s*"(\w+)"', data)
            reason = re.search(rb'"reason":\s*"([A-Z_]+)"', data)
            return " ".join(m.group(1).decode().upper() for m in (code, reason) if m) or "refused"
    return NO_ANSWER


# -- the victim -----------------------------------------------------------------------------------------------------


class Table:
    """The victim's table: its people's invites, and five Watch streams (the three seats, two spectators) read by
    threads, which keep the latest update of each and wake whoever waits for a seq."""

    def __init__(self, stub: Any) -> None:
        self.stub = stub
        seats = [hpb.HostedSeat(name=name, chips=10) for name in ("Ada", "Bruno", "Carla")]
        opened = stub.OpenTable(
            hpb.OpenTableRequest(game="trentuno", seats=seats, turn_seconds=3600),
            metadata=_metadata(VICTIM),
            timeout=CALL_TIMEOUT,
        )
        self.table_id = opened.table_id
        self.spectators = opened.spectators.capability
        self.invites = {i.seat: i.capability for i in opened.invites}
        self.latest: dict[int, hpb.HostedUpdate] = {}
        self.seen = [-1] * 5
        self.changed = threading.Condition()
        self.streams = [self._watch(capability, w) for w, capability in enumerate(self._watchers())]
        with self.changed:
            if not self.changed.wait_for(lambda: min(self.seen) >= 0, CALL_TIMEOUT):
                raise RuntimeError("the victim's watchers did not connect")

    def _watchers(self) -> list[str]:
        return [self.invites[0], self.invites[1], self.invites[2], self.spectators, self.spectators]

    def _watch(self, capability: str, w: int) -> Any:
        stream = self.stub.Watch(hpb.WatchRequest(table_id=self.table_id), metadata=_metadata(VICTIM, capability))

        def read() -> None:
            with contextlib.suppress(grpc.RpcError):
                for message in stream:
                    if message.HasField("update"):
                        with self.changed:
                            self.seen[w] = max(self.seen[w], message.update.seq)
                            if w < 3:
                                self.latest[w] = message.update
                            self.changed.notify_all()

        threading.Thread(target=read, daemon=True).start()
        return stream

    def play(self) -> float | None:
        """One move of the seat to act; its Play→push seconds (None: the game is over, or the push never came)."""
        with self.changed:
            update = self.latest[0]
            if update.is_over or not update.to_act:
                return None
            seat = update.to_act[0]
            mine = self.latest[seat]
        entry = mine.update.legal_actions[0]
        action = pb.Action(seat=seat, kind=entry.kind, amount=entry.min_amount, cards=entry.cards)
        request = hpb.PlayRequest(table_id=self.table_id, expected_seq=mine.seq, action=action)
        start = time.perf_counter()
        seq = self.stub.Play(request, metadata=_metadata(VICTIM, self.invites[seat]), timeout=CALL_TIMEOUT).update.seq
        with self.changed:
            if not self.changed.wait_for(lambda: min(self.seen) >= seq, PUSH_TIMEOUT):
                return None
        return time.perf_counter() - start

    def close(self) -> None:
        for stream in self.streams:
            stream.cancel()


@dataclass
class Row:
    load: HostLoad
    pushes: list[float] = field(default_factory=list)
    healthz: list[float] = field(default_factory=list)
    victim_refused: Counter[str] = field(default_factory=Counter)
    hostile: Tally | None = None
    growth: tuple[int, int] = (0, 0)
    """The store's growth in the row: bytes, tables."""


def _victim(stub: Any, table: Table, row: Row, end: float) -> Table:
    while time.monotonic() < end:
        try:
            took = table.play()
        except grpc.RpcError as exc:
            row.victim_refused[outcome(exc)[0]] += 1
            time.sleep(1.0)
            continue
        if took is None:
            table.close()
            table = Table(stub)  # the game is over: another
            continue
        row.pushes.append(took)
        time.sleep(PLAY_EVERY)
    return table


def _probe(port: int, row: Row, end: float) -> None:
    while time.monotonic() < end:
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=CALL_TIMEOUT) as answer:
                answer.read()
        except OSError:
            row.victim_refused["/healthz failed"] += 1
        row.healthz.append(time.perf_counter() - start)
        time.sleep(PROBE_EVERY)


def store_usage(data: Path) -> tuple[int, int]:
    """The store's bytes (the database and its write-ahead log) and its tables."""
    size = sum(f.stat().st_size for f in data.glob("tables.db*") if f.suffix != ".lock" and f.exists())
    try:
        with contextlib.closing(sqlite3.connect(f"file:{data / 'tables.db'}?mode=ro", uri=True, timeout=10)) as db:
            tables = int(db.execute("SELECT count(*) FROM tables").fetchone()[0])
    except sqlite3.Error:
        tables = -1
    return size, tables


def run_row(place: Place, load: HostLoad, index: int, seconds: float) -> Row:
    row = Row(load)
    before = store_usage(place.data)
    with grpc.insecure_channel(place.target) as channel:
        stub = host_pb2_grpc.HostServiceStub(channel)
        table = Table(stub)
        hostile = None
        if load.kind:
            context = multiprocessing.get_context("spawn")
            go, out = context.Event(), context.Queue()
            victim = Victim(table.table_id, table.spectators)
            args = (place, load, HOSTILE.format(index), victim, seconds, go, out)
            hostile = context.Process(target=_hostile, args=args, daemon=True)
            hostile.start()
            go.set()
        end = time.monotonic() + seconds
        probe = threading.Thread(target=_probe, args=(place.http_port, row, end))
        probe.start()
        table = _victim(stub, table, row, end)
        probe.join()
        if hostile is not None:
            row.hostile = out.get(timeout=4 * CALL_TIMEOUT)
            hostile.join(CALL_TIMEOUT)
        table.close()
    after = store_usage(place.data)
    row.growth = (after[0] - before[0], after[1] - before[1])
    return row


# -- the server -----------------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving() -> Iterator[Place]:
    """``mazziere serve`` with the documented defaults, trusting 127.0.0.1 as a proxy."""
    exe = shutil.which("mazziere", path=str(Path(sys.executable).parent)) or "mazziere"
    data = Path(tempfile.mkdtemp(prefix="mazziere-bench-host-"))
    place = Place(_free_port(), _free_port(), data)
    env = {name: value for name, value in os.environ.items() if not name.startswith("MAZZIERE_")}
    env |= {
        "MAZZIERE_HOST": "127.0.0.1",
        "MAZZIERE_PORT": str(place.grpc_port),
        "MAZZIERE_REST_HOST": "127.0.0.1",
        "MAZZIERE_REST_PORT": str(place.http_port),
        "MAZZIERE_METRICS_PORT": "0",
        "MAZZIERE_LOG_CALLS": "false",
        "MAZZIERE_SEAL_KEYS": f"bench:{base64.b64encode(os.urandom(32)).decode()}",
        "MAZZIERE_DATA_DIR": str(data),
        "MAZZIERE_TRUSTED_PROXIES": "127.0.0.1/32",
    }
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen([exe, "serve"], env=env, cwd=ROOT, stdout=log, stderr=log)
        try:
            _wait_ready(place, process, log)
            yield place
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            shutil.rmtree(data, ignore_errors=True)


def _wait_ready(place: Place, process: subprocess.Popen[bytes], log: Any) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        ready = f"http://127.0.0.1:{place.http_port}/readyz"
        with contextlib.suppress(OSError), urllib.request.urlopen(ready, timeout=1) as answer:
            if answer.status == 200:
                return
        time.sleep(0.2)
    log.seek(0)
    sys.stderr.write(log.read()[-4000:].decode(errors="replace"))
    raise RuntimeError("the server did not start")


# -- the report -----------------------------------------------------------------------------------------------------


def _bytes(n: int) -> str:
    return f"{n / 1e6:+,.1f} MB" if abs(n) >= 100_000 else f"{n / 1e3:+,.0f} KB"


def report(rows: list[Row]) -> None:
    base = pct(rows[0].pushes, 0.99)
    print("| hostile load | victim Play→push p50/p99 | p99 / baseline | `/healthz` max | hostile calls shed "
          "| store growth |")  # fmt: skip
    print("|---|---:|---:|---:|---|---:|")
    for row in rows:
        pushes = row.pushes
        p50p99 = f"{ms(statistics.median(pushes))}/{ms(pct(pushes, 0.99))} ms" if pushes else "no move"
        ratio = f"{pct(pushes, 0.99) / base:.1f} ×" if pushes and row is not rows[0] else "1"  # noqa: RUF001
        shed = row.hostile.shed() if row.hostile else "n/a"
        growth = f"{_bytes(row.growth[0])}, {row.growth[1]:+,} tables"
        healthz = ms(max(row.healthz, default=0.0))
        print(f"| {row.load.label} | {p50p99} | {ratio} | {healthz} ms | {shed} | {growth} |")
    for row in rows:
        refused = ", ".join(f"{what} {n}" for what, n in row.victim_refused.items())
        said = f"; refused: {refused}" if refused else ""
        print(f"  {row.load.label}: {len(row.pushes)} victim moves pushed{said}")
    _goals(rows)


def _goals(rows: list[Row]) -> None:
    loaded = [row for row in rows[1:] if row.hostile is not None]
    typed = [row for row in loaded if _typed(row.hostile)]
    met = "PASS" if len(typed) == len(loaded) else "MISS"
    print(f"goal: host: every hostile load shed with a typed refusal (RESOURCE_EXHAUSTED or INVALID_ARGUMENT, each "
          f"refusal with its reason): {len(typed)} of {len(loaded)} rows  {met}")  # fmt: skip
    refused = sum(sum(row.victim_refused.values()) for row in rows)
    met = "PASS" if not refused else "MISS"
    print(f"goal: host: the victim's calls and probes never refused: {refused} refused  {met}")
    worst = max(loaded, key=lambda r: pct(r.pushes, 0.99) if r.pushes else float("inf"))
    ratio = pct(worst.pushes, 0.99) / pct(rows[0].pushes, 0.99)
    healthz = ms(max(max(r.healthz, default=0) for r in rows))
    print(f"host: victim Play→push p99 / its baseline, worst row ({worst.load.label}): {ratio:.1f} x; "
          f"`/healthz` max {healthz} ms")  # fmt: skip


TYPED = ("RESOURCE_EXHAUSTED", "INVALID_ARGUMENT", "NOT_FOUND", "PERMISSION_DENIED")
"""The codes of a refusal the caller is meant to read (with a reason): not a failure of the server's."""


def _typed(tally: Tally | None) -> bool:
    """Some of the load was shed (RESOURCE_EXHAUSTED or INVALID_ARGUMENT), and every refusal was typed: a code of
    :data:`TYPED` with its reason."""
    if tally is None:
        return False
    refusals = [what.split() for what in tally.refusals()]
    shed = any(what[0] in TYPED[:2] for what in refusals)
    return shed and all(len(what) == 2 and what[0] in TYPED for what in refusals)


def main(seconds: float) -> None:
    print(f"\nhost: {seconds:g} s per row; {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores")
    rows = []
    with serving() as place:
        for index, load in enumerate(LOADS):
            rows.append(run_row(place, load, index, seconds))
            time.sleep(SETTLE)
    report(rows)
