"""One run of a rolling-deploy test: the processes it started, its tables with their people and watchers, and the
page; the rounds' pace (until every table has moved on and every watcher has shown it), the tables' closing, the
audit and its report, and the stop of everything at the end."""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.host.conftest import Backend
from tests.host.rolling.audit import Audit
from tests.host.rolling.fleet import Process
from tests.host.rolling.page import Page
from tests.host.rolling.players import HostedTable, InFlight, People, Replica, close_table
from tests.host.rolling.watchers import Watcher

GRACE_S = 10.0
SETTLE_S = 120.0
"""How long a round may take to show its steps everywhere (a condition, on a loaded machine, never a measured time)."""
STEPS_A_ROUND = 4
"""The steps every table makes, and every watcher shows, between two restarts."""
LOG_FAULTS = ('"level": "error"', '"level": "critical"', "Traceback", "notification_unreadable")
"""What no process may log."""


def env(data: Path, grpc_port: int, rest_port: int = 0, /, **settings: str) -> dict[str, str]:
    """A process's environment: on 127.0.0.1, its own data folder, quiet calls, and ``settings`` (``MAZZIERE_`` and
    the upper-case name)."""
    variables = {
        **os.environ,
        "MAZZIERE_HOST": "127.0.0.1",
        "MAZZIERE_PORT": str(grpc_port),
        "MAZZIERE_REST_HOST": "127.0.0.1",
        "MAZZIERE_REST_PORT": str(rest_port),
        "MAZZIERE_METRICS_PORT": "0",
        "MAZZIERE_LOG_CALLS": "false",
        "MAZZIERE_GRACE_SECONDS": f"{GRACE_S:g}",
        "MAZZIERE_DATA_DIR": str(data),
    }
    if rest_port:
        variables["MAZZIERE_PUBLIC_URL"] = f"http://127.0.0.1:{rest_port}"
    return variables | {f"MAZZIERE_{name.upper()}": value for name, value in settings.items()}


class Run:
    """Everything one test started: processes, people, watchers, the page; stopped in reverse at the end."""

    def __init__(self) -> None:
        self.processes: list[Process] = []
        self.tables: list[HostedTable] = []
        self.people: list[People] = []
        self.watchers: list[Watcher] = []
        self.page: Page | None = None
        self.in_flight = InFlight()

    def process(self, process: Process) -> Process:
        self.processes.append(process)
        process.start()
        return process

    def seat(self, table: HostedTable, replicas: Sequence[Replica], watched_on: Sequence[Process]) -> None:
        """People at ``table`` (through ``replicas``) and a watcher on each of ``watched_on``."""
        self.tables.append(table)
        self.people.append(People(table, replicas, self.in_flight))
        self.watchers += [Watcher(table, process) for process in watched_on]
        self.people[-1].start()
        for watcher in self.watchers[-len(watched_on) :]:
            watcher.start()

    def settle(self) -> None:
        """Until every table has made a few more steps, and every watcher (the page too) has shown them."""
        targets = {table.name: self.latest(table) + STEPS_A_ROUND for table in self.tables}
        deadline = time.monotonic() + SETTLE_S
        while any(w.last_seq < targets[w.table.name] for w in self.watchers):
            self.check_people()
            behind = [f"{w.label} at {w.last_seq}" for w in self.watchers if w.last_seq < targets[w.table.name]]
            assert time.monotonic() < deadline, f"no progress within {SETTLE_S:g} s: {behind}, wanted {targets}"
            time.sleep(0.1)
        if self.page is not None:
            self.page.wait_seq(targets[self.page.table.name])

    def latest(self, table: HostedTable) -> int:
        return max(w.last_seq for w in self.watchers if w.table is table)

    def check_people(self) -> None:
        errors = [error for people in self.people for error in people.errors]
        assert not errors, errors

    def close(self, replica: Replica) -> None:
        """People leave, the owners close every table, and every watcher sees the closing step."""
        for people in self.people:
            people.stop()
        self.check_people()
        for table in self.tables:
            close_table(replica, table)
        for watcher in self.watchers:
            assert watcher.ended.wait(SETTLE_S), f"{watcher.label} did not end at the table's closing"
            assert not watcher.error, f"{watcher.label}: {watcher.error}"
        if self.page is not None:
            self.page.wait_closed()
            self.page.collect()

    def audit(self, store: Backend, summary: Callable[[str], None], title: str) -> None:
        watchers: list[Any] = [*self.watchers, *([self.page] if self.page else [])]
        sent = [sent for people in self.people for sent in people.sent]
        stops = sorted((stop for process in self.processes for stop in process.stops), key=lambda s: s.signalled)
        again = sum((people.again for people in self.people), Counter[str]())
        page = self.page.streams if self.page else None
        audit = Audit(store, self.tables, sent, watchers, stops, GRACE_S, again, page)
        audit.run()
        summary("\n".join([f"{title}:", *(f"  {line}" for line in audit.report)]))
        assert not audit.problems, "\n".join(audit.problems)
        assert not self.page or not self.page.errors, self.page.errors
        for process in self.processes:
            faults = [line for line in process.log.read_text().splitlines() if any(f in line for f in LOG_FAULTS)]
            assert not faults, f"{process.name} logged:\n" + "\n".join(faults[:20])

    def stop(self) -> None:
        for people in self.people:
            people.stopping.set()
        for watcher in self.watchers:
            watcher.stop()
        if self.page is not None:
            self.page.close()
        for process in self.processes:
            process.kill()


@contextmanager
def running() -> Iterator[Run]:
    run = Run()
    try:
        yield run
    finally:
        run.stop()
