"""A watcher's heartbeat (:class:`~mazziere.services.host.hub.Heartbeat`): due once the watcher has taken no news
for its period, never while news keeps coming, and once stopped, never."""

from __future__ import annotations

import asyncio

from mazziere.services.host.hub import HEARTBEAT, Heartbeat, News

PERIOD = 0.05


class Timed(asyncio.Queue[News]):
    """A queue that notes the loop's time of each item put in it."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    def put_nowait(self, item: News) -> None:
        self.times.append(asyncio.get_running_loop().time())
        super().put_nowait(item)


def test_an_idle_watcher_gets_a_heartbeat_each_period() -> None:
    async def run() -> list[float]:
        queue = Timed()
        beat = Heartbeat(queue, PERIOD)
        began = asyncio.get_running_loop().time()
        for _ in range(3):
            assert await asyncio.wait_for(queue.get(), 5.0) is HEARTBEAT
        beat.stop()
        return [at - began for at in queue.times]

    times = asyncio.run(run())  # when each heartbeat was put: a busy machine may take it later
    gaps = [b - a for a, b in zip([0.0, *times], times, strict=False)]
    assert all(gap >= PERIOD * 0.9 for gap in gaps), times  # none early (the loop's clock may round a little)
    assert times[-1] < 100 * PERIOD, times


def test_a_watcher_taking_news_gets_no_heartbeat_until_it_is_idle() -> None:
    period = 0.5  # long beside the news' pace, so a busy machine's late wake-ups stay well under it

    async def run() -> tuple[int, float]:
        queue: asyncio.Queue[News] = asyncio.Queue()
        beat = Heartbeat(queue, period)
        loop = asyncio.get_running_loop()
        last, longest = loop.time(), 0.0
        for _ in range(20):  # news every 50 ms, for twice the period
            await asyncio.sleep(0.05)
            longest, last = max(longest, loop.time() - last), loop.time()
            beat.taken()
        quiet = queue.qsize()
        assert await asyncio.wait_for(queue.get(), 5.0) is HEARTBEAT  # then idle: a heartbeat
        beat.stop()
        return quiet, longest

    quiet, longest = asyncio.run(run())
    assert longest >= period or quiet == 0, longest  # none while news came within the period


def test_a_stopped_heartbeat_puts_nothing_more() -> None:
    async def run() -> int:
        queue: asyncio.Queue[News] = asyncio.Queue()
        Heartbeat(queue, PERIOD).stop()
        await asyncio.sleep(3 * PERIOD)
        return queue.qsize()

    assert asyncio.run(run()) == 0


def test_a_heartbeat_waits_behind_news_already_queued() -> None:
    async def run() -> int:
        queue: asyncio.Queue[News] = asyncio.Queue()
        queue.put_nowait(News(1, 0.0))
        beat = Heartbeat(queue, PERIOD)
        await asyncio.sleep(3 * PERIOD)
        beat.stop()
        return queue.qsize()

    assert asyncio.run(run()) == 1  # the news not taken yet: no heartbeat ahead of or beside it


def test_a_stream_has_lived_once_a_beat_or_news_past_its_lifetime_finds_its_queue_empty() -> None:
    async def run() -> None:
        queue = Timed()
        beat = Heartbeat(queue, PERIOD, lifetime=2.5 * PERIOD)
        began = asyncio.get_running_loop().time()
        assert not beat.lived()
        while not beat.lived():
            assert await asyncio.wait_for(queue.get(), 5.0) is HEARTBEAT
        assert queue.times[-1] - began >= 2.5 * PERIOD  # the beat that found it over came after its lifetime
        beat.taken()
        queue.put_nowait(HEARTBEAT)
        assert not beat.lived()  # news waits: told first
        await queue.get()
        assert beat.lived()
        beat.stop()
        endless = Heartbeat(queue, PERIOD)
        endless.taken()
        assert not endless.lived()
        endless.stop()

    asyncio.run(run())
