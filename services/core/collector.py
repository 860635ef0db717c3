"""The garbage collector kept out of the serving path.

A full collection walks every object the process tracks and holds the interpreter meanwhile: with thousands of
Watch streams, each holding its coroutines, tasks and records, that is tens to hundreds of milliseconds during
which no move is played and no push written. So, from start-up on:

- what start-up made is frozen (``gc.freeze``): no collection walks it again;
- full collections no longer start by themselves (the oldest generation's threshold is out of reach); the young
  collections stay, short since they walk only objects made since the last one;
- every ``freeze_seconds`` what is not frozen (what the process made since the last freeze and kept) is collected,
  a short pause, and what survives is frozen too, so the objects that live long (streams, tables) are never walked
  again while serving;
- every ``full_seconds`` (0: never) one full collection runs, after unfreezing, for the cycles of frozen objects
  that became garbage since (a watcher gone, say); it is the one pause left, and it is logged.

``freeze_seconds`` 0 leaves the interpreter's own schedule (full collections when its thresholds say).
"""

from __future__ import annotations

import asyncio
import gc
import time

from mazziere.services.core.logs import get_logger

OUT_OF_REACH = 1_000_000
"""The oldest generation's threshold: young collections of the middle generation before a full one."""


def freeze_start_up() -> None:
    """Freeze what start-up made (modules, descriptors, settings): it lives as long as the process."""
    gc.freeze()


class Collector:
    """The collector's schedule while serving (:meth:`run` until cancelled)."""

    def __init__(self, freeze_seconds: float, full_seconds: float) -> None:
        self.freeze_seconds, self.full_seconds = freeze_seconds, full_seconds
        self._thresholds = gc.get_threshold()

    async def run(self) -> None:
        if self.freeze_seconds <= 0:
            return
        young, middle, _ = self._thresholds
        gc.set_threshold(young, middle, OUT_OF_REACH)
        full_due = time.monotonic() + self.full_seconds
        try:
            while True:
                await asyncio.sleep(self.freeze_seconds)
                if self.full_seconds > 0 and time.monotonic() >= full_due:
                    full_due = time.monotonic() + self.full_seconds
                    self.collect_all()
                else:
                    self.collect_recent()
        finally:
            gc.set_threshold(*self._thresholds)

    @staticmethod
    def collect_recent() -> int:
        """Collect what is not frozen (only what came since the last freeze is walked), then freeze what survived.
        Nothing here counts the frozen objects: ``gc.get_freeze_count`` walks them all."""
        found = gc.collect()
        gc.freeze()
        return found

    @staticmethod
    def collect_all() -> int:
        """One full collection of everything, frozen or not; what survives is frozen again. Logged."""
        began = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        get_logger().info(
            "gc_full", unreachable=found, frozen=gc.get_freeze_count(), ms=round(1000 * (time.perf_counter() - began))
        )
        return found
