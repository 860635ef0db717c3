"""The host's settings (from the server's configuration) and what it keeps of each table beside its token."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HostSettings:
    public_url: str = "http://localhost:8080"
    turn_seconds: int = 60
    bot_delay_ms: int = 700
    table_idle_hours: float = 72.0
    heartbeat_seconds: float = 15.0
    timer_poll_seconds: float = 0.2
    timer_moves: int = 8
    open_tables: int = 50
    """Tables one caller may have open."""
    table_spectators: int = 32
    """Watch streams a table takes beyond one per seat (on one replica)."""
    store_max_tables: int = 10_000
    store_max_bytes: int = 1 << 30


@dataclass(frozen=True, slots=True)
class Settings:
    """What the host keeps of a table beside its token (the record's ``settings``)."""

    game: str
    names: tuple[str, ...]
    bots: tuple[str, ...]
    turn_seconds: int

    def encode(self) -> bytes:
        return json.dumps(
            {"game": self.game, "names": self.names, "bots": self.bots, "turn": self.turn_seconds}
        ).encode()

    @classmethod
    def decode(cls, data: bytes) -> Settings:
        raw = json.loads(data)
        return cls(raw["game"], tuple(raw["names"]), tuple(raw["bots"]), int(raw["turn"]))
