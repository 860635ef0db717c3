"""A rolling deploy as the players live it.

Two host replicas, A and B, on one PostgreSQL, in front of an engine process (the split host); three tables of people
who play scripted moves, watched through the Python client's ``Client.watch`` on both replicas and by one Chromium
page of the web table on A's REST port (neither has reconnection code of the test's); turn timers running (short
turns, and seats nobody plays). A is restarted (SIGTERM, then started again on the same ports), then B, twice each:
the second time as a newer build that writes a new optional field in the stored row and in the notification
(tests/host/newer_build.py), A first, beside the old B; then the engine. Then the same with the embedded default:
one ``mazziere serve`` on SQLite, restarted once, and the page comes back by itself with the table as it was.

Asserted (tests/host/rolling/audit.py): every stream resumes with no gap and no repeat; no acknowledged move is
lost; each due turn is played by the host once, never before it was due; no watcher goes more than 10 s without an
update it was owed; each process exits before its grace ends. Printed against their goals: the longest wait for an
owed update (under 2 s) and each process's exit after its last in-flight Play (under 1 s).

Long tests (``pytest -m long``). They need PostgreSQL, Chromium and the web table's build (``make web``): without
them they are skipped, except under ``make test`` (``REQUIRE_ROLLING_DEPLOY=1``), where that fails instead.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.host.conftest import Backend
from tests.host.rolling.fleet import NEWER, Process
from tests.host.rolling.page import Page
from tests.host.rolling.players import Replica, open_table
from tests.host.rolling.run import env, running
from tests.ports import free_port
from tests.service.conftest import KEYS
from tests.web.conftest import DIST

pytestmark = pytest.mark.long

REQUIRED = os.environ.get("REQUIRE_ROLLING_DEPLOY") == "1"
"""Set by ``make test``: what these tests need must be there, a skip fails."""
SHORT_TURN_S = 2
IN_FLIGHT_S = 10.0
"""How long a restart waits for a Play to be under way on the process it stops (then it stops it anyway)."""


def _needed(request: pytest.FixtureRequest, fixture: str) -> Any:
    """The fixture's value; its skip, under ``make test``, a failure."""
    try:
        return request.getfixturevalue(fixture)
    except pytest.skip.Exception as exc:
        if REQUIRED:
            pytest.fail(f"the rolling-deploy tests may not be skipped under make test: {exc}", pytrace=False)
        raise


@pytest.fixture
def chromium(request: pytest.FixtureRequest) -> Any:
    """Chromium, with the web table built."""
    if not (DIST / "index.html").is_file():
        message = "clients/web/dist is missing: run `make web` (make test does)"
        if REQUIRED:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return _needed(request, "browser")


def test_a_rolling_deploy_of_two_replicas_and_the_engine(
    request: pytest.FixtureRequest, chromium: Any, tmp_path: Path, summary: Callable[[str], None]
) -> None:
    postgres: Backend = _needed(request, "postgres")
    engine_port = free_port()
    keys = {"seal_keys": KEYS}  # every process of a deployment has the same (the hosts seal nothing, split)
    replica_env = {"store_url": postgres.url, "host_replicas": "2", "engine_target": f"127.0.0.1:{engine_port}"}
    replica_env |= keys
    with running() as run:
        engine = run.process(
            Process(
                "engine",
                env(tmp_path / "engine", engine_port, host_enabled="false", **keys),
                engine_port,
                0,
                tmp_path / "engine.log",
            )
        )
        a, b = (
            run.process(
                Process(name, env(tmp_path / name, port, rest, **replica_env), port, rest, tmp_path / f"{name}.log")
            )
            for name, port, rest in (("A", free_port(), free_port()), ("B", free_port(), free_port()))
        )
        on_a, on_b = Replica.at("A", a.target), Replica.at("B", b.target)
        names = ["Ada", "Bruno", "Carla"]
        run.seat(open_table(on_a, "T1", "trentuno", names, {0, 1, 2}, 30), [on_a, on_b], [a, b])
        run.seat(open_table(on_b, "T2", "trentuno", names, {0, 1}, SHORT_TURN_S), [on_b, on_a], [a, b])
        run.seat(open_table(on_a, "T3", "sette_e_mezzo", names, {0, 2}, SHORT_TURN_S), [on_a, on_b], [a, b])
        run.page = Page(chromium, run.tables[1], a)
        run.page.open()
        run.settle()
        for process, build in ((a, ""), (b, ""), (a, NEWER), (b, NEWER), (engine, "")):
            during_a_play = None if process is engine else process.name  # stopped with a Play in flight, if can be
            process.restart(build, functools.partial(run.in_flight.wait, during_a_play, IN_FLIGHT_S))
            if process is a and build:  # a table opened by the newer build, played and watched on both
                run.seat(open_table(on_a, "T4", "trentuno", names, {0, 2}, SHORT_TURN_S), [on_b, on_a], [a, b])
                stored = postgres.sql(f"SELECT settings FROM tables WHERE table_id = '{run.tables[-1].table_id}'")
                assert json.loads(bytes(stored[0][0]))["felt"] == "verde"  # the new field, which B reads past
            run.settle()
        run.close(on_b)
        for process in (a, b, engine):
            process.terminate()
        run.audit(postgres, summary, "A rolling deploy: replicas A and B on PostgreSQL, and the engine")


def test_the_embedded_default_restarted_comes_back_as_it_was(
    chromium: Any, tmp_path: Path, summary: Callable[[str], None]
) -> None:
    port, rest = free_port(), free_port()
    data = tmp_path / "data"
    with running() as run:
        server = run.process(Process("mazziere", env(data, port, rest), port, rest, tmp_path / "mazziere.log"))
        replica = Replica.at("mazziere", server.target)
        names = ["Ada", "Bruno", "Carla"]
        run.seat(open_table(replica, "T1", "trentuno", names, {0, 1, 2}, 60), [replica], [server])
        run.seat(open_table(replica, "T2", "trentuno", names, {0, 1}, SHORT_TURN_S), [replica], [server])
        run.seat(open_table(replica, "T3", "sette_e_mezzo", names, {0, 2}, SHORT_TURN_S), [replica], [server])
        run.page = Page(chromium, run.tables[0], server)
        run.page.open()
        run.settle()
        for people in run.people:
            people.pause()
        run.page.wait_seq(run.latest(run.tables[0]))
        before, streams = run.page.shown(), run.page.streams_opened()
        server.restart()
        run.page.wait_live_again(streams)
        assert run.page.shown() == before, "the web table did not come back with the table as it was"
        for people in run.people:
            people.resume()
        run.settle()
        run.close(replica)
        server.terminate()
        store = Backend("sqlite", f"sqlite:///{data / 'tables.db'}", data / "tables.db")
        run.audit(store, summary, "The embedded default (SQLite, one process) restarted")
