"""The one bounded table in which Sette e mezzo's counted advice memoises its values, and the decorator filling it.

Every memoised function of the enumeration keeps its values in :data:`MEMO`, keyed by its name and its arguments (a
profile, hands and unseen cards by class): at most :data:`MEMO_MAX` of them, emptied when full. Each value computed
is a :func:`~mazziere.engine.bots.stop.tick` of the enumeration, so that a caller's ``stop`` is polled.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from mazziere.engine.bots.stop import tick

MEMO_MAX = 1 << 15
"""The most values the enumeration keeps (one table for every memoised function; emptied when full)."""
MEMO: dict[tuple[Any, ...], Any] = {}
"""Every memoised value, keyed by (the function's name, its arguments...)."""
Fn = TypeVar("Fn", bound=Callable[..., Any])


def memo(fn: Fn) -> Fn:
    """Memoise ``fn`` by its arguments in the shared bounded table :data:`MEMO`; each value computed is a
    :func:`~mazziere.engine.bots.stop.tick` of the enumeration (a stopped one raises and keeps no partial value)."""
    tag = fn.__name__

    def wrapper(*args: Any) -> Any:
        key = (tag, *args)
        hit = MEMO.get(key, MEMO)
        if hit is not MEMO:
            return hit
        tick()  # the caller's stop() is asked every so many values (engine/bots/stop.py)
        value = fn(*args)
        if len(MEMO) >= MEMO_MAX:
            MEMO.clear()
        MEMO[key] = value
        return value

    return functools.wraps(fn)(wrapper)  # type: ignore[return-value]
