"""Act calls per second and server CPU per call, beside a trivial echo RPC on the same server stack.

Run by hand (not in CI)::

    .venv/bin/python -m bench.grpc_act

It starts a server process pinned to CPU 0 (``taskset -c 0``) with TableService and a benchmark-only
``mazziere.bench.v1.EchoService`` (registered here, not in the public contract; its handler returns the request it
was given, parsed as an ActRequest, and goes through the same call core as every method: admission, a move worker,
logs and metrics). h2load, pinned to
CPU 1, sends raw gRPC frames: the same sealed-token ``Act`` request every time (the server is stateless, so it
replays the same move on the same state), then an echo of the same body, alternating for ``--rounds``
rounds. Server CPU per call comes from the process's user+system time in /proc. It prints the ratios.
"""

from __future__ import annotations

import argparse
import base64
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import grpc

from bench.act import mid_hand_request
from bench.goals import verdict
from mazziere.services.config import Config

ECHO_SERVICE = "mazziere.bench.v1.EchoService"
GOAL = 0.7
ROOT = Path(__file__).resolve().parent.parent


def _serve(port: int, keys: str, log_calls: bool) -> None:
    from mazziere.services.app import serve_grpc as serve
    from mazziere.services.core.dispatch import Method
    from mazziere.services.core.logs import configure
    from mazziere.services.gen.mazziere.v1 import service_pb2 as svc

    configure("warning" if not log_calls else "info")
    echo = Method(ECHO_SERVICE, "Echo", lambda request, call: request, svc.ActRequest)
    config = replace(
        Config.from_env({}),
        host="127.0.0.1",
        port=port,
        metrics_port=0,
        seal_keys=keys,
        table_calls=1 << 16,  # every call replays one table: no per-table limit here
        log_calls=log_calls,
    )
    serve(config, extra_methods=[echo])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _frame(message: bytes) -> bytes:
    return b"\x00" + struct.pack(">I", len(message)) + message


def _act_request(keys: str) -> bytes:
    """A valid ActRequest in the middle of a Sette e mezzo hand, sealed under the server's keys (``bench.act``)."""
    from mazziere.services.table.sealing import Keyring
    from mazziere.services.table.service import TableService

    return mid_hand_request(TableService(Keyring.parse(keys))).SerializeToString()


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Run:
    calls: int = 0
    seconds: float = 0.0
    cpu: float = 0.0

    @property
    def rate(self) -> float:
        return self.calls / self.seconds

    @property
    def cpu_us(self) -> float:
        return self.cpu / self.calls * 1e6


def _h2load(port: int, path: str, body: Path, requests: int, streams: int, clients: int) -> tuple[int, float]:
    cmd = [
        "taskset", "-c", "1", "h2load", "-n", str(requests), "-c", str(clients), "-m", str(streams),
        "-d", str(body), "-H", "content-type: application/grpc", "-H", "te: trailers",
        f"http://127.0.0.1:{port}{path}",
    ]  # fmt: skip
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    elapsed = time.perf_counter() - start
    ok = 0
    for line in out.splitlines():
        if line.startswith("requests:"):
            ok = int(line.split("succeeded,")[0].split(",")[-1].strip().split()[0])
        if line.startswith("finished in"):
            text = line.split()[2].rstrip(",")
            elapsed = float(text[:-2]) / 1000 if text.endswith("ms") else float(text.rstrip("s"))
    if ok != requests:
        raise RuntimeError(f"h2load: {ok} of {requests} succeeded\n{out}")
    return ok, elapsed


def bench(rounds: int, requests: int, streams: int, clients: int, log_calls: bool) -> dict[str, Any]:
    port = _free_port()
    keys = f"bench:{base64.b64encode(os.urandom(32)).decode()}"
    cmd = ["taskset", "-c", "0", sys.executable, "-m", "bench.grpc_act", "--serve", "--port", str(port)]
    cmd += ["--keys", keys] + (["--log-calls"] if log_calls else [])
    server = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:  # the server is up
            grpc.channel_ready_future(channel).result(timeout=30)
        act = _act_request(keys)
        with tempfile.TemporaryDirectory() as tmp:
            act_body, echo_body = Path(tmp, "act.bin"), Path(tmp, "echo.bin")
            act_body.write_bytes(_frame(act))
            echo_body.write_bytes(_frame(act))
            paths = {"act": ("/mazziere.v1.TableService/Act", act_body), "echo": (f"/{ECHO_SERVICE}/Echo", echo_body)}
            for path, body in paths.values():  # warm up
                _h2load(port, path, body, min(requests, 500), streams, clients)
            runs = {name: Run() for name in paths}
            for _ in range(rounds):
                for name, (path, body) in paths.items():
                    cpu0 = _cpu_seconds(server.pid)
                    n, secs = _h2load(port, path, body, requests, streams, clients)
                    runs[name].cpu += _cpu_seconds(server.pid) - cpu0
                    runs[name].calls += n
                    runs[name].seconds += secs
        return {"payload_bytes": len(act), "act": runs["act"], "echo": runs["echo"]}
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=3000, help="calls per run")
    parser.add_argument("--streams", type=int, default=16, help="calls in flight per connection")
    parser.add_argument("--clients", type=int, default=4, help="connections")
    parser.add_argument("--log-calls", action="store_true", help="log one line per call (as deployed; to /dev/null)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--keys", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        _serve(args.port, args.keys, args.log_calls)
        return 0
    if not shutil.which("h2load") or not shutil.which("taskset"):
        print("needs h2load (apt-get install nghttp2-client) and taskset", file=sys.stderr)
        return 1
    print(
        f"{'server':8} {'payload':>8} {'act/s':>8} {'echo/s':>8} {'ratio':>6} {'act µs':>8} {'echo µs':>8} {'ratio':>6}"
    )
    r = bench(args.rounds, args.requests, args.streams, args.clients, args.log_calls)
    act, echo = r["act"], r["echo"]
    print(
        f"{'grpc':8} {r['payload_bytes']:>7}B {act.rate:>8.0f} {echo.rate:>8.0f} {act.rate / echo.rate:>6.2f} "
        f"{act.cpu_us:>8.0f} {echo.cpu_us:>8.0f} {echo.cpu_us / act.cpu_us:>6.2f}"
    )
    print("ratio columns: Act/echo calls per second, and echo/Act CPU per call (1.0 = Act costs no more than echo)")
    detail = f"{act.rate:,.0f} vs {echo.rate:,.0f} calls/s; {act.cpu_us:.0f} vs {echo.cpu_us:.0f} µs CPU"
    print(verdict("gRPC Act vs echo (calls/s)", act.rate / echo.rate, GOAL, detail=detail))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
