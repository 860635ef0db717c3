"""structlog configured for standard error: one JSON object per line (what log collectors read), or, on a terminal,
lines a person reads; with the trace and span ids of the current span when tracing is on."""

from __future__ import annotations

import logging
import sys

import structlog
from opentelemetry import trace
from structlog.typing import EventDict, WrappedLogger

from mazziere.services.core import tracing


def configure(level: str = "info", form: str = "auto") -> None:
    """Log at ``level`` and above, as ``form``: ``json``, ``console``, or ``auto`` (console on a terminal)."""
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        numeric = logging.INFO
    console = form == "console" or (form == "auto" and sys.stderr.isatty())
    renderer: structlog.typing.Processor = (
        structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty()) if console else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            add_trace,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            *(() if console else (structlog.processors.format_exc_info,)),  # the console renders tracebacks itself
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )


def add_trace(_logger: WrappedLogger, _method: str, event: EventDict) -> EventDict:
    """``trace_id`` and ``span_id`` (hex, as trace back ends show them) of the current span, if tracing is on."""
    if tracing.on():
        current = trace.get_current_span().get_span_context()
        if current.is_valid:
            event["trace_id"] = trace.format_trace_id(current.trace_id)
            event["span_id"] = trace.format_span_id(current.span_id)
    return event


def get_logger(name: str = "mazziere") -> structlog.typing.FilteringBoundLogger:
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger(name)
    return logger
