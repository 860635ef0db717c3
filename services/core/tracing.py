"""OpenTelemetry tracing: one span per call in the call core, whatever its transport, one per engine step, and one
per HTTP request on the HTTP port, the parent of the call it carries.

The spans follow OpenTelemetry's semantic conventions: a call's span is named ``service/method`` and carries
``rpc.system`` (``grpc``: every transport serves the gRPC services and answers gRPC status codes), ``rpc.service``,
``rpc.method`` and ``rpc.grpc.status_code``; an HTTP request's is named ``METHOD route`` and carries
``http.request.method``, ``url.path``, ``url.scheme``, ``http.route`` and ``http.response.status_code``. One span
of each process is the SERVER span: the HTTP request's where there is one (the call under it is INTERNAL), else the
call's.

Off unless the standard variables name an exporter (``OTEL_TRACES_EXPORTER``, or an OTLP endpoint): then no provider
is installed, :func:`begin` returns None and :func:`step` a shared do-nothing context, so a call pays one check per
span it would have made (the API's no-op tracer costs microseconds a span). The caller's W3C ``traceparent`` (gRPC
metadata or an HTTP header, both in ``Call.metadata``) is the call span's parent. docs/tracing.md tells the rest.
"""

from __future__ import annotations

import contextvars
import functools
import os
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

import grpc
from opentelemetry import context, propagate, trace
from opentelemetry.propagators.textmap import Getter

from mazziere.services.config import ConfigError

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

TRACER_NAME = "mazziere"
SERVICE_NAME = "mazziere"
"""``service.name`` when neither ``OTEL_SERVICE_NAME`` nor ``OTEL_RESOURCE_ATTRIBUTES`` names one."""
SERVER_ERRORS = frozenset(
    {
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.UNIMPLEMENTED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DATA_LOSS,
    }
)
"""Codes that mark a server span as an error (the semantic conventions' list); a caller's mistake does not."""
PROPAGATED = frozenset({"traceparent", "tracestate"})
RPC_SYSTEM = "grpc"

_tracer: trace.Tracer | None = None
_configured = False
_NOTHING = nullcontext()


def on() -> bool:
    return _tracer is not None


def use(provider: trace.TracerProvider | None) -> None:
    """Trace with ``provider`` from now on; None turns tracing off."""
    global _tracer
    _tracer = None if provider is None else provider.get_tracer(TRACER_NAME)


def configure() -> None:
    """Once per process: trace to the exporters the environment names, if any."""
    global _configured
    if _configured:
        return
    _configured = True
    provider = provider_from_env()
    if provider is not None:
        trace.set_tracer_provider(provider)
        use(provider)


def provider_from_env() -> TracerProvider | None:
    """An SDK ``TracerProvider`` exporting to what ``OTEL_TRACES_EXPORTER`` names (``otlp`` over gRPC,
    ``console``), or ``otlp`` if only an OTLP endpoint is set; None if nothing is (or ``OTEL_SDK_DISABLED``). The
    SDK reads the sampler, the resource, the exporter's endpoint and the batching from their own variables."""
    env = os.environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    names = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if not names and (env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_ENDPOINT")):
        names = "otlp"
    chosen = [n.strip() for n in names.split(",") if n.strip() not in ("", "none")]
    if not chosen:
        return None
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create()
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": SERVICE_NAME}))
    provider = TracerProvider(resource=resource)
    for name in chosen:
        provider.add_span_processor(BatchSpanProcessor(_exporter(name)))
    return provider


def _exporter(name: str) -> Any:
    if name == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter()
    if name != "otlp":
        raise ConfigError(f"OTEL_TRACES_EXPORTER={name!r}: this server exports spans to otlp or console")
    env = os.environ
    protocol = env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL") or "grpc"
    if protocol != "grpc":
        raise ConfigError(f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol!r}: this server exports OTLP over grpc only")
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


class _Pairs(Getter[Sequence[tuple[str, str]]]):
    """Reads a propagated field from ``Call.metadata`` (pairs, names in lower case)."""

    def get(self, carrier: Sequence[tuple[str, str]], key: str) -> list[str] | None:
        return [v for k, v in carrier if k == key] or None

    def keys(self, carrier: Sequence[tuple[str, str]]) -> list[str]:
        return [k for k, _ in carrier]


_PAIRS = _Pairs()


class CallSpan:
    """One call's span, current (in the calling task) from :func:`begin` to :meth:`end`."""

    __slots__ = ("_token", "span")

    def __init__(
        self, tracer: trace.Tracer, service: str, method: str, metadata: Sequence[tuple[str, str]], request_id: str
    ) -> None:
        # A span of this process that is current (the HTTP request's, or the host's call whose engine calls these
        # are) is the parent, and this call no server hop of its own; else the caller's traceparent, if any.
        current = context.get_current()
        local = trace.get_current_span(current).get_span_context()
        in_process = local.is_valid and not local.is_remote
        parent = current if in_process else propagate.extract(metadata, current, getter=_PAIRS)
        self.span = tracer.start_span(
            f"{service}/{method}",
            parent,
            kind=trace.SpanKind.INTERNAL if in_process else trace.SpanKind.SERVER,
            attributes={
                "rpc.system": RPC_SYSTEM,
                "rpc.service": service,
                "rpc.method": method,
                "mazziere.request_id": request_id,
            },
        )
        self._token = context.attach(trace.set_span_in_context(self.span, parent))

    def admitted(self, cost: str, table_id: str) -> None:
        self.span.set_attribute("mazziere.cost_class", cost)
        if table_id:
            self.span.set_attribute("mazziere.table_id", table_id)

    @staticmethod
    def carry(fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` run in a copy of the current context (the call's span), for a worker thread."""
        return functools.partial(contextvars.copy_context().run, fn)

    def failed(self, exc: BaseException) -> None:
        self.span.record_exception(exc)

    def end(self, code: grpc.StatusCode, reason: str, game: str) -> None:
        span = self.span
        span.set_attribute("rpc.grpc.status_code", code.value[0])
        if game:
            span.set_attribute("mazziere.game", game)
        if reason:
            span.set_attribute("mazziere.reason", reason)
        if code in SERVER_ERRORS:
            span.set_status(trace.Status(trace.StatusCode.ERROR, code.name))
        span.end()
        context.detach(self._token)


class HttpSpan:
    """One HTTP request's SERVER span, current (in the request's task) from :func:`begin_http` to :meth:`end`: the
    parent of the call the request carries."""

    __slots__ = ("_token", "method", "span")

    def __init__(
        self, tracer: trace.Tracer, method: str, path: str, scheme: str, headers: Sequence[tuple[str, str]]
    ) -> None:
        parent = propagate.extract(headers, context.get_current(), getter=_PAIRS)
        self.method = method
        self.span = tracer.start_span(
            method,
            parent,
            kind=trace.SpanKind.SERVER,
            attributes={"http.request.method": method, "url.path": path, "url.scheme": scheme},
        )
        self._token = context.attach(trace.set_span_in_context(self.span, parent))

    def end(self, route: str | None, status: int, request_id: str) -> None:
        """Ends the span with the route template that answered (None: none did) and the status sent."""
        span = self.span
        if route is not None:
            span.update_name(f"{self.method} {route}")
            span.set_attribute("http.route", route)
        span.set_attribute("http.response.status_code", status)
        span.set_attribute("mazziere.request_id", request_id)
        if status >= 500:
            span.set_status(trace.Status(trace.StatusCode.ERROR))
        span.end()
        context.detach(self._token)


def begin_http(method: str, path: str, scheme: str, headers: Sequence[tuple[str, str]]) -> HttpSpan | None:
    """The span of an HTTP request (``headers`` as pairs, names in lower case), now current; None when tracing is
    off."""
    return None if _tracer is None else HttpSpan(_tracer, method, path, scheme, headers)


def begin(service: str, method: str, metadata: Sequence[tuple[str, str]], request_id: str) -> CallSpan | None:
    """The span of a call of ``service/method``, now current; None when tracing is off."""
    return None if _tracer is None else CallSpan(_tracer, service, method, metadata, request_id)


def step(name: str) -> AbstractContextManager[Any]:
    """A child span of the current one for an engine step (``with step("apply"):``); nothing when off or when the
    current span is not recorded (not sampled, or no call's). An exception leaving the step is recorded on it; the
    call's span carries the outcome."""
    if _tracer is None or not trace.get_current_span().is_recording():
        return _NOTHING
    return _tracer.start_as_current_span(name, set_status_on_exception=False)


def outgoing(metadata: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """``metadata`` for a call to another server: the current span's ``traceparent`` in place of any the caller
    sent, when tracing is on and a span is current."""
    if _tracer is None or not trace.get_current_span().get_span_context().is_valid:
        return metadata
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return (*((k, v) for k, v in metadata if k not in PROPAGATED), *carrier.items())
