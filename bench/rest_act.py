"""REST ``act`` requests per second and server CPU per request, beside a trivial FastAPI echo on the same server.

Run by hand (not in CI)::

    apt-get install -y wrk
    .venv/bin/python -m bench.rest_act --rounds 3 --seconds 5

For each way the embedded gateway can reach the service (``inprocess``: it calls the handlers directly;
``channel``: over a local gRPC channel to the thread-pool server in the same process) it starts one server
process pinned to CPU 0 (``taskset -c 0``): the real gateway (``create_app``, with its middleware) plus one
benchmark-only route, ``POST /bench/echo``, that returns the request body. wrk, pinned to CPU 1, keeps
``--connections`` requests in flight: the same ``POST /v1/tables:act`` every time (the server is stateless, so it
replays the same move on the same sealed state), then an echo of a body of the same size, alternating for
``--rounds`` rounds. Server CPU per request comes from the process's user+system time in /proc. Every answer
must be a 200. It prints the median of the rounds and the ratios.

``--connect`` also sends the same ``Act`` as a Connect unary call (``POST /mazziere.v1.TableService/Act``, the
seat key in the body) with a JSON body and with a protobuf body, in the same rounds, and prints each beside REST.

``--backends`` also times the two backends alone, without HTTP (``InProcessBackend.call`` against
``ChannelBackend.call`` to a thread-pool server in the same process, one call in flight, pinned to CPU 0).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fastapi import Request, Response

from bench.goals import verdict

ROOT = Path(__file__).resolve().parent.parent
GAME, SEATS, WARMUP_MOVES = "sette_e_mezzo", 4, 6


def _serve(port: int, keys: str, embedded: str, log_calls: bool) -> None:
    import uvloop

    from mazziere.services.app import App
    from mazziere.services.config import Config
    from mazziere.services.core.logs import configure
    from mazziere.services.http.server import RestServer, bind

    configure("info" if log_calls else "warning")
    config = replace(
        Config.from_env({}),
        host="127.0.0.1",
        port=0,
        metrics_port=0,
        rest_host="127.0.0.1",
        rest_port=port,
        seal_keys=keys,
        table_calls=1 << 16,  # every call replays one table: no per-table limit here
        log_calls=log_calls,
        gateway_embedded=embedded,
    )
    app = App(config)

    async def run() -> None:
        await app.grpc.start()
        gateway = app.rest()

        @gateway.post("/bench/echo", include_in_schema=False)
        async def echo(request: Request) -> Response:
            return Response(await request.body(), media_type="application/json")

        await RestServer(gateway, bind("127.0.0.1", port)).run_on_socket()

    uvloop.run(run())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _post(url: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json", **(headers or {})}
    )
    with urllib.request.urlopen(request, timeout=10) as resp:
        result: dict[str, Any] = json.loads(resp.read())
        return result


def act_request(base: str) -> tuple[bytes, str]:
    """A mid-hand Sette e mezzo Act body (and the acting seat's key), reached by a few random legal moves."""
    seats = [{"name": f"p{i}", "chips": "100"} for i in range(SEATS)]
    created = _post(f"{base}/v1/tables", {"game": GAME, "seats": seats, "seed": base64.b64encode(b"bench").decode()})
    keys = {k.get("seat", 0): k["key"] for k in created["seatKeys"]}
    table, state, seq, to_act = created["tableId"], created["state"], created.get("seq", "0"), created["toAct"]
    rng = random.Random(2)
    for move in range(WARMUP_MOVES + 1):
        seat = to_act[0]
        view = _post(
            f"{base}/v1/tables:view", {"tableId": table, "state": state, "seat": seat}, {"X-Seat-Key": keys[seat]}
        )
        legal = view["update"]["legalActions"]
        entry = next((e for e in legal if e["kind"] == "HIT"), rng.choice(legal))
        action = {"seat": seat, "kind": entry["kind"], "amount": entry.get("minAmount", "0")}
        body = {"tableId": table, "state": state, "expectedSeq": seq, "action": action}
        if move == WARMUP_MOVES:
            return json.dumps(body, separators=(",", ":")).encode(), keys[seat]
        answer = _post(f"{base}/v1/tables:act", body, {"X-Seat-Key": keys[seat]})
        state, seq, to_act = answer["state"], answer.get("seq", "0"), answer["toAct"]
    raise AssertionError("unreachable")


@dataclass
class Run:
    rate: float
    cpu_us: float
    requests: int


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wrk(url: str, script: Path, seconds: int, connections: int, pid: int) -> Run:
    before = _cpu_seconds(pid)
    out = subprocess.run(
        ["taskset", "-c", "1", "wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "-s", str(script), url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    cpu = _cpu_seconds(pid) - before
    requests = int(next(line for line in out.splitlines() if " requests in " in line).split()[0])
    if "Non-2xx or 3xx responses" in out:
        raise RuntimeError(f"some answers were not 200:\n{out}")
    rate = float(next(line for line in out.splitlines() if line.startswith("Requests/sec:")).split()[1])
    return Run(rate, cpu / max(requests, 1) * 1e6, requests)


def _script(
    folder: Path, name: str, body: bytes, headers: dict[str, str], content_type: str = "application/json"
) -> Path:
    lines = ['wrk.method = "POST"', f'wrk.headers["Content-Type"] = "{content_type}"']
    lines += [f'wrk.headers["{k}"] = "{v}"' for k, v in headers.items()]
    lines.append('wrk.body = "' + "".join(f"\\{b}" for b in body) + '"')  # decimal escapes: any bytes
    path = folder / f"{name}.lua"
    path.write_text("\n".join(lines) + "\n")
    return path


CONNECT_ACT = "/mazziere.v1.TableService/Act"


def connect_bodies(body: bytes, key: str) -> dict[str, bytes]:
    """The REST Act body as Connect unary bodies: JSON and protobuf, the seat key in the body as over gRPC."""
    from google.protobuf import json_format

    from mazziere.services.gen.mazziere.v1 import service_pb2 as svc

    data = {**json.loads(body), "seatKey": key}
    proto = json_format.ParseDict(data, svc.ActRequest()).SerializeToString()
    return {"connect_json": json.dumps(data, separators=(",", ":")).encode(), "connect_proto": proto}


def bench(
    embedded: str, rounds: int, seconds: int, connections: int, log_calls: bool, connect: bool = False
) -> dict[str, Any]:
    port = _free_port()
    keys = f"bench:{base64.b64encode(os.urandom(32)).decode()}"
    command = [sys.executable, "-m", "bench.rest_act", "--serve", "--port", str(port), "--keys", keys]
    command += ["--embedded", embedded] + (["--log-calls"] if log_calls else [])
    server = subprocess.Popen(
        ["taskset", "-c", "0", *command], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=1).read()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.2)
        body, key = act_request(base)
        echo_body = json.dumps({"echo": "x" * (len(body) - 11)}, separators=(",", ":")).encode()
        assert len(echo_body) == len(body)
        with tempfile.TemporaryDirectory() as tmp:
            targets = {
                "act": (f"{base}/v1/tables:act", _script(Path(tmp), "act", body, {"X-Seat-Key": key})),
                "echo": (f"{base}/bench/echo", _script(Path(tmp), "echo", echo_body, {})),
            }
            if connect:
                for name, data in connect_bodies(body, key).items():
                    media = "application/" + name.removeprefix("connect_")
                    targets[name] = (base + CONNECT_ACT, _script(Path(tmp), name, data, {}, media))
            for url, lua in targets.values():  # warm up each
                _wrk(url, lua, 1, connections, server.pid)
            runs: dict[str, list[Run]] = {name: [] for name in targets}
            for i in range(rounds):
                order = list(targets) if i % 2 == 0 else list(reversed(targets))
                for name in order:
                    url, lua = targets[name]
                    runs[name].append(_wrk(url, lua, seconds, connections, server.pid))
    finally:
        server.terminate()
        server.wait(10)
    return {
        "payload_bytes": len(body),
        **{
            name: Run(
                statistics.median(r.rate for r in rs),
                statistics.median(r.cpu_us for r in rs),
                sum(r.requests for r in rs),
            )
            for name, rs in runs.items()
        },
    }


def _backends(rounds: int, calls: int) -> None:
    import asyncio

    from mazziere.services.app import App
    from mazziere.services.config import Config
    from mazziere.services.core.backend import InProcessBackend
    from mazziere.services.core.call import Call
    from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
    from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
    from mazziere.services.grpc.server import ServerThread
    from mazziere.services.table.channel import ChannelBackend
    from mazziere.services.table.methods import TABLE_SERVICE

    os.sched_setaffinity(0, {0})
    keys = f"bench:{base64.b64encode(os.urandom(32)).decode()}"
    config = replace(Config.from_env({}), host="127.0.0.1", port=0, metrics_port=0, log_calls=False, seal_keys=keys)
    app = App(config)
    server = ServerThread(app.grpc)
    port = server.start()
    seats = [pb.Seat(name=f"p{i}", chips=100) for i in range(SEATS)]
    created = app.table.create_table(svc.CreateTableRequest(game=GAME, seed=b"bench", seats=seats), Call())
    seat = created.to_act[0]
    key = next(k.key for k in created.seat_keys if k.seat == seat)
    request = svc.ActRequest(
        table_id=created.table_id, state=created.state, action=pb.Action(seat=seat, kind="DEAL"), seat_key=key
    )

    async def ready() -> bool:
        return True

    async def cost(backend: Any) -> float:
        for _ in range(100):
            await backend.call("Act", request, Call(metadata=[("x-request-id", "bench")]))
        start = time.process_time()
        for _ in range(calls):
            await backend.call("Act", request, Call(metadata=[("x-request-id", "bench")]))
        return (time.process_time() - start) / calls * 1e6

    async def run() -> None:
        inprocess = InProcessBackend(app.dispatcher, TABLE_SERVICE, timeout=10, ready=ready)
        channel = ChannelBackend(f"127.0.0.1:{port}", timeout=10, max_message_bytes=1 << 20, write_seconds=10)
        for _ in range(rounds):
            a, b = await cost(inprocess), await cost(channel)
            print(f"backend alone: inprocess {a:.0f} µs CPU/call, channel {b:.0f} µs CPU/call")
        await channel.close()

    asyncio.run(run())
    server.shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--embedded", action="append", choices=["inprocess", "channel"], help="default: both")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=5, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=32, help="requests in flight (one per connection)")
    parser.add_argument("--log-calls", action="store_true", help="log one JSON line per request (to /dev/null)")
    parser.add_argument("--backends", action="store_true", help="also time the two backends alone, without HTTP")
    parser.add_argument("--connect", action="store_true", help="also the same Act over the Connect protocol")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--keys", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        _serve(args.port, args.keys, (args.embedded or ["inprocess"])[0], args.log_calls)
        return 0
    if not shutil.which("wrk") or not shutil.which("taskset"):
        print("needs wrk (apt-get install -y wrk) and taskset", file=sys.stderr)
        return 1
    print(
        f"{'gateway':10} {'body':>6} {'act/s':>8} {'echo/s':>8} {'ratio':>6} {'act µs':>8} {'echo µs':>8} {'ratio':>6}"
    )
    ratios, details = {}, {}
    for embedded in args.embedded or ["inprocess", "channel"]:
        r = bench(embedded, args.rounds, args.seconds, args.connections, args.log_calls, args.connect)
        act, echo = r["act"], r["echo"]
        ratios[embedded] = act.rate / echo.rate
        details[embedded] = f"{act.rate:,.0f} vs {echo.rate:,.0f} req/s; {act.cpu_us:.0f} vs {echo.cpu_us:.0f} µs CPU"
        print(
            f"{embedded:10} {r['payload_bytes']:>5}B {act.rate:>8.0f} {echo.rate:>8.0f} {act.rate / echo.rate:>6.2f} "
            f"{act.cpu_us:>8.0f} {echo.cpu_us:>8.0f} {echo.cpu_us / act.cpu_us:>6.2f}"
        )
        for name in ("connect_json", "connect_proto"):
            if name in r:
                c = r[name]
                print(
                    f"  {name:14} act/s {c.rate:>6.0f} ({c.rate / act.rate:.2f}x REST), "
                    f"{c.cpu_us:.0f} µs CPU/act ({c.cpu_us / act.cpu_us:.2f}x REST)"
                )
    print("ratio columns: act/echo requests per second, and echo/act server CPU per request (medians of the rounds)")
    if "inprocess" in ratios:
        what = "REST act vs FastAPI echo (requests/s, embedded default)"
        print(verdict(what, ratios["inprocess"], GOAL, detail=details["inprocess"]))
    if args.backends:
        _backends(args.rounds, 1500)
    return 0


GOAL = 0.6


if __name__ == "__main__":
    raise SystemExit(main())
