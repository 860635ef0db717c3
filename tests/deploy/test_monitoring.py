"""deploy/monitoring: the alert rules pass promtool's checks and their unit tests, the Grafana dashboard is well-formed
with the panels it promises, and every metric the two query is one a running server serves.

promtool comes from Debian's prometheus package (``make prometheus-tools``); without it, its tests are skipped.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import grpc
import pytest
import yaml
from prometheus_client import generate_latest

from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from tests.gateway.conftest import Gateway
from tests.host.test_host import host_config, start_host
from tests.service.conftest import BASE, KEYS, Running
from tests.service.test_metrics import metered, names, scrape
from tests.service.test_shutdown import wait_for

ROOT = Path(__file__).resolve().parents[2]
MONITORING = ROOT / "deploy" / "monitoring"
ALERTS = MONITORING / "alerts.yaml"
DASHBOARD = MONITORING / "grafana-dashboard.json"
OPERATIONS = ROOT / "docs" / "operations.md"
HOW = "install Debian's prometheus package, which has it (`make prometheus-tools`; as root: apt-get install prometheus)"
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
PANELS = {
    "Calls per second by method",
    "Errors per second by code",
    "Server error ratio",
    "Latency p50 and p99 (unary calls)",
    "Latency p99 by method",
    "Saturation by cost class",
    "Calls in flight and queued",
    "Admission refusals by reason",
    "Hands finished per minute",
    "Games finished per minute",
    "HTTP requests per second by route and status",
    "HTTP latency p99 by route",
}
ALERT_NAMES = {
    "MazziereHighErrorRatio",
    "MazziereHttpServerErrors",
    "MazziereHighLatencyP99",
    "MazziereShedding",
    "MazzierePodNotReady",
    "MazziereTargetDown",
    "MazziereStoreNearlyFull",
}
NOT_OURS = re.compile(r"^(kube_.*|up)$")
"""Series made by kube-state-metrics and by Prometheus itself, not by the service."""
GRAFANA = {"$__rate_interval": "5m", "$__interval": "1m", "$__range": "1h", "$job": ".*"}


def promtool(*args: str | Path) -> subprocess.CompletedProcess[str]:
    found = shutil.which("promtool")
    if found is None:
        pytest.skip(f"no promtool: {HOW}")
    return subprocess.run([found, *map(str, args)], capture_output=True, text=True, timeout=120, cwd=MONITORING)


@cache
def dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return loaded


def panels() -> list[dict[str, Any]]:
    return [p for p in dashboard()["panels"] if p["type"] != "row"]


def dashboard_exprs() -> list[str]:
    """Every panel's PromQL, Grafana's variables replaced by values Prometheus accepts."""
    out = []
    for panel in panels():
        for target in panel["targets"]:
            expr = target["expr"]
            for variable, value in GRAFANA.items():
                expr = expr.replace(variable, value)
            out.append(expr)
    return out


def alert_rules() -> list[dict[str, Any]]:
    groups = yaml.safe_load(ALERTS.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression selects: what is left once strings, label matchers, ranges, grouping
    clauses, function calls, keywords and numbers are taken out."""
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    expr = re.sub(r"\{[^}]*\}|\[[^\]]*\]", " ", expr)
    expr = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", expr)
    keywords = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool"}
    found = re.finditer(r"(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?", expr)
    return {m.group(1) for m in found if not m.group(2) and m.group(1) not in keywords}


# -- the alert rules --------------------------------------------------------------------------------------------


def test_the_alert_rules_pass_promtool_check_rules() -> None:
    done = promtool("check", "rules", ALERTS)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"SUCCESS: {len(ALERT_NAMES)} rules found" in done.stdout


def test_each_alert_fires_on_its_trouble_and_stays_silent_when_healthy() -> None:
    done = promtool("test", "rules", "alerts_test.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    tests = yaml.safe_load((MONITORING / "alerts_test.yaml").read_text())["tests"]
    cases = [case for test in tests for case in test["alert_rule_test"]]
    for name in ALERT_NAMES:  # each fires somewhere, and is checked silent somewhere
        assert any(c["alertname"] == name and c.get("exp_alerts") for c in cases), name
        assert any(c["alertname"] == name and not c.get("exp_alerts") for c in cases), name


def test_each_alert_waits_names_a_severity_and_a_runbook_section_that_exists() -> None:
    rules = alert_rules()
    assert {r["alert"] for r in rules} == ALERT_NAMES
    headings = {
        re.sub(r"[^a-z0-9 -]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        for line in OPERATIONS.read_text().splitlines()
        if line.startswith("#")
    }
    for rule in rules:
        assert re.fullmatch(r"\d+m", rule["for"]), rule["alert"]
        assert rule["labels"]["severity"] in {"page", "warn"}, rule["alert"]
        assert {"summary", "description", "runbook"} <= set(rule["annotations"]), rule["alert"]
        page, _, anchor = rule["annotations"]["runbook"].partition("#")
        assert page == "docs/operations.md" and anchor in headings, rule["alert"]


def test_the_rules_file_is_a_prometheusrule_spec_as_the_docs_wrap_it() -> None:
    """docs/operations.md indents the file under a PrometheusRule's ``spec:``."""
    header = "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  name: mazziere\nspec:\n"
    body = "".join(f"  {line}" if line.strip() else line for line in ALERTS.read_text().splitlines(keepends=True))
    wrapped = yaml.safe_load(header + body)
    assert wrapped["spec"] == yaml.safe_load(ALERTS.read_text())
    assert "sed 's/^/  /' deploy/monitoring/alerts.yaml" in OPERATIONS.read_text()


# -- the dashboard ----------------------------------------------------------------------------------------------


def test_the_dashboard_is_grafana_json_with_the_expected_panels() -> None:
    board = dashboard()
    assert isinstance(board["schemaVersion"], int) and board["schemaVersion"] >= 36
    assert board["uid"] == "mazziere" and board["title"]
    variables = {v["name"]: v for v in board["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    assert variables["job"]["datasource"] == DATASOURCE
    assert {p["title"] for p in panels()} >= PANELS
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids))
    cells: set[tuple[int, int]] = set()
    for panel in board["panels"]:
        grid = panel["gridPos"]
        assert grid["x"] >= 0 and grid["w"] > 0 and grid["x"] + grid["w"] <= 24, panel["title"]
        mine = {
            (x, y) for x in range(grid["x"], grid["x"] + grid["w"]) for y in range(grid["y"], grid["y"] + grid["h"])
        }
        assert not mine & cells, f"{panel['title']} overlaps another panel"
        cells |= mine
    for panel in panels():
        assert panel["datasource"] == DATASOURCE, panel["title"]
        assert panel["targets"] and panel["fieldConfig"]["defaults"]["unit"], panel["title"]
        refs = [t["refId"] for t in panel["targets"]]
        assert len(refs) == len(set(refs)), panel["title"]
        for target in panel["targets"]:
            assert target["datasource"] == DATASOURCE and target["expr"].strip(), panel["title"]


def test_the_dashboards_queries_are_promql(tmp_path: Path) -> None:
    """promtool parses every panel's query, each as a recording rule."""
    rules = [{"record": f"panel:query_{i}", "expr": expr} for i, expr in enumerate(dashboard_exprs())]
    (tmp_path / "panels.yaml").write_text(yaml.safe_dump({"groups": [{"name": "panels", "rules": rules}]}))
    done = promtool("check", "rules", tmp_path / "panels.yaml")
    assert done.returncode == 0, done.stdout + done.stderr


def test_metric_names_are_found_in_promql() -> None:
    expr = 'sum by (job, le) (rate(a_bucket{job=~"x|y", m!~"Advise"}[5m])) / on(job) b_total{c="d"} > bool 0.5'
    assert metric_names(f"histogram_quantile(0.99, {expr})") == {"a_bucket", "b_total"}
    assert metric_names("up{job=~'mazziere.*'} == 0 and kube_pod_status_ready") == {"up", "kube_pod_status_ready"}


# -- what they query, on a running server -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def served_metrics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[set[str]]:
    """The names on a running server's /metrics once it has played a game to its end and refused a call, on a
    hosting server's (the host's own metrics), and on a REST gateway's once it has answered a request."""
    hosted = start_host(host_config(tmp_path_factory.mktemp("host")))
    try:
        hosted_names = names(scrape(hosted.app.metrics.serve(0, "127.0.0.1")))
    finally:
        hosted.close()
    gateway = Gateway(replace(BASE, seal_keys=KEYS))
    try:
        assert gateway.http.get("/v1/games").status_code == 200
        # The request is counted once its answer is sent, which the caller may see first: wait for the count.
        registry = gateway.app.metrics.registry
        wait_for(lambda: "mazziere_http_requests_total" in names(generate_latest(registry).decode()))
        hosted_names |= names(generate_latest(registry).decode())
    finally:
        gateway.close()
    running = Running(replace(BASE, seal_keys=KEYS))
    try:
        port = metered(running.app).metrics.serve(0, "127.0.0.1")
        client = running.client
        table = client.create("trentuno", chips=1)
        for _ in client.steps(table, random.Random(7), limit=200):
            pass
        assert table.is_over
        with pytest.raises(grpc.RpcError):  # a refusal, for mazziere_rejections_total
            running.stub.GetView(svc.GetViewRequest(table_id=table.table_id, state=table.state, seat=0, seat_key="x"))
        yield names(scrape(port)) | hosted_names
    finally:
        running.close()


def test_every_metric_the_dashboard_and_the_alerts_query_is_served(served_metrics: set[str]) -> None:
    queried = {name for expr in dashboard_exprs() for name in metric_names(expr)}
    queried |= {name for rule in alert_rules() for name in metric_names(rule["expr"])}
    assert {"mazziere_calls_in_flight", "mazziere_admission_refusals_total", "kube_pod_status_ready"} <= queried
    assert {"mazziere_http_requests_total", "mazziere_http_request_duration_seconds_bucket"} <= queried
    missing = sorted(name for name in queried if not NOT_OURS.match(name) and name not in served_metrics)
    assert not missing, f"queried but not served: {missing}"
