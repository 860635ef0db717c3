"""A refusal to come back later, to a caller that came back before an earlier refusal's hint ended, is sent when
that hint ends (services/core/hints.py): a caller that ignores its hints is refused at their pace."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import grpc
import pytest
from google.protobuf import empty_pb2

from mazziere.services.config import ConfigError
from mazziere.services.core.admission import CostClass
from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Method
from mazziere.services.core.hints import MOST_HELD, RetryHints
from tests.service.conftest import BASE
from tests.service.helpers import error_info
from tests.service.test_load import Served, retry_delay


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_first_refusal_is_sent_at_once_and_one_that_ignored_its_hint_when_the_hint_ends() -> None:
    clock = Clock(100.0)
    hints = RetryHints(clock=clock)
    assert hints.refused("ip:a", 1.0) == 0.0
    clock.now = 100.2
    assert hints.refused("ip:a", 1.0) == pytest.approx(0.8)  # came back 0.2 s into a hint of 1 s
    hints.release()
    clock.now = 101.0  # as that held refusal is sent: its own hint counts from now, to 102.0
    assert hints.refused("ip:a", 1.0) == pytest.approx(1.0)
    hints.release()
    assert hints.refused("ip:b", 1.0) == 0.0  # another caller: its own first refusal
    clock.now = 103.1  # past the last hint (103.0): this caller waited
    assert hints.refused("ip:a", 1.0) == 0.0
    assert hints.held == 0


def test_a_refusal_is_held_at_most_hold_seconds_and_never_with_zero() -> None:
    clock = Clock(0.0)
    hints, never = RetryHints(clock=clock), RetryHints(0.0, clock=clock)
    for each in (hints, never):
        assert each.refused("tenant:t", 60.0) == 0.0
    clock.now = 1.0
    assert hints.refused("tenant:t", 60.0) == 1.0  # 59 s left of the hint: held 1 s
    assert never.refused("tenant:t", 60.0) == 0.0
    assert never.held == 0


def test_a_refusal_is_held_at_most_what_the_caller_allows() -> None:
    clock = Clock(0.0)
    hints = RetryHints(clock=clock)
    hints.refused("ip:a", 1.0)
    clock.now = 0.1
    assert hints.refused("ip:a", 1.0, at_most=0.25) == 0.25  # half a call's 0.5 s, say
    assert hints.refused("ip:a", 1.0, at_most=-1.0) == 0.0  # a deadline already past: sent at once
    assert hints.held == 1


def test_at_most_most_held_refusals_are_held_at_once() -> None:
    hints = RetryHints(clock=Clock(0.0))
    hints.refused("ip:a", 1.0)
    holds = [hints.refused("ip:a", 1.0) for _ in range(MOST_HELD + 5)]
    assert sum(hold > 0 for hold in holds) == MOST_HELD == hints.held  # the rest sent at once
    hints.release()
    assert hints.refused("ip:a", 1.0) > 0


def test_the_least_recently_refused_callers_are_forgotten() -> None:
    hints = RetryHints(clock=Clock(0.0), most=2)
    for caller in ("ip:a", "ip:b", "ip:c"):
        assert hints.refused(caller, 1.0) == 0.0
    assert hints.refused("ip:a", 1.0) == 0.0  # forgotten: a first refusal again (and "ip:b" goes)
    assert hints.refused("ip:c", 1.0) > 0


def test_the_hold_is_a_setting_of_zero_to_a_minute() -> None:
    assert replace(BASE, refusal_hold_seconds=0.0).check() is None
    for wrong in (-1.0, 61.0, float("nan")):
        with pytest.raises(ConfigError, match="MAZZIERE_REFUSAL_HOLD_SECONDS"):
            replace(BASE, refusal_hold_seconds=wrong).check()


@pytest.fixture
def full() -> Iterator[Served]:
    """A server whose one move place is taken by a call that waits for a gate."""
    gate = threading.Event()

    def hold(request: empty_pb2.Empty, call: Call) -> empty_pb2.Empty:
        gate.wait(20)
        return empty_pb2.Empty()

    served = Served(
        replace(BASE, workers=1, max_concurrent_calls=1), [Method("test.v1.Hold", "Hold", hold, empty_pb2.Empty)]
    )
    held = served.channel.unary_unary("/test.v1.Hold/Hold").future(b"", timeout=30)
    deadline = time.monotonic() + 10
    while served.taken(CostClass.MOVE) < 1:
        assert time.monotonic() < deadline, "the held call did not arrive"
        time.sleep(0.01)
    yield served
    gate.set()
    assert held.result() == b""
    served.close()


def refused_after(served: Served, timeout: float = 10.0) -> tuple[float, grpc.RpcError]:
    start = time.monotonic()
    with pytest.raises(grpc.RpcError) as caught:
        served.channel.unary_unary("/test.v1.Hold/Hold")(b"", timeout=timeout)
    return time.monotonic() - start, caught.value


def test_a_caller_that_ignores_its_hint_gets_its_next_refusal_when_the_hint_ends(full: Served) -> None:
    def holds() -> float:
        return full.count("mazziere_refusals_held_total", {})

    refusals = [refused_after(full) for _ in range(3)]  # each sent again as soon as it is refused
    for _, exc in refusals:
        info = error_info(exc)
        assert info is not None and info.reason == "OVERLOADED" and retry_delay(exc) == 1.0
    assert all(took >= 0.5 for took, _ in refusals[1:])  # held until the hint it ignored ended (about 1 s)
    assert holds() == 2 and full.app.dispatcher.hints.held == 0
    took, exc = refused_after(full, timeout=0.6)  # a short deadline: held half of it, and still the refusal
    assert took >= 0.25 and error_info(exc) is not None and holds() == 3
    time.sleep(1.1)  # this time the caller waits out its hint: refused at once
    _, exc = refused_after(full)
    assert error_info(exc) is not None and holds() == 3
    labels = {"grpc_type": "unary", "grpc_service": "test.v1.Hold", "grpc_method": "Hold"}
    assert full.count("grpc_server_handled_total", {**labels, "grpc_code": "RESOURCE_EXHAUSTED"}) == 5
