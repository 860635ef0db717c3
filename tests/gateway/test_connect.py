"""The Connect protocol and gRPC-Web on the REST port: ``/mazziere.v1.TableService/<RPC>``.

Bodies and frames are built by hand here, from the protocols' specifications; ``buf curl`` (an independent
implementation) checks both protocols end to end, and the TypeScript client's test plays over connect-web.
"""

from __future__ import annotations

import base64
import json
import random
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2
from prometheus_client import generate_latest

from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.http.connect import rpcs
from tests.gateway.conftest import ORIGIN, Gateway
from tests.gateway.helpers import replay_places_taken

PREFIX = "/mazziere.v1.TableService/"
ROOT = Path(__file__).resolve().parents[2]
CREATE = {
    "game": "sette_e_mezzo",
    "seats": [{"name": "a", "chips": "50"}, {"name": "b", "chips": "50"}],
    "seed": "c2Vk",
}
REPLAY = {"create": CREATE, "actions": [{"kind": "DEAL"}]}


def envelope(payload: bytes, flags: int = 0) -> bytes:
    return bytes([flags]) + len(payload).to_bytes(4, "big") + payload


def frames(body: bytes) -> list[tuple[int, bytes]]:
    """The (flags, payload) of every envelope of a body; the body must hold whole envelopes only."""
    out = []
    while body:
        size = int.from_bytes(body[1:5], "big")
        assert len(body) >= 5 + size, "a truncated envelope"
        out.append((body[0], body[5 : 5 + size]))
        body = body[5 + size :]
    return out


def unpadded_b64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


def post(gw: Gateway, rpc: str, body: bytes, content_type: str, **headers: str) -> httpx.Response:
    return gw.http.post(PREFIX + rpc, content=body, headers={"content-type": content_type, **headers})


def connect_error(resp: httpx.Response) -> tuple[int, str, str]:
    """(HTTP status, Connect code, ErrorInfo reason) of a Connect unary error, the ErrorInfo read from its bytes."""
    assert resp.headers["content-type"] == "application/json", resp.headers
    body = resp.json()
    reason = ""
    for detail in body.get("details", []):
        if detail["type"] == "google.rpc.ErrorInfo":
            info = error_details_pb2.ErrorInfo.FromString(unpadded_b64(detail["value"]))
            assert info.domain == "mazziere.v1" and detail["debug"]["reason"] == info.reason
            reason = info.reason
    return resp.status_code, body["code"], reason


def trailers(payload: bytes) -> dict[str, str]:
    lines = payload.decode().split("\r\n")
    return dict(line.split(": ", 1) for line in lines if line)


def create(gw: Gateway) -> svc.CreateTableResponse:
    """A table made over Connect with a protobuf body (its twin over JSON checked on the way)."""
    resp = post(gw, "CreateTable", json.dumps(CREATE).encode(), "application/json")
    assert resp.status_code == 200 and resp.json()["tableId"].startswith("t_"), resp.text
    request = json_format.ParseDict(CREATE, svc.CreateTableRequest())
    proto = post(gw, "CreateTable", request.SerializeToString(), "application/proto")
    assert proto.headers["content-type"] == "application/proto"
    return svc.CreateTableResponse.FromString(proto.content)


def act(created: svc.CreateTableResponse, seq: int, key: str) -> bytes:
    action = {"seat": created.to_act[0], "kind": "DEAL"}
    body = {"tableId": created.table_id, "expectedSeq": str(seq), "action": action, "seatKey": key}
    request = json_format.ParseDict(body, svc.ActRequest())
    request.state = created.state
    return request.SerializeToString()


# -- Connect unary ----------------------------------------------------------------------------------


def test_every_rpc_of_the_service_is_served() -> None:
    assert {r.name: r.streaming for r in rpcs()} == {
        m.name: m.server_streaming for m in svc.DESCRIPTOR.services_by_name["TableService"].methods
    }


def test_unary_json_answers_what_rest_answers(gateway: Gateway) -> None:
    resp = post(gateway, "ListGames", b"{}", "application/json", **{"Connect-Protocol-Version": "1"})
    assert resp.status_code == 200 and resp.headers["content-type"] == "application/json"
    assert resp.json() == gateway.http.get("/v1/games").json()


def test_unary_proto_plays_an_action_with_the_seat_key_in_the_body(gateway: Gateway) -> None:
    created = create(gateway)
    seat = created.to_act[0]
    key = next(k.key for k in created.seat_keys if k.seat == seat)
    resp = post(gateway, "Act", act(created, created.seq, key), "application/proto")
    assert resp.status_code == 200, resp.text
    answer = svc.ActResponse.FromString(resp.content)
    assert answer.seq == created.seq + 1 and answer.state != created.state


def test_refusals_carry_the_code_and_error_info(gateway: Gateway) -> None:
    created = create(gateway)
    seat = created.to_act[0]
    key = next(k.key for k in created.seat_keys if k.seat == seat)
    stale = post(gateway, "Act", act(created, created.seq + 3, key), "application/proto")
    assert connect_error(stale) == (409, "aborted", "STALE_SEQUENCE")
    keyless = post(gateway, "Act", act(created, created.seq, ""), "application/proto")
    assert connect_error(keyless) == (403, "permission_denied", "SEAT_KEY_MISSING")
    unknown = post(gateway, "CreateTable", b'{"game":"nope"}', "application/json")
    assert connect_error(unknown) == (400, "invalid_argument", "UNKNOWN_GAME")
    assert "nope" in unknown.json()["message"]


def test_the_split_gateway_gives_the_same_answers(split: Gateway) -> None:
    assert post(split, "ListGames", b"", "application/proto").status_code == 200
    assert connect_error(post(split, "CreateTable", b'{"game":"x"}', "application/json"))[1:] == (
        "invalid_argument",
        "UNKNOWN_GAME",
    )


def test_a_timeout_of_zero_is_deadline_exceeded(gateway: Gateway) -> None:
    resp = post(gateway, "ListGames", b"", "application/proto", **{"Connect-Timeout-Ms": "0"})
    assert connect_error(resp)[:2] == (504, "deadline_exceeded")
    web = post(gateway, "ListGames", envelope(b""), "application/grpc-web+proto", **{"Grpc-Timeout": "0n"})
    assert trailers(frames(web.content)[-1][1])["grpc-status"] == "4"


def test_an_overloaded_service_is_resource_exhausted_with_retry_info(gateway: Gateway) -> None:
    with replay_places_taken(gateway.app.dispatcher.admission):
        resp = post(gateway, "Replay", json.dumps(REPLAY).encode(), "application/json")
        assert connect_error(resp) == (429, "resource_exhausted", "OVERLOADED")
        assert resp.headers["retry-after"] == "1"
        retry = next(d for d in resp.json()["details"] if d["type"] == "google.rpc.RetryInfo")
        assert error_details_pb2.RetryInfo.FromString(unpadded_b64(retry["value"])).retry_delay.seconds == 1
        streamed = post(gateway, "StreamReplay", envelope(json.dumps(REPLAY).encode()), "application/connect+json")
        assert streamed.status_code == 200
        (flags, end), *_ = frames(streamed.content)
        assert flags == 2 and json.loads(end)["error"]["code"] == "resource_exhausted"


# -- Connect streaming ------------------------------------------------------------------------------


def test_stream_replay_sends_enveloped_steps_and_an_end(gateway: Gateway) -> None:
    rest = gateway.http.post("/v1/tables:streamReplay", json=REPLAY).text.splitlines()
    as_json = post(gateway, "StreamReplay", envelope(json.dumps(REPLAY).encode()), "application/connect+json")
    assert as_json.status_code == 200 and as_json.headers["content-type"] == "application/connect+json"
    *steps, (end_flags, end) = frames(as_json.content)
    assert [json.loads(p) for _, p in steps] == [json.loads(line) for line in rest]
    assert {f for f, _ in steps} == {0} and (end_flags, json.loads(end)) == (2, {})
    request = json_format.ParseDict(REPLAY, svc.StreamReplayRequest())
    as_proto = post(gateway, "StreamReplay", envelope(request.SerializeToString()), "application/connect+proto")
    *proto_steps, _ = frames(as_proto.content)
    assert len(proto_steps) == len(rest) == 2
    assert svc.StreamReplayResponse.FromString(proto_steps[-1][1]).step.seq == 1


def test_a_refused_stream_ends_with_the_error(gateway: Gateway) -> None:
    bad = {"create": {**CREATE, "game": "nope"}}
    resp = post(gateway, "StreamReplay", envelope(json.dumps(bad).encode()), "application/connect+json")
    assert resp.status_code == 200
    [(flags, end)] = frames(resp.content)
    error = json.loads(end)["error"]
    assert flags == 2 and error["code"] == "invalid_argument"
    assert error["details"][0]["debug"]["reason"] == "UNKNOWN_GAME"


# -- gRPC-Web ---------------------------------------------------------------------------------------


def test_grpc_web_unary_and_streaming_frames(gateway: Gateway) -> None:
    resp = post(gateway, "ListGames", envelope(b""), "application/grpc-web+proto", **{"X-Grpc-Web": "1"})
    assert resp.status_code == 200 and resp.headers["content-type"] == "application/grpc-web+proto"
    (data_flags, data), (trailer_flags, trailer) = frames(resp.content)
    assert (data_flags, trailer_flags) == (0, 0x80) and trailers(trailer) == {"grpc-status": "0"}
    assert {g.id for g in svc.ListGamesResponse.FromString(data).games} == {"sette_e_mezzo", "saltacavallo", "trentuno"}
    streamed = post(gateway, "StreamReplay", envelope(json.dumps(REPLAY).encode()), "application/grpc-web+json")
    assert [f for f, _ in frames(streamed.content)] == [0, 0, 0x80]


def test_grpc_web_errors_are_trailers_with_the_rich_status(gateway: Gateway) -> None:
    resp = post(gateway, "CreateTable", envelope(b'{"game":"n\\u00f6pe"}'), "application/grpc-web+json")
    [(flags, payload)] = frames(resp.content)
    found = trailers(payload)
    assert flags == 0x80 and found["grpc-status"] == "3"
    assert "%C3%B6" in found["grpc-message"]  # percent-encoded, as the gRPC spec asks
    status = status_pb2.Status.FromString(unpadded_b64(found["grpc-status-details-bin"]))  # unpadded, as gRPC asks
    info = error_details_pb2.ErrorInfo()
    assert status.code == 3 and status.details[0].Unpack(info) and info.reason == "UNKNOWN_GAME"


# -- bad input --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rpc", "body", "content_type", "expected"),
    [
        ("CreateTable", b"\xff\xff\xff", "application/proto", (400, "invalid_argument", "INVALID_REQUEST")),
        ("CreateTable", b"{", "application/json", (400, "invalid_argument", "INVALID_REQUEST")),
        ("CreateTable", b'{"bogus":1}', "application/json", (400, "invalid_argument", "INVALID_REQUEST")),
        ("ListGames", b"x" * (64 * 1024 + 1), "application/proto", (429, "resource_exhausted", "")),
    ],
)
def test_bad_input_is_a_clear_connect_error(
    gateway: Gateway, rpc: str, body: bytes, content_type: str, expected: tuple[int, str, str]
) -> None:
    assert connect_error(post(gateway, rpc, body, content_type)) == expected


@pytest.mark.parametrize(
    ("rpc", "body", "content_type"),
    [
        ("CreateTable", b"{}", "text/plain"),
        ("CreateTable", b"{}", ""),
        ("CreateTable", envelope(b""), "application/grpc"),
        ("ListGames", envelope(b"{}"), "application/connect+json"),
        ("StreamReplay", b"{}", "application/json"),
    ],
)
def test_a_content_type_of_no_protocol_is_a_plain_415(
    gateway: Gateway, rpc: str, body: bytes, content_type: str
) -> None:
    """No protocol's error (a Connect client makes ``unknown`` of the status), with the types it takes."""
    resp = post(gateway, rpc, body, content_type)
    assert resp.status_code == 415 and resp.headers["content-type"].startswith("text/plain"), resp.text
    assert f"{rpc} takes Content-Type application/" in resp.text
    assert "application/" in resp.headers["accept-post"]


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_a_connect_route_answers_other_methods_with_a_plain_405(gateway: Gateway, method: str) -> None:
    resp = gateway.http.request(method, PREFIX + "ListGames")
    assert (resp.status_code, resp.headers["allow"]) == (405, "POST")
    assert resp.headers["content-type"].startswith("text/plain"), resp.text


@pytest.mark.parametrize(
    ("headers", "body", "code"),
    [
        ({"Connect-Content-Encoding": "gzip"}, envelope(b"{}"), "unimplemented"),
        ({}, envelope(b"{}", flags=1), "internal"),  # flagged compressed, with no encoding: the specs' protocol error
        ({}, envelope(b"{}", flags=2), "invalid_argument"),
        ({}, envelope(b"{}")[:-1], "invalid_argument"),
        ({}, b"", "unimplemented"),  # a server-streaming method takes exactly one message
        ({}, envelope(b"{}") * 2, "unimplemented"),
        ({"Connect-Timeout-Ms": "soon"}, envelope(b"{}"), "invalid_argument"),
        ({"Connect-Protocol-Version": "2"}, envelope(b"{}"), "invalid_argument"),
    ],
)
def test_bad_envelopes_and_headers_end_the_stream_with_an_error(
    gateway: Gateway, headers: dict[str, str], body: bytes, code: str
) -> None:
    resp = post(gateway, "StreamReplay", body, "application/connect+json", **headers)
    [(flags, end)] = frames(resp.content)
    assert (resp.status_code, flags, json.loads(end)["error"]["code"]) == (200, 2, code)


def test_random_bodies_never_fail_the_server(gateway: Gateway) -> None:
    """Random and mutated bodies to every RPC over every protocol: a typed answer each time, never a 5xx."""
    rng = random.Random(7)
    seed = json.dumps(REPLAY).encode()
    types = ["application/proto", "application/json", "application/connect+proto", "application/grpc-web+json"]
    for i in range(120):
        rpc = rng.choice(rpcs())
        raw = bytearray(seed)
        for _ in range(rng.randint(0, 6)):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        body = bytes(raw) if i % 3 else rng.randbytes(rng.randint(0, 64))
        content_type = rng.choice(types)
        if "+" in content_type and i % 2:
            body = envelope(body)
        resp = post(gateway, rpc.name, body, content_type)
        assert resp.status_code < 500, (rpc.name, content_type, body, resp.text)


# -- CORS, metrics, buf curl ------------------------------------------------------------------------


def test_cors_allows_the_connect_and_grpc_web_headers(gateway: Gateway) -> None:
    asked = "content-type, connect-protocol-version, connect-timeout-ms, grpc-timeout, x-grpc-web, x-user-agent"
    preflight = gateway.http.options(
        PREFIX + "Act",
        headers={"Origin": ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": asked},
    )
    assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] == ORIGIN
    allowed = preflight.headers["access-control-allow-headers"].lower()
    assert all(h.strip() in allowed for h in asked.split(","))
    resp = post(gateway, "ListGames", envelope(b""), "application/grpc-web+proto", Origin=ORIGIN)
    exposed = resp.headers["access-control-expose-headers"].lower()
    assert {"grpc-status", "grpc-message", "grpc-status-details-bin"} <= set(exposed.replace(" ", "").split(","))


def test_metrics_name_the_rpc_route(gateway: Gateway) -> None:
    post(gateway, "ListGames", b"", "application/proto")
    post(gateway, "CreateTable", b"{", "application/json")
    gateway.http.post(PREFIX + "NoSuchRpc", content=b"", headers={"content-type": "application/proto"})
    route = re.escape(PREFIX)
    wanted = [
        rf'mazziere_http_requests_total\{{method="POST",route="{route}ListGames",status="200"\}} [1-9]',
        rf'mazziere_http_requests_total\{{method="POST",route="{route}CreateTable",status="400"\}} [1-9]',
        r'mazziere_http_requests_total\{method="POST",route="unmatched",status="404"\} [1-9]',
    ]
    for _ in range(100):  # each request is counted just after its answer is sent
        text = generate_latest(gateway.app.metrics.registry).decode()
        if all(re.search(w, text) for w in wanted):
            break
        time.sleep(0.01)
    assert all(re.search(w, text) for w in wanted), text
    assert "NoSuchRpc" not in text


BUF = ROOT / "node_modules" / ".bin" / "buf"


@pytest.mark.skipif(
    not BUF.exists() or shutil.which("node") is None, reason="buf is absent: run `npm ci` (make test does)"
)
@pytest.mark.parametrize("protocol", ["connect", "grpcweb"])
def test_buf_curl_calls_the_service(gateway: Gateway, protocol: str) -> None:
    def curl(rpc: str, data: dict[str, Any] | None = None) -> subprocess.CompletedProcess[str]:
        command = [str(BUF), "curl", "--protocol", protocol, "--schema", "protos", gateway.url + PREFIX + rpc]
        if data is not None:
            command[2:2] = ["-d", json.dumps(data)]
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)

    games = curl("ListGames")
    assert games.returncode == 0, games.stderr
    assert {g["id"] for g in json.loads(games.stdout)["games"]} == {"sette_e_mezzo", "saltacavallo", "trentuno"}
    refused = curl("CreateTable", {"game": "nope"})
    assert refused.returncode != 0
    error = json.loads(refused.stderr)
    assert error["code"] == "invalid_argument" and error["details"][0]["type"] == "google.rpc.ErrorInfo"
    steps = curl("StreamReplay", REPLAY)
    assert steps.returncode == 0, steps.stderr
    assert steps.stdout.count('"step"') == 2


@pytest.mark.parametrize("header", [b"\xb2", b"1\xb2", b"-5", b"", b"9" * 11])
def test_a_timeout_that_is_not_ascii_digits_is_invalid_argument(gateway: Gateway, header: bytes) -> None:
    """``str.isdigit`` also admits ``²``, which ``int`` refuses: such a header is a 400, never a 500."""
    resp = gateway.http.post(
        PREFIX + "ListGames", content=b"", headers={"content-type": "application/proto", "connect-timeout-ms": header}
    )
    assert connect_error(resp)[:2] == (400, "invalid_argument"), resp.text
    web = gateway.http.post(
        PREFIX + "ListGames",
        content=envelope(b""),
        headers={"content-type": "application/grpc-web+proto", "grpc-timeout": header + b"S"},
    )
    assert trailers(frames(web.content)[-1][1])["grpc-status"] == "3"
