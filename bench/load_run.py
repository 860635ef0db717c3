"""What one run of ``bench.host_load`` asked for (:class:`Args`) and measured on one server (:class:`Run`), the host
or the Colyseus room server beside it."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field

from bench.server_tree import Window


@dataclass
class Args:
    """The run's options: the load's shape, the server's processes, the noise beside it, the soak's sampling."""

    tables: int
    watchers: int
    seconds: float
    interval: float
    warmup: float
    game: str
    connections: int
    timers: int = 0
    timer_turn: float = 2.0
    timer_bot: str = "best"
    processes: int = 1
    """``MAZZIERE_PROCESSES`` of the server."""
    noise: bool = False
    soak_every: float = 0.0
    """Seconds between two samples of the server tree's memory in the window (0: only at its end)."""
    connection_age: float = 0.0
    """The server's ``MAZZIERE_MAX_CONNECTION_AGE_MS``, in seconds (0: its default)."""


@dataclass
class Run:
    """Everything one run measured."""

    args: Args
    start: float = 0.0
    window: tuple[float, float] = (0.0, 0.0)
    pushes: list[float] = field(default_factory=list)
    plays: list[float] = field(default_factory=list)
    lateness: list[float] = field(default_factory=list)
    moves: int = 0
    skipped: int = 0
    stopped: int = 0
    """Tables that stopped playing: their game was over, or their last move never reached the seat to act."""
    connected: int = 0
    connected_tables: int = 0
    connected_at_end: int = 0
    """Watchers whose stream was open when the window ended."""
    full_at_end: int = 0
    """Tables all of whose watchers' streams were open when the window ended."""
    reconnects: int = 0
    renewed: int = 0
    """Watch streams the server ended after their lifetime, resumed from their last seq."""
    errors: Counter[str] = field(default_factory=Counter)
    tree: Window | None = None
    """The server tree's CPU and memory over the window."""
    own_cpu: float = float("nan")
    """The load generator's CPU share over the window."""
    incomplete: int = 0
    opened_seconds: float = 0.0
    connect_seconds: float = 0.0
    noise: str = ""
    """What ran beside the server (``--noise``), or nothing."""
    all_connected: asyncio.Event = field(default_factory=asyncio.Event)

    def measured(self, sent: float) -> bool:
        return self.window[0] <= sent < self.window[1]


# -- the load generator ---------------------------------------------------------------------------------------------
