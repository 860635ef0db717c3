"""Stopping advice early: the caller's ``stop()`` is polled from inside the loops; the engine reads no clock.

A caller (the service: its deadline or a caller that left) passes ``stop``, a function that turns True once the
work should end. Sampling polls it before every play-out and answers with the samples completed so far; an exact
enumeration polls it every :data:`NODES_PER_POLL` values it computes and raises :class:`Stopped`, since a part of
a sum is no answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Stop = Callable[[], bool]

NODES_PER_POLL = 64
"""An exact enumeration asks ``stop()`` once per this many values computed (each takes microseconds)."""


class Stopped(Exception):
    """``stop()`` turned True before the advice (or the ``best`` policy's choice) could be given."""


class Poll:
    """Asks ``stop()`` once every ``every`` calls of :meth:`due`, and remembers a True."""

    __slots__ = ("every", "left", "stop", "stopped")

    def __init__(self, stop: Stop | None, every: int = 1) -> None:
        self.stop = stop
        self.every = every
        self.left = every
        self.stopped = False

    def due(self) -> bool:
        """True once the work should stop (``stop()`` asked on every ``every``-th call)."""
        if self.stop is None or self.stopped:
            return self.stopped
        self.left -= 1
        if self.left > 0:
            return False
        self.left = self.every
        self.stopped = bool(self.stop())
        return self.stopped

    def check(self) -> None:
        """Raise :class:`Stopped` once the work should stop."""
        if self.due():
            raise Stopped


_CURRENT: ContextVar[Poll | None] = ContextVar("mazziere_bots_poll", default=None)


@contextmanager
def polling(stop: Stop | None) -> Iterator[None]:
    """Within this block (this thread or task only), :func:`tick` polls ``stop``."""
    token = _CURRENT.set(Poll(stop, NODES_PER_POLL) if stop is not None else None)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def tick() -> None:
    """One value of an exact enumeration computed: raise :class:`Stopped` if the current ``stop`` says so."""
    poll = _CURRENT.get()
    if poll is not None:
        poll.check()
