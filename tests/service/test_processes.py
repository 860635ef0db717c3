"""The costly classes' engine work in worker processes: the same answers and refusals as on the server's threads,
cut by the server's budget, stopped when its caller leaves, and a worker process that dies is an UNAVAILABLE the
next call does not see."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest

from mazziere.engine import bots
from mazziere.services.core.admission import CostClass
from mazziere.services.core.call import Call
from mazziere.services.core.processes import WorkerProcesses
from mazziere.services.errors import ServiceError
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from tests.service.conftest import BASE
from tests.service.test_admission import reason
from tests.service.test_load import Served
from tests.service.test_shutdown import wait_for

ROOT = Path(__file__).resolve().parents[2]
HELD = 999
"""Advice asked with this many samples is held in the worker process until its ``stop`` turns true (no sample)."""


def _holding() -> None:
    """In each worker process: advice of :data:`HELD` samples waits for its ``stop``; any other is the engine's."""
    real = bots.advise

    def advise(*args: Any, samples: int | None = None, stop: Any = None, **kwargs: Any) -> bots.Advice:
        if samples == HELD:
            while not stop():
                time.sleep(0.005)
        return real(*args, samples=samples, stop=stop, **kwargs)

    bots.advise = advise  # type: ignore[assignment]


def _nothing(*, stop: Any) -> None:
    return None


class Dealt:
    """A server whose ``bot`` and ``advice`` work runs in a worker process, and the first turn of a 6-seat Trentuno
    deal there: its state and seat keys."""

    def __init__(self) -> None:
        self.served = Served(replace(BASE, worker_processes=1, replay_seconds=60.0))
        dispatcher = self.served.app.dispatcher
        assert dispatcher.processes is not None
        dispatcher.processes.close()  # the documented pool, never started, for one that can hold advice
        dispatcher.processes = self.processes = WorkerProcesses(1, 2, initializer=_holding)
        self.processes.run(_nothing, (), None, lambda: False)  # started: the calls below wait for no start-up
        seats = [pb.Seat(name=f"p{i}", chips=100) for i in range(6)]
        stub = self.served.stub
        created = stub.CreateTable(svc.CreateTableRequest(game="trentuno", seats=seats, seed=b"a"), timeout=10)
        self.keys = {k.seat: k.key for k in created.seat_keys}
        dealer = created.to_act[0]
        deal = pb.Action(seat=dealer, kind="DEAL")
        act = svc.ActRequest(
            table_id=created.table_id, state=created.state, expected_seq=0, action=deal, seat_key=self.keys[dealer]
        )
        self.table_id = created.table_id
        self.dealt = stub.Act(act, timeout=10)
        self.seat = self.dealt.to_act[0]

    def advise(self, samples: int) -> svc.AdviseRequest:
        key = self.keys[self.seat]
        state = self.dealt.state
        return svc.AdviseRequest(table_id=self.table_id, state=state, seat=self.seat, seat_key=key, samples=samples)

    def best(self, seat: int) -> svc.ActRequest:
        return svc.ActRequest(
            table_id=self.table_id,
            state=self.dealt.state,
            expected_seq=self.dealt.seq,
            auto_play="best",
            auto_seat=seat,
            seat_key=self.keys[seat],
        )


@pytest.fixture(scope="module")
def dealt() -> Iterator[Dealt]:
    table = Dealt()
    yield table
    table.served.close()


def test_advice_from_a_worker_process_is_the_advice_given_in_process(dealt: Dealt) -> None:
    request = dealt.advise(200)
    pooled = dealt.served.stub.Advise(request, timeout=30)
    assert pooled == dealt.served.app.table.advise(request, Call())  # no offload: on this thread
    assert pooled.samples == 200


def test_a_sampling_bot_in_a_worker_process_plays_as_in_process(dealt: Dealt) -> None:
    request = dealt.best(dealt.seat)
    pooled = dealt.served.stub.Act(request, timeout=30)
    assert pooled.action == dealt.served.app.table.act(request, Call()).action


def test_an_engine_refusal_in_a_worker_process_is_the_refusal_in_process(dealt: Dealt) -> None:
    request = dealt.best(next(s for s in dealt.keys if s != dealt.seat))  # not that seat's turn
    with pytest.raises(ServiceError) as here:
        dealt.served.app.table.act(request, Call())
    with pytest.raises(grpc.RpcError) as there:
        dealt.served.stub.Act(request, timeout=30)
    assert reason(there.value) == f"{here.value.code.name}/{here.value.reason}"


def test_the_servers_budget_cuts_the_work_of_a_worker_process(dealt: Dealt, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dealt.served.app.dispatcher, "budget_seconds", 0.3)
    with pytest.raises(grpc.RpcError) as caught:
        dealt.served.stub.Advise(dealt.advise(HELD), timeout=30)
    assert reason(caught.value) == "RESOURCE_EXHAUSTED/REPLAY_BUDGET_EXCEEDED"  # as on the threads
    wait_for(lambda: dealt.served.taken(CostClass.ADVICE) == 0)


def test_work_in_a_worker_process_stops_at_its_callers_deadline(dealt: Dealt) -> None:
    with pytest.raises(grpc.RpcError):
        dealt.served.stub.Advise(dealt.advise(HELD), timeout=0.3)
    wait_for(lambda: dealt.served.taken(CostClass.ADVICE) == 0)  # its thread waits for the worker: it stopped


def test_work_in_a_worker_process_stops_when_its_caller_leaves(dealt: Dealt) -> None:
    future = dealt.served.stub.Advise.future(dealt.advise(HELD), timeout=60)
    wait_for(lambda: dealt.served.taken(CostClass.ADVICE) == 1)
    time.sleep(0.1)
    future.cancel()
    wait_for(lambda: dealt.served.taken(CostClass.ADVICE) == 0)  # its thread waits for the worker: it stopped


def test_a_worker_process_that_dies_fails_its_call_as_unavailable_and_the_next_call_is_served(dealt: Dealt) -> None:
    future = dealt.served.stub.Advise.future(dealt.advise(HELD), timeout=60)
    wait_for(lambda: dealt.served.taken(CostClass.ADVICE) == 1 and bool(dealt.processes.pids()))
    time.sleep(0.1)
    (pid,) = dealt.processes.pids()
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(grpc.RpcError) as caught:
        future.result()
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]
    assert dealt.served.stub.Advise(dealt.advise(50), timeout=30).samples == 50
    assert dealt.processes.pids() != [pid]


def _pid(*, stop: Any) -> int:
    return os.getpid()


def test_where_no_process_can_start_the_work_runs_on_the_asking_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_temporary_folder(*args: Any, **kwargs: Any) -> Any:
        raise FileNotFoundError("No usable temporary directory found")

    monkeypatch.setattr(futures, "ProcessPoolExecutor", no_temporary_folder)
    processes = WorkerProcesses(1, 1)
    assert processes.run(_pid, (), None, lambda: False) == os.getpid()
    assert processes.unusable.startswith("FileNotFoundError")
    assert processes.run(_pid, (), None, lambda: False) == os.getpid()  # and from then on, without trying again
    processes.close()


KILLED_SERVER = """
import os, signal
from mazziere.services.core.processes import WorkerProcesses
from tests.service.test_processes import _pid
if __name__ == "__main__":
    print(WorkerProcesses(1, 1).run(_pid, (), None, lambda: False), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_server_killed_outright_leaves_no_worker_process_behind(tmp_path: Path) -> None:
    script = tmp_path / "killed.py"
    script.write_text(KILLED_SERVER)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
        text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == -signal.SIGKILL, done.stderr
    worker = int(done.stdout)
    wait_for(lambda: not Path(f"/proc/{worker}").exists())


def test_closing_the_worker_processes_waits_for_their_manager_thread() -> None:
    """Closing waits (bounded) for the pool's manager thread: at exit, CPython 3.11 may otherwise wake that thread
    while it closes its own wake-up pipe, and print an OSError traceback (which the deploy tests count as a fault)."""

    def managers() -> set[threading.Thread]:
        return {t for t in threading.enumerate() if type(t).__name__ == "_ExecutorManagerThread" and t.is_alive()}

    others = managers()  # other tests' pools
    processes = WorkerProcesses(1, 1)
    assert processes.run(_pid, (), None, lambda: False) != os.getpid()
    assert managers() - others
    processes.close()
    assert not managers() - others
