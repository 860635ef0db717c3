"""The host's settings (from the server's configuration) and what it keeps of each table beside its token."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True, slots=True)
class HostSettings:
    public_url: str = "http://localhost:8080"
    turn_seconds: int = 60
    bot_delay_ms: int = 700
    table_idle_hours: float = 72.0
    heartbeat_seconds: float = 15.0
    presence_grace_seconds: float = 30.0
    """How long a person counts as present after their last Watch or call (the store's presence rows)."""
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
    waiting_room: bool = False
    """Opened in a waiting room (OpenTableRequest.waiting_room)."""
    follow_presence: bool = False
    """Pauses when no person is present, and plays the turns of a person away (OpenTableRequest.follow_presence)."""

    @property
    def minds_presence(self) -> bool:
        """Whether the host counts who is at this table (:mod:`.attendance`)."""
        return self.waiting_room or self.follow_presence

    def people(self) -> list[int]:
        """The seats of people (not bots)."""
        return [seat for seat, bot in enumerate(self.bots) if not bot]

    def encode(self) -> bytes:
        raw: dict[str, object] = {"game": self.game, "names": self.names, "bots": self.bots, "turn": self.turn_seconds}
        if self.waiting_room:
            raw["waiting_room"] = True
        if self.follow_presence:
            raw["follow_presence"] = True
        return json.dumps(raw).encode()

    @classmethod
    def decode(cls, data: bytes) -> Settings:
        """What :meth:`encode` wrote: read once per text and kept (a table's settings never change, and a move reads
        them several times)."""
        return _decoded(bytes(data))


@lru_cache(maxsize=4096)
def _decoded(data: bytes) -> Settings:
    raw = json.loads(data)
    presence = (bool(raw.get("waiting_room")), bool(raw.get("follow_presence")))
    return Settings(raw["game"], tuple(raw["names"]), tuple(raw["bots"]), int(raw["turn"]), *presence)
