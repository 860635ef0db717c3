"""Tracing on every transport: an Act whose caller sends a W3C ``traceparent`` is one trace, over gRPC, REST,
Connect and gRPC-Web alike, with OpenTelemetry's RPC and HTTP attributes. Over gRPC the call span is the caller's
child; over HTTP the request's SERVER span is, and the call span (INTERNAL) the request span's; the engine's steps
are the call span's.

Spans go to an in-memory exporter, installed for this module alone; one server serves all four transports.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import grpc
import pytest
from google.protobuf import json_format
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from structlog.testing import capture_logs

from mazziere.services.config import ConfigError
from mazziere.services.core import tracing
from mazziere.services.core.logs import add_trace
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import service_pb2_grpc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from tests.gateway.conftest import BASE, Gateway
from tests.service.helpers import Client

ACT = "mazziere.v1.TableService/Act"
STEPS = ("open", "choose", "apply", "seal", "update")
"""An auto-played Act's steps (``choose`` is the policy's pick; a move that names its action has none)."""


@dataclass
class Served:
    gateway: Gateway
    exporter: InMemorySpanExporter
    provider: TracerProvider
    client: Client
    channel: grpc.Channel


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use(provider)
    gateway = Gateway(replace(BASE, log_calls=True))
    channel = grpc.insecure_channel(f"127.0.0.1:{gateway.grpc_port}")
    try:
        stub = service_pb2_grpc.TableServiceStub(channel)
        yield Served(gateway, exporter, provider, Client(stub, gateway.app.keyring), channel)
    finally:
        channel.close()
        gateway.close()
        tracing.use(None)
        provider.shutdown()


def _request(served: Served) -> svc.ActRequest:
    """An auto-played Act on a new table (made without a traceparent: a trace of its own)."""
    table = served.client.create("sette_e_mezzo")
    seat = table.to_act[0]
    return svc.ActRequest(
        table_id=table.table_id, state=table.state, expected_seq=table.seq, auto_play="cautious",
        auto_seat=seat, seat_key=table.keys[seat],
    )  # fmt: skip


def _grpc(served: Served, request: svc.ActRequest, headers: dict[str, str]) -> None:
    served.client.stub.Act(request, metadata=tuple(headers.items()))


def _rest(served: Served, request: svc.ActRequest, headers: dict[str, str]) -> None:
    resp = served.gateway.http.post("/v1/tables:act", json=json_format.MessageToDict(request), headers=headers)
    assert resp.status_code == 200, resp.text


def _connect(served: Served, request: svc.ActRequest, headers: dict[str, str]) -> None:
    resp = served.gateway.http.post(
        f"/{ACT}",
        content=request.SerializeToString(),
        headers={"content-type": "application/proto", "connect-protocol-version": "1", **headers},
    )
    assert resp.status_code == 200, resp.text
    svc.ActResponse.FromString(resp.content)


def _grpc_web(served: Served, request: svc.ActRequest, headers: dict[str, str]) -> None:
    body = request.SerializeToString()
    resp = served.gateway.http.post(
        f"/{ACT}",
        content=b"\x00" + len(body).to_bytes(4, "big") + body,
        headers={"content-type": "application/grpc-web+proto", **headers},
    )
    assert resp.status_code == 200 and b"grpc-status: 0\r\n" in resp.content, resp.content


TRANSPORTS: dict[str, Callable[[Served, svc.ActRequest, dict[str, str]], None]] = {
    "grpc": _grpc,
    "rest": _rest,
    "connect": _connect,
    "grpc-web": _grpc_web,
}


def _trace(exporter: InMemorySpanExporter, trace_id: int, count: int) -> list[ReadableSpan]:
    """The finished spans of ``trace_id``, once there are ``count`` of them (ended on the server's threads)."""
    deadline = time.monotonic() + 5
    while True:
        spans = [s for s in exporter.get_finished_spans() if s.context is not None and s.context.trace_id == trace_id]
        if len(spans) >= count or time.monotonic() > deadline:
            return spans
        time.sleep(0.01)


@pytest.mark.parametrize("transport", list(TRANSPORTS))
def test_an_act_is_one_trace_under_the_callers_span(served: Served, transport: str) -> None:
    request = _request(served)
    trace_hex, parent_hex = secrets.token_hex(16), secrets.token_hex(8)
    with capture_logs(processors=[add_trace]) as logs:
        TRANSPORTS[transport](served, request, {"traceparent": f"00-{trace_hex}-{parent_hex}-01"})
        spans = _trace(served.exporter, int(trace_hex, 16), 1 + len(STEPS) + (transport != "grpc"))
    [call] = [s for s in spans if s.name == ACT]
    assert call.parent is not None
    if transport == "grpc":
        assert call.parent.span_id == int(parent_hex, 16) and call.parent.is_remote
        assert call.kind is trace.SpanKind.SERVER
    else:
        [http] = [s for s in spans if s.kind is trace.SpanKind.SERVER]
        assert http.parent is not None and http.parent.span_id == int(parent_hex, 16) and http.parent.is_remote
        assert http.context is not None and call.parent.span_id == http.context.span_id and not call.parent.is_remote
        assert call.kind is trace.SpanKind.INTERNAL, "one SERVER span a process: the request's"
        route = "/v1/tables:act" if transport == "rest" else f"/{ACT}"
        assert http.name == f"POST {route}"
        assert dict(http.attributes or {}) == {
            "http.request.method": "POST",
            "url.path": route,
            "url.scheme": "http",
            "http.route": route,
            "http.response.status_code": 200,
            "mazziere.request_id": (call.attributes or {})["mazziere.request_id"],
        }
        assert http.start_time is not None and call.start_time is not None and http.start_time <= call.start_time
        spans.remove(http)
    attributes = dict(call.attributes or {})
    assert attributes == {
        "rpc.system": "grpc",
        "rpc.service": "mazziere.v1.TableService",
        "rpc.method": "Act",
        "mazziere.request_id": attributes["mazziere.request_id"],
        "mazziere.cost_class": "move",
        "mazziere.table_id": request.table_id,
        "mazziere.game": "sette_e_mezzo",
        "rpc.grpc.status_code": 0,
    }
    assert call.context is not None
    children = [s for s in spans if s.parent is not None and s.parent.span_id == call.context.span_id]
    assert sorted(s.name for s in children) == sorted(STEPS) and len(spans) == 1 + len(STEPS)
    starts = [s.start_time or 0 for s in sorted(children, key=lambda s: STEPS.index(s.name))]
    assert starts == sorted(starts)  # in the order they happen
    span_hex = trace.format_span_id(call.context.span_id)
    [line] = [e for e in logs if e["event"] == "call" and e.get("trace_id") == trace_hex]
    assert line["span_id"] == span_hex and line["method"] == "Act" and line["code"] == "OK"


def test_the_split_gateways_request_span_is_the_parent_of_the_engines_call(served: Served) -> None:
    """``mazziere gateway --target``: its HTTP request's span is the caller's child, and the engine's call (SERVER,
    in another server, reached over gRPC) is the request span's."""
    split = Gateway(replace(BASE, log_calls=True), target="127.0.0.1:{port}")
    try:
        request = _request(served)
        trace_hex, parent_hex = secrets.token_hex(16), secrets.token_hex(8)
        resp = split.http.post(
            "/v1/tables:act",
            json=json_format.MessageToDict(request),
            headers={"traceparent": f"00-{trace_hex}-{parent_hex}-01"},
        )
        assert resp.status_code == 200, resp.text
        spans = _trace(served.exporter, int(trace_hex, 16), 2 + len(STEPS))
    finally:
        split.close()
    [http] = [s for s in spans if s.name == "POST /v1/tables:act"]
    [call] = [s for s in spans if s.name == ACT]
    assert http.kind is trace.SpanKind.SERVER and http.parent is not None and http.parent.span_id == int(parent_hex, 16)
    assert http.context is not None and call.parent is not None
    assert call.parent.span_id == http.context.span_id and call.parent.is_remote
    assert call.kind is trace.SpanKind.SERVER, "a server hop of its own"


def test_a_refusal_is_in_the_call_span_not_an_error_of_the_server(served: Served) -> None:
    request = _request(served)
    request.expected_seq += 1
    trace_hex = secrets.token_hex(16)
    with pytest.raises(grpc.RpcError) as refused:
        _grpc(served, request, {"traceparent": f"00-{trace_hex}-{secrets.token_hex(8)}-01"})
    assert refused.value.code() is grpc.StatusCode.ABORTED
    spans = {s.name: s for s in _trace(served.exporter, int(trace_hex, 16), 2)}
    assert set(spans) == {ACT, "open"}  # refused after the open, before any move
    attributes = spans[ACT].attributes or {}
    assert attributes["rpc.grpc.status_code"] == grpc.StatusCode.ABORTED.value[0]
    assert attributes["mazziere.reason"] == "STALE_SEQUENCE"
    assert spans[ACT].status.status_code is trace.StatusCode.UNSET  # the caller's mistake


def test_a_stream_is_one_span_under_the_callers(served: Served) -> None:
    create = svc.CreateTableRequest(game="sette_e_mezzo", seats=[pb.Seat(name="a", chips=50)] * 2, seed=b"s")
    trace_hex, parent_hex = secrets.token_hex(16), secrets.token_hex(8)
    headers = (("traceparent", f"00-{trace_hex}-{parent_hex}-01"),)
    steps = list(
        served.client.stub.StreamReplay(svc.StreamReplayRequest(table_id="t_trace", create=create), metadata=headers)
    )
    assert len(steps) == 1
    [call] = _trace(served.exporter, int(trace_hex, 16), 1)
    assert call.name == "mazziere.v1.TableService/StreamReplay"
    assert call.parent is not None and call.parent.span_id == int(parent_hex, 16)
    assert (call.attributes or {})["mazziere.cost_class"] == "replay"


def test_without_a_traceparent_a_call_starts_its_own_trace(served: Served) -> None:
    served.client.create("trentuno")
    made = [s for s in served.exporter.get_finished_spans() if s.name == "mazziere.v1.TableService/CreateTable"]
    assert made and made[-1].parent is None


def test_a_call_to_another_server_carries_the_current_span(served: Served) -> None:
    assert tracing.step("no call's span") is tracing.step("nor this")  # a step outside a recorded span: nothing
    with served.provider.get_tracer("test").start_as_current_span("host call") as span:
        sent = dict(tracing.outgoing((("traceparent", f"00-{'1' * 32}-{'2' * 16}-01"), ("x-request-id", "r"))))
    ids = span.get_span_context()
    assert sent["x-request-id"] == "r"
    assert sent["traceparent"].startswith(
        f"00-{trace.format_trace_id(ids.trace_id)}-{trace.format_span_id(ids.span_id)}-"
    )


def test_off_costs_one_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no provider nothing is made: no call span, one shared context for every step, no ids in a log line."""
    monkeypatch.setattr(tracing, "_tracer", None)
    assert not tracing.on()
    assert tracing.begin("s", "m", (("traceparent", f"00-{'1' * 32}-{'2' * 16}-01"),), "r") is None
    assert tracing.step("open") is tracing.step("apply")
    assert add_trace(None, "info", {"event": "call"}) == {"event": "call"}
    assert tracing.outgoing((("traceparent", "x"),)) == (("traceparent", "x"),)


OTEL = (
    "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED",
    "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
)  # fmt: skip


@pytest.mark.parametrize(
    ("env", "exporters"),
    [
        ({}, None),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317"}, None),
        ({"OTEL_TRACES_EXPORTER": "console", "OTEL_SDK_DISABLED": "true"}, None),
        ({"OTEL_TRACES_EXPORTER": "console"}, ["console"]),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317"}, ["otlp"]),
        ({"OTEL_TRACES_EXPORTER": "otlp, console", "OTEL_SERVICE_NAME": "tavolo"}, ["otlp", "console"]),
    ],
)
def test_the_otel_variables_choose_the_exporters(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], exporters: list[str] | None
) -> None:
    for name in OTEL:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    chosen: list[str] = []

    def exporter(name: str) -> InMemorySpanExporter:
        chosen.append(name)
        return InMemorySpanExporter()

    monkeypatch.setattr(tracing, "_exporter", exporter)
    provider = tracing.provider_from_env()
    if exporters is None:
        assert provider is None and not chosen
        return
    assert provider is not None
    provider.shutdown()
    assert chosen == exporters
    assert provider.resource.attributes["service.name"] == env.get("OTEL_SERVICE_NAME", "mazziere")


def test_the_exporters_this_server_has(monkeypatch: pytest.MonkeyPatch) -> None:
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter

    for name in OTEL:
        monkeypatch.delenv(name, raising=False)
    assert isinstance(tracing._exporter("console"), ConsoleSpanExporter)
    otlp = tracing._exporter("otlp")
    assert isinstance(otlp, OTLPSpanExporter)
    otlp.shutdown()
    with pytest.raises(ConfigError, match="otlp or console"):
        tracing._exporter("zipkin")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
    with pytest.raises(ConfigError, match="grpc only"):
        tracing._exporter("otlp")
