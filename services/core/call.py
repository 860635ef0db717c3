"""What one call carries between a transport, the core and a handler."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(slots=True)
class Call:
    """One call as its handler sees it: what it may read of the caller, and what it tells the core back."""

    time_remaining: Callable[[], float | None] = lambda: None
    """Seconds left before the caller's deadline or the server's budget, whichever is sooner (None: no limit)."""
    stop: Callable[[], bool] = lambda: False
    """True once the work should stop: the caller left, or its deadline (or the server's budget) passed. Long
    loops (advice, sampled auto-play) poll it; the engine itself never reads a clock."""
    metadata: Sequence[tuple[str, str]] = ()
    """The request's metadata (HTTP headers or gRPC metadata), names in lower case."""
    peer: str = ""
    """The address of the connection's other end, as its transport saw it (``203.0.113.7``, ``2001:db8::1``; empty
    for a call made in this process): a proxy's, behind one (:mod:`~mazziere.services.core.callers`)."""
    stream_lifetime: float = 0.0
    """Seconds a stream may follow its table before it ends by itself, between two answers, for its client to
    resume it from the last one (0: no limit). Set by the gRPC transport, so that a connection's age never cuts a
    stream (:func:`~mazziere.services.grpc.server.stream_lifetime`)."""
    caller: str = ""
    """Who calls, as the core identified it at admission (a host call's caller key; empty otherwise)."""
    headers: list[tuple[str, str]] = field(default_factory=list)
    """Metadata the handler adds to the answer's headers."""
    trailers: list[tuple[str, str]] = field(default_factory=list)
    """Metadata the handler adds to the answer's trailers."""
    game: str = ""
    table_id: str = ""
    """The table the handler opened or made (once it checked the state is that table's), for the call's log line."""
    finished: list[tuple[str, str, str]] = field(default_factory=list)
    """(game, preset, event kind) for every HAND_OVER and GAME_OVER of the call."""
    on_answered: list[Callable[[], None]] = field(default_factory=list)
    """Run by the core once the answer has been made and checked (so a refused answer leaves no trace)."""
    offload: Callable[..., Any] | None = None
    """Set by the core for the costly classes when it has worker processes
    (:mod:`~mazziere.services.core.processes`): ``offload(work, *args)`` runs ``work`` in one of them, under this
    call's stop time, and raises its flag once ``stop`` turns true."""

    def heavy(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args, stop=...)``: in a worker process if the core gave one (``work`` is then a module's function
        of plain values, that answers plain values), else here with this call's ``stop``."""
        if self.offload is None:
            return work(*args, stop=self.stop)
        answer: T = self.offload(work, *args)
        return answer
