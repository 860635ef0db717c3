"""The engine's heavy work as functions of plain values (a state's bytes, a seat, a policy's name), which the call
core may run in a worker process (:meth:`Call.heavy <mazziere.services.core.call.Call.heavy>`): each opens the state
from its bytes and answers the engine's values, which travel back whole. Work done in this process is given the
state itself (:func:`packed`), and opens nothing."""

from __future__ import annotations

from mazziere import engine
from mazziere.engine import bots
from mazziere.engine.bots.stop import Stop
from mazziere.engine.table import TableState
from mazziere.services.core.call import Call


def packed(state: TableState, call: Call) -> TableState | bytes:
    """The state as ``call``'s heavy work takes it: its bytes if they travel to a worker process, else itself."""
    return state if call.offload is None else engine.state_to_bytes(state)


def advice(state: TableState | bytes, seat: int, samples: int | None, *, stop: Stop) -> bots.Advice:
    """:func:`engine.bots.advise` for ``seat``."""
    return bots.advise(_opened(state), seat, samples=samples, stop=stop)


def choice(state: TableState | bytes, policy: str, seat: int, *, stop: Stop) -> engine.Action:
    """:func:`engine.bots.choose`: ``policy``'s action for ``seat``."""
    return bots.choose(policy, _opened(state), seat, stop=stop)


def _opened(state: TableState | bytes) -> TableState:
    return engine.state_from_bytes(state) if isinstance(state, bytes) else state
