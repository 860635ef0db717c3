"""One log line and the go-grpc-prometheus metrics for every call, whatever its transport.

Labels never carry the caller's text: a game label is one of the served games or ``unknown``. The log line names
the call's table (``table_id``, null if none) when its handler opened or made one and recorded it on its Call, and a
host call's caller (``caller``: its tenant, or its address, whole or by prefix as the operator says).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Any

import grpc

from mazziere.services.core.call import Call
from mazziere.services.core.logs import get_logger
from mazziere.services.core.metrics import Metrics

UNKNOWN_LABEL = "unknown"
"""The metric label that stands for any game the caller named that is not one of ours."""
REQUEST_ID = "x-request-id"


def request_id(metadata: Sequence[tuple[str, str]]) -> str:
    """The caller's ``x-request-id`` (at most 128 characters), or a new one."""
    for key, value in metadata:
        if key == REQUEST_ID and value:
            return str(value)[:128]
    return uuid.uuid4().hex


class Observer:
    """Counts a call when it starts, and logs and counts how it ended."""

    def __init__(self, metrics: Metrics, games: Sequence[str], log_calls: bool = True) -> None:
        self.metrics = metrics
        self.games = frozenset(games)
        self.log = get_logger("mazziere.call")
        self.log_calls = log_calls
        self._children: dict[tuple[Any, tuple[str, ...]], Any] = {}

    def _labelled(self, metric: Any, *values: str) -> Any:
        """``metric.labels(*values)``, looked up once (its label values are a few methods and codes)."""
        key = (metric, values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*values)
        return child

    def game_label(self, game: str) -> str:
        return game if game in self.games else UNKNOWN_LABEL

    def start(self, kind: str, service: str, name: str) -> float:
        self._labelled(self.metrics.started, kind, service, name).inc()
        return time.perf_counter()

    def finish(
        self,
        kind: str,
        service: str,
        name: str,
        call: Call,
        code: grpc.StatusCode,
        reason: str,
        start: float,
        request_id: str,
        caller: str = "",
    ) -> None:
        """Count the call's end, and log it (``caller``: the host call's caller, as logs may show it)."""
        labels = (kind, service, name)
        elapsed = time.perf_counter() - start
        game = self.game_label(call.game)
        self._labelled(self.metrics.handled, *labels, code.name).inc()
        self._labelled(self.metrics.handling, *labels).observe(elapsed)
        if reason:
            self.metrics.rejections.labels(game, reason).inc()
        if code is grpc.StatusCode.OK:
            self.count_finished(call.finished)
        if self.log_calls:  # a Watch ends when its watcher leaves: routine, at debug
            (self.log.debug if name == "Watch" else self.log.info)(
                "call",
                method=name,
                game=game,
                code=code.name,
                reason=reason or None,
                duration_ms=round(elapsed * 1000, 3),
                request_id=request_id,
                table_id=table_of(call),
                **({"caller": caller} if caller else {}),
            )

    def count_finished(self, finished: Sequence[tuple[str, str, str]]) -> None:
        """Count each (game, preset, HAND_OVER or GAME_OVER) a call's work finished."""
        for played, preset, event in finished:
            counter = self.metrics.hands_finished if event == "HAND_OVER" else self.metrics.games_finished
            counter.labels(self.game_label(played), preset).inc()

    def failed(self, name: str, call: Call, request_id: str, exc: BaseException) -> None:
        self.log.exception(
            "call_failed",
            method=name,
            game=self.game_label(call.game),
            request_id=request_id,
            table_id=table_of(call),
            exc_info=exc,
        )


def table_of(call: Call) -> str | None:
    """The table the call's handler opened or made (:attr:`Call.table_id`), or None if it recorded none."""
    return call.table_id or None
