"""A hosted stream's write limit (``write_seconds``): a write that lasts longer ends the stream as Stalled; writes
that each finish in time never do, however long the stream lives; a drain still ends it as SHUTTING_DOWN."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator

import pytest

from mazziere.services.core.admission import Admission, CostClass, Tenants
from mazziere.services.core.dispatch import Dispatcher, Stalled
from mazziere.services.core.metrics import Metrics
from mazziere.services.core.observe import Observer
from mazziere.services.errors import ServiceError, ServiceReason

LIMIT = 0.3


@pytest.fixture
def dispatcher() -> Iterator[Dispatcher]:
    served = Dispatcher(
        [],
        Observer(Metrics(), games=(), log_calls=False),
        Admission({CostClass.MOVE: 8}, Tenants(), per_table=4),
        {CostClass.MOVE: 1},
        budget_seconds=5.0,
        write_seconds=LIMIT,
        max_message_bytes=1 << 20,
    )
    yield served
    served.shutdown()


async def answers(count: int) -> AsyncIterator[bytes]:
    for i in range(count):
        yield bytes([i])


def test_a_write_that_outlasts_the_limit_ends_the_stream_as_stalled(dispatcher: Dispatcher) -> None:
    written: list[bytes] = []

    async def write(item: bytes) -> None:
        written.append(item)
        if len(written) == 2:
            await asyncio.sleep(60)  # a reader that stopped reading

    async def run() -> float:
        began = time.monotonic()
        with pytest.raises(Stalled):
            await dispatcher._hosted_stream(answers(5), write, False, None)
        return time.monotonic() - began

    elapsed = asyncio.run(run())
    assert written == [b"\x00", b"\x01"]
    assert LIMIT <= elapsed < 5.0


def test_writes_each_within_the_limit_never_stall_a_stream_that_outlives_it(dispatcher: Dispatcher) -> None:
    written: list[bytes] = []

    async def write(item: bytes) -> None:
        await asyncio.sleep(LIMIT / 6)
        written.append(item)

    asyncio.run(dispatcher._hosted_stream(answers(24), write, False, None))  # 1.2 s in all, 4 times the limit
    assert len(written) == 24


def test_a_drain_still_ends_a_hosted_stream_as_shutting_down(dispatcher: Dispatcher) -> None:
    async def endless() -> AsyncIterator[bytes]:
        while True:
            yield b"x"
            await asyncio.sleep(0.01)

    async def write(item: bytes) -> None:
        pass

    async def run() -> None:
        stream = asyncio.ensure_future(dispatcher._hosted_stream(endless(), write, False, None))
        await asyncio.sleep(0.05)
        dispatcher.drain()
        with pytest.raises(ServiceError) as refused:
            await stream
        assert refused.value.reason == ServiceReason.SHUTTING_DOWN.name

    asyncio.run(run())
