"""A memo of the tokens this process sealed lately, with their states.

The token a host sends back is usually the one this process sealed for it last; keeping its state skips opening,
decoding and checking it. The tokens are the very bytes this process made, so they are authentic. Least recently
used entries go first; the memo is bounded by entries and by bytes, and losing it changes nothing but speed. A
token is remembered only once its answer has been made and checked (an answer refused as too large leaves none).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from mazziere.engine.table import TableState

STATE_BYTES_PER_TOKEN_BYTE = 8
"""A decoded state takes about this many bytes of memory per byte of its token (measured: 5-7)."""


class RecentStates:
    def __init__(self, entries: int = 4096, max_bytes: int = 16 << 20) -> None:
        self.entries = entries
        self.max_bytes = max_bytes
        self.bytes = 0
        self._states: OrderedDict[bytes, TableState] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, token: bytes) -> TableState | None:
        with self._lock:
            state = self._states.get(token)
            if state is not None:
                self._states.move_to_end(token)
            return state

    def put(self, token: bytes, state: TableState) -> None:
        cost = len(token) * (1 + STATE_BYTES_PER_TOKEN_BYTE)
        if not self.entries or cost > self.max_bytes:
            return
        with self._lock:
            if token in self._states:
                return
            self._states[token] = state
            self.bytes += cost
            while len(self._states) > self.entries or self.bytes > self.max_bytes:
                old, _ = self._states.popitem(last=False)
                self.bytes -= len(old) * (1 + STATE_BYTES_PER_TOKEN_BYTE)

    def __len__(self) -> int:
        return len(self._states)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()
            self.bytes = 0
