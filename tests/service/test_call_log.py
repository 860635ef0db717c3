"""The call log line names the call's table: the one its handler made or opened (an engine call's, a host call's),
and null for a call that opened none."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest
from structlog.testing import capture_logs

from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from tests.host.test_host import cap, host_config, open_trentuno, play_first, start_host
from tests.service.conftest import BASE, KEYS, Running


@pytest.fixture(scope="module")
def running() -> Iterator[Running]:
    r = Running(replace(BASE, seal_keys=KEYS, log_calls=True))
    yield r
    r.close()


def lines(logs: Sequence[Mapping[str, Any]], method: str) -> list[Mapping[str, Any]]:
    return [e for e in logs if e["event"] == "call" and e["method"] == method]


def test_the_call_line_of_an_act_carries_its_table_id(running: Running) -> None:
    client = running.client
    with capture_logs() as logs:
        table = client.create("sette_e_mezzo")
        client.auto(table, "random")
        client.legal(table, 0)
        running.stub.ListGames(svc.ListGamesRequest())
        with pytest.raises(grpc.RpcError):  # a state that does not open: no table is named
            running.stub.Act(svc.ActRequest(table_id=table.table_id, state=b"not a state", auto_play="random"))
    [act, refused] = lines(logs, "Act")
    assert act["table_id"] == table.table_id and act["code"] == "OK" and act["game"] == "sette_e_mezzo"
    assert set(act) >= {"method", "game", "code", "reason", "duration_ms", "request_id", "table_id"}
    assert refused["code"] != "OK" and refused["table_id"] is None
    [created] = lines(logs, "CreateTable")
    [view] = lines(logs, "GetView")
    assert created["table_id"] == view["table_id"] == table.table_id
    [listed] = lines(logs, "ListGames")
    assert listed["table_id"] is None


def test_the_hosts_call_lines_carry_the_hosted_tables_id(tmp_path: Path) -> None:
    hosted = start_host(host_config(tmp_path, log_calls=True))
    try:
        with capture_logs() as logs:
            opened = open_trentuno(hosted.stub)
            play_first(hosted.stub, opened)
            hosted.stub.GetHostedTable(
                hpb.GetHostedTableRequest(table_id=opened.table_id), metadata=cap(opened.owner.capability)
            )
    finally:
        hosted.close()
    for method in ("OpenTable", "GetHostedTable", "Play"):
        found = lines(logs, method)
        assert found and all(e["table_id"] == opened.table_id for e in found), (method, found)
    for method in ("CreateTable", "GetView", "Act"):  # the host's engine work is part of its own call, admitted once
        assert not lines(logs, method), method
