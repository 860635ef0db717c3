"""Refusals of callers that ignore their retry hints, held to the pace of those hints.

Each refusal that carries a retry hint (OVERLOADED, QUOTA_EXCEEDED, CALLER_LIMIT: a RetryInfo over gRPC, a
``Retry-After`` over HTTP) notes when its caller may come back. A caller refused again before then did not wait,
and that refusal is sent when the hint it ignored ends (at most ``hold_seconds`` later: 1 s by default,
``MAZZIERE_REFUSAL_HOLD_SECONDS``; 0 holds nothing). A caller that retries at once is then refused at the pace of
its hints, about once a second for each call it keeps in flight, where it was refused at the pace of its requests,
thousands a second, each taking the event loop from every other caller.

A call that is let in is never held, nor a caller's first refusal, nor a refusal once :data:`MOST_HELD` are held
(it is sent at once); and a refusal is held at most half the time its caller gave the call, so that it is still
the refusal, not DEADLINE_EXCEEDED, that the caller gets. Callers are kept for the most recent :data:`MOST_CALLERS`.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

MOST_HELD = 1_000
"""Refusals held at once, at most (each an open call the server keeps meanwhile)."""
MOST_CALLERS = 100_000
"""Callers whose hints are kept (the least recently refused forgotten first)."""


class RetryHints:
    """When each recently refused caller may come back; thread-safe (the transports may run on two loops)."""

    def __init__(
        self, hold_seconds: float = 1.0, *, clock: Callable[[], float] = time.monotonic, most: int = MOST_CALLERS
    ) -> None:
        self.hold_seconds = hold_seconds
        """The longest a refusal is held."""
        self.clock = clock
        self.held = 0
        """Refusals being held now (:meth:`refused` counts one in, :meth:`release` one out)."""
        self._most = most
        self._until: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def refused(self, caller: str, retry_after: float, at_most: float | None = None) -> float:
        """Notes that ``caller`` was refused with a hint of ``retry_after`` seconds; the seconds to hold this
        refusal: until the end of a hint it ignored, at most :attr:`hold_seconds` and ``at_most`` (0: send it
        now)."""
        with self._lock:
            now = self.clock()
            until = self._until.pop(caller, 0.0)
            longest = self.hold_seconds if at_most is None else min(self.hold_seconds, at_most)
            hold = 0.0 if until <= now or self.held >= MOST_HELD else max(0.0, min(until - now, longest))
            self._until[caller] = max(until, now + hold + retry_after)  # the hint counts from when it is sent
            if len(self._until) > self._most:
                self._until.popitem(last=False)
            if hold:
                self.held += 1
            return hold

    def release(self) -> None:
        """One held refusal sent (or its caller gone): for each :meth:`refused` that said to hold."""
        with self._lock:
            self.held -= 1
