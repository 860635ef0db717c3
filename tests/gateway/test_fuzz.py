"""Fuzzing the REST port: the whole API from its own OpenAPI document (schemathesis), and hostile bodies over
every transport (REST, Connect, gRPC-Web).

Every generated request, valid or not, must get an answer that is not a 5xx, whose status is documented, and
whose body matches the documented schema. Bounded: a fixed number of examples per route, derandomized.

The hostile bodies (seeded) are JSON number strings of every shape in integer fields, bodies that are arrays or
scalars, mutated requests and random protobuf, in envelopes that are right or declare a wrong or huge length,
are cut short, carry unknown flags or come twice. None may make a 5xx (nor a Connect ``internal`` or a gRPC-Web
UNKNOWN or INTERNAL status), and the server's memory stays flat over 5,000 of them.

Two of schemathesis' checks do not apply. ``positive_data_acceptance``: a well-formed request is still refused
(400) when its token or move is not a real one, which random data never is. ``negative_data_rejection``: the
document describes what the gateway prints, and proto3 JSON reads more, as the spec says (``null`` for any
field, the proto field names, numbers for 64-bit integers, enum numbers).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import negative_data_rejection, positive_data_acceptance

from mazziere.services.http.app import create_app
from mazziere.services.http.connect import rpcs
from mazziere.services.http.routes import ROUTES
from tests.gateway.conftest import BASE, Gateway, wait_http
from tests.gateway.test_connect import envelope, frames, trailers
from tests.gateway.test_protojson import ACT, CREATE, mutations, number_shapes
from tests.ports import free_port
from tests.service.test_fuzz import REQUEST_CLASSES, mutate, random_message
from tests.service.test_process import ROOT, server_env
from tests.service.test_wire import rss_mib


class _NoBackend:
    """The document does not depend on the backend; the calls go to the running gateway."""

    async def call(self, rpc: str, request: Any, request_id: str) -> Any:
        raise AssertionError("not called")

    async def ready(self) -> bool:
        return False

    async def close(self) -> None:
        return None


schema = schemathesis.openapi.from_dict(create_app(_NoBackend(), BASE).openapi())


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_the_api_matches_its_document(case: Any, gateway: Gateway) -> None:
    case.call_and_validate(base_url=gateway.url, excluded_checks=[positive_data_acceptance, negative_data_rejection])


# -- hostile bodies over every transport -------------------------------------------------------------------------

PREFIX = "/mazziere.v1.TableService/"
HOSTILE_JSON = [
    b'{"expectedSeq": "--1"}',
    b'{"expectedSeq": "' + b"1" * 4301 + b'"}',
    b'{"expectedSeq": ' + b"1" * 4301 + b"}",
    b'{"expectedSeq": "1e999", "action": {"amount": NaN}}',
    b'{"tableId": "\\ud800"}',
    b'{"action": {"kind": "HIT\\udfff"}}',
    b"[]",
    b"1",
    b'"x"',
    b"null",
    b"true",
]


@pytest.mark.parametrize("body", HOSTILE_JSON, ids=lambda b: b[:24].decode())
def test_hostile_json_is_invalid_argument_on_every_transport(gateway: Gateway, body: bytes) -> None:
    """Once ``"--1"``, 4,301 digits or a lone surrogate were a 500 (over gRPC-Web the REST envelope, not trailers),
    and ``[]`` an empty message (ListGames answered 200)."""
    http = gateway.http
    rest = http.post("/v1/tables:act", content=body, headers={"content-type": "application/json"})
    assert rest.status_code == 400, rest.text
    assert rest.json()["error"]["details"][0]["reason"] == "INVALID_REQUEST"
    for rpc in ("Act", "ListGames"):
        connect = http.post(PREFIX + rpc, content=body, headers={"content-type": "application/json"})
        assert connect.status_code == 400 and connect.json()["code"] == "invalid_argument", connect.text
        web = http.post(PREFIX + rpc, content=envelope(body), headers={"content-type": "application/grpc-web+json"})
        assert web.status_code == 200 and web.headers["content-type"] == "application/grpc-web+json"
        [(flags, payload)] = frames(web.content)
        assert flags == 0x80 and trailers(payload)["grpc-status"] == "3", payload


TEMPLATES: dict[str, list[str]] = {
    "ListGames": ['{"unknown": %s}'],
    "CreateTable": [
        '{"game": "sette_e_mezzo", "seats": [{"name": "a", "chips": %s}, {"name": "b", "chips": "9"}]}',
        '{"game": "trentuno", "options": {"trentuno": {"ante": %s}}, "seats": [{"name": "a"}, {"name": "b"}]}',
    ],
    "Act": ['{"tableId": "t_1", "expectedSeq": %s}', '{"action": {"seat": %s, "kind": "HIT"}}', '{"autoSeat": %s}'],
    "GetView": ['{"tableId": "t_1", "seat": %s}'],
    "Replay": [
        '{"create": {"game": "trentuno", "seats": [{"name": "a"}]}, "actions": [{"kind": "DEAL", "amount": %s}]}'
    ],
    "Advise": ['{"samples": %s}', '{"seat": %s, "seatKey": "k"}'],
    "Gather": ['{"tableId": "t_1", "state": %s}'],
}
TEMPLATES["StreamReplay"] = TEMPLATES["Replay"]
NOT_OBJECTS = [b"[]", b"[{}]", b"1", b"-0", b"1e999", b'""', b'"x"', b"null", b"true", b"[" * 5000, b'{"a":' * 5000]
JSON_SEEDS = [json.dumps(ACT).encode(), json.dumps(CREATE).encode()]
REST_PATHS = {route.rpc: route.path for route in ROUTES if route.http_method == "POST"}
BAD_CONNECT = {"internal", "unknown", "data_loss"}
BAD_GRPC = {"2", "13", "15"}  # UNKNOWN, INTERNAL, DATA_LOSS


def hostile_json(rpc: str, rng: random.Random, shapes: list[str]) -> bytes:
    """A number of any shape in an integer field, a body that is no object, a mutated request, or garbage."""
    roll = rng.random()
    if roll < 0.5:
        return (rng.choice(TEMPLATES[rpc]) % rng.choice(shapes)).encode()
    if roll < 0.65:
        return rng.choice(NOT_OBJECTS)
    if roll < 0.9:
        return json.dumps(mutations(rng.choice([ACT, CREATE]), rng)).encode()
    return mutate(rng.choice(JSON_SEEDS), rng, JSON_SEEDS)


def hostile_proto(rpc: str, rng: random.Random) -> bytes:
    message = random_message(REQUEST_CLASSES[rpc], rng).SerializeToString()
    return message if rng.random() < 0.5 else mutate(message, rng, [message, b"\x0a\x05trent"])


def framed(payload: bytes, rng: random.Random) -> bytes:
    """Mostly one right envelope; else a wrong or huge declared length, a truncated frame, unknown or compressed
    flags, or two frames."""
    roll = rng.random()
    if roll < 0.5:
        return envelope(payload)
    if roll < 0.65:
        declared = rng.choice([0xFFFFFFFF, 0x7FFFFFFF, len(payload) + 1, max(len(payload) - 1, 0), 0])
        return b"\x00" + declared.to_bytes(4, "big") + payload
    if roll < 0.8:
        whole = envelope(payload)
        return whole[: rng.randrange(len(whole))]
    if roll < 0.92:
        return envelope(payload, rng.choice([0x01, 0x02, 0x04, 0x7F, 0x80, 0xFF]))
    return envelope(payload) + rng.choice([envelope(payload), envelope(b"grpc-status: 0\r\n", 0x80), b"\x00"])


def flagged_compressed(body: bytes, resp: httpx.Response) -> bool:
    """A message flagged compressed though no encoding was declared: ``internal``, the Connect and gRPC specs'
    protocol error (as their reference servers and the conformance suite have it), the one bad input that is."""
    return body[:1] == b"\x01" and b"flagged compressed, but no encoding was declared" in resp.content


def connect_unary_ok(resp: httpx.Response) -> bool:
    return resp.status_code == 200 or resp.json().get("code") not in BAD_CONNECT


def last_frame(body: bytes) -> tuple[int, bytes]:
    flags, payload = 0, b""
    while len(body) >= 5:
        size = int.from_bytes(body[1:5], "big")
        flags, payload, body = body[0], body[5 : 5 + size], body[5 + size :]
    return flags, payload


def grpc_web_ok(resp: httpx.Response) -> bool:
    flags, payload = last_frame(resp.content)
    return resp.status_code == 200 and flags == 0x80 and trailers(payload).get("grpc-status") not in BAD_GRPC


def connect_stream_ok(resp: httpx.Response) -> bool:
    flags, payload = last_frame(resp.content)
    code = json.loads(payload).get("error", {}).get("code") if flags == 0x02 else None
    return resp.status_code == 200 and flags == 0x02 and code not in BAD_CONNECT


def bodies(rng: random.Random, shapes: list[str]) -> Iterator[tuple[str, bytes, str, Any]]:
    """Endlessly: (path, body, content type, the check of its answer), over REST, Connect and gRPC-Web."""
    unary = [r for r in rpcs() if not r.streaming]
    while True:
        rpc = rng.choice(rpcs())
        transport = rng.randrange(5)
        if transport == 0 and rpc.name in REST_PATHS:
            yield REST_PATHS[rpc.name], hostile_json(rpc.name, rng, shapes), "application/json", None
        elif transport == 1:
            name = rng.choice(unary).name
            if rng.random() < 0.7:
                yield PREFIX + name, hostile_json(name, rng, shapes), "application/json", connect_unary_ok
            else:
                yield PREFIX + name, hostile_proto(name, rng), "application/proto", connect_unary_ok
        elif transport == 2:
            payload = hostile_json("StreamReplay", rng, shapes)
            yield PREFIX + "StreamReplay", framed(payload, rng), "application/connect+json", connect_stream_ok
        elif transport == 3:
            payload = hostile_proto("StreamReplay", rng)
            yield PREFIX + "StreamReplay", framed(payload, rng), "application/connect+proto", connect_stream_ok
        elif rng.random() < 0.6:
            payload = hostile_json(rpc.name, rng, shapes)
            yield PREFIX + rpc.name, framed(payload, rng), "application/grpc-web+json", grpc_web_ok
        else:
            content_type = rng.choice(["application/grpc-web", "application/grpc-web+proto"])
            yield PREFIX + rpc.name, framed(hostile_proto(rpc.name, rng), rng), content_type, grpc_web_ok


def server_errors(metrics_port: int) -> float:
    """The HTTP answers of status 5xx the gateway counted."""
    text = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).text
    lines = [
        line for line in text.splitlines() if line.startswith("mazziere_http_requests_total{") and 'status="5' in line
    ]
    return sum(float(line.rsplit(" ", 1)[1]) for line in lines)


WARM_UP = 1000
MEASURED = 5000


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads RSS from /proc")
def test_hostile_bodies_over_every_transport_never_make_a_5xx_and_leave_memory_flat(tmp_path: Path) -> None:
    """Seeded: 1,000 bodies to warm up, then 5,000 measured, to ``mazziere serve``'s REST port (its memo of recent
    tokens off, a bounded cache that valid CreateTable bodies would fill)."""
    rest, metrics_port = free_port(), free_port()
    env = server_env(free_port(), metrics_port, rest_port=str(rest), rest_host="127.0.0.1", log_calls="false",
                     recent_tokens="0")  # fmt: skip
    log = tmp_path / "server.log"
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "mazziere.services.cli", "serve"], env=env, cwd=ROOT, stderr=err)
    rng = random.Random(20261201)
    generated = bodies(rng, number_shapes())
    statuses: dict[int, int] = {}
    try:
        wait_http(f"http://127.0.0.1:{rest}/readyz")
        with httpx.Client(base_url=f"http://127.0.0.1:{rest}", timeout=20) as http:

            def send(count: int) -> None:
                for _ in range(count):
                    path, body, content_type, ok = next(generated)
                    resp = http.post(path, content=body, headers={"content-type": content_type})
                    statuses[resp.status_code] = statuses.get(resp.status_code, 0) + 1
                    assert resp.status_code < 500, (path, content_type, body[:200], resp.text[:300])
                    good = ok is None or ok(resp) or flagged_compressed(body, resp)
                    assert good, (path, content_type, body[:200], resp.content[-300:])

            send(WARM_UP)
            before = rss_mib(proc.pid)
            send(MEASURED)
            grown = rss_mib(proc.pid) - before
        assert grown < 15, f"RSS grew {grown:.1f} MiB over {MEASURED:,} hostile bodies"
        # Refusals over REST and Connect unary (400), and gRPC-Web and Connect streams (200, refusals in trailers).
        assert statuses.get(400, 0) > 1000 and statuses.get(200, 0) > 1000, statuses
        assert server_errors(metrics_port) == 0
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert "http_failed" not in log.read_text()
