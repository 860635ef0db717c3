"""The collector's schedule while serving (``services/core/collector.py``): no full collection starts by itself,
what came since the last freeze is collected (its cycles freed) and the rest frozen, and the thresholds come back
when it stops."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Callable

from mazziere.services.core.collector import OUT_OF_REACH, Collector

HEAR_S = 30.0


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def _garbage_cycle() -> weakref.ref[Node]:
    first, second = Node(), Node()
    first.other, second.other = second, first
    return weakref.ref(first)


async def _until(condition: Callable[[], bool], seconds: float = HEAR_S) -> None:
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.01)


async def test_while_serving_cycles_are_freed_the_survivors_frozen_and_no_full_collection_starts_by_itself() -> None:
    thresholds = gc.get_threshold()
    frozen = gc.get_freeze_count()
    kept = Node()
    running = asyncio.create_task(Collector(freeze_seconds=0.02, full_seconds=0).run())
    try:
        await _until(lambda: gc.get_threshold()[2] == OUT_OF_REACH)
        cycle = _garbage_cycle()
        await _until(lambda: cycle() is None)  # collected at the next freeze, not frozen with the living
        await _until(lambda: gc.get_freeze_count() > frozen)
        assert gc.is_tracked(kept)
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        gc.unfreeze()
    assert gc.get_threshold() == thresholds


def test_a_full_collection_frees_the_cycles_of_frozen_objects() -> None:
    cycle = _garbage_cycle()
    gc.freeze()  # the cycle is frozen: only a full collection after unfreezing finds it
    try:
        assert cycle() is not None
        gc.collect()
        assert cycle() is not None
        assert Collector.collect_all() >= 2
        assert cycle() is None
    finally:
        gc.unfreeze()
