"""The OpenAPI document: its descriptions without the source tree, its schemas' details, and /docs offline."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from google.protobuf import json_format

from mazziere.services.gen.mazziere.v1 import errors_pb2
from mazziere.services.http.app import SWAGGER_UI_STATIC, create_app
from mazziere.services.http.comments import COMMENTS_FILE, proto_comments
from mazziere.services.http.errors import HTTP_STATUS
from mazziere.services.http.routes import HOST_SERVICE, ROUTES, Route
from mazziere.services.wire import protojson
from tests.gateway.conftest import BASE, Gateway
from tests.gateway.test_fuzz import _NoBackend

ROOT = Path(__file__).resolve().parents[2]


def test_codegen_writes_the_comments_beside_the_generated_modules() -> None:
    path = ROOT / "services" / "gen" / COMMENTS_FILE
    notes = json.loads(path.read_text())
    assert "sequence number" in notes["mazziere.v1.ActRequest.expected_seq"]
    assert notes == proto_comments()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project built as a wheel from a copy of what the image's build stage holds (no protos/ needed)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("engine", "services"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("dist")
    build = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run([*build, "-w", str(out), str(src)], check=True, capture_output=True, timeout=300)
    (found,) = out.glob("mazziere-*.whl")
    return found


def test_the_comments_are_in_the_package_files(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert f"mazziere/services/gen/{COMMENTS_FILE}" in names
    assert "mazziere/services/gen/mazziere/v1/service_pb2.py" in names
    assert not any(n.startswith("protos/") for n in names)


def test_the_wheel_installs_everything_under_the_mazziere_namespace(wheel: Path) -> None:
    """Nothing as generic as `engine` or `services` lands in site-packages: the folders install as mazziere.*."""
    tops = {n.split("/")[0] for n in zipfile.ZipFile(wheel).namelist()}
    assert tops == {"mazziere", wheel.name.split("-py")[0] + ".dist-info"}
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "mazziere/__init__.py" not in names, "mazziere is a namespace package"
    files = [p for name in ("engine", "services") for p in (ROOT / name).rglob("*.py")]
    sources = {f"mazziere/{p.relative_to(ROOT)}" for p in files}
    assert sources <= names, f"left out of the wheel: {sorted(sources - names)}"


_PROBE = """
import json
from mazziere import services
from mazziere.services.http.app import SWAGGER_UI_STATIC, create_app
from tests.gateway.conftest import BASE, Gateway
from tests.gateway.test_fuzz import _NoBackend
doc = create_app(_NoBackend(), BASE).openapi()
print(json.dumps({"file": services.__file__, "doc": doc}))
"""


def test_the_installed_app_has_descriptions_without_protos(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    shutil.copytree(ROOT / "tests", site / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    assert not (site / "protos").exists()
    env = {"PYTHONPATH": str(site), "PATH": ""}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=site, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    result = json.loads(done.stdout.splitlines()[-1])
    assert Path(result["file"]).is_relative_to(site), "the probe must import the wheel's files"
    schemas = result["doc"]["components"]["schemas"]
    assert "sequence number" in schemas["mazziere.v1.ActRequest"]["properties"]["expectedSeq"]["description"]
    assert schemas["mazziere.v1.ActRequest"]["description"] == "ActRequest plays one action."


# -- what the document says ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    """The document of a server that hosts tables: TableService's routes and HostService's."""
    document: dict[str, Any] = create_app(_NoBackend(), BASE, host=(HOST_SERVICE, _NoBackend())).openapi()
    return document


def rpc_operations(doc: dict[str, Any]) -> Iterator[tuple[Route, dict[str, Any]]]:
    for route in ROUTES:
        yield route, doc["paths"][route.path][route.http_method.lower()]


def test_request_bodies_are_required(doc: dict[str, Any]) -> None:
    for route, op in rpc_operations(doc):
        if route.http_method == "POST":
            assert op["requestBody"]["required"] is True, route.rpc


def test_fields_without_presence_show_their_proto3_default(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    act = schemas["mazziere.v1.ActRequest"]["properties"]
    assert act["expectedSeq"]["default"] == "0" and act["includeSpectator"]["default"] is False
    assert act["seatKey"]["default"] == "" and act["viewers"]["default"] == []
    assert "default" not in act["action"], "a message field is unset, not a value"
    assert schemas["mazziere.v1.Action"]["properties"]["seat"]["default"] == 0
    assert schemas["mazziere.v1.ActResponse"]["properties"]["isOver"]["default"] is False
    view = schemas["mazziere.v1.GetViewRequest"]["properties"]
    assert "default" not in view["seat"], "optional int32 seat: absent is the spectator, not seat 0"
    phase = schemas["mazziere.v1.SetteEMezzoView"]["properties"]["phase"]
    assert phase["default"] == "SETTE_E_MEZZO_PHASE_UNSPECIFIED" and phase["default"] in phase["enum"]


def test_error_reason_is_the_enum_of_error_reasons(doc: dict[str, Any]) -> None:
    reason = doc["components"]["schemas"]["ErrorDetail"]["properties"]["reason"]
    expected = [v.name.removeprefix("ERROR_REASON_") for v in errors_pb2.ErrorReason.DESCRIPTOR.values if v.number]
    assert reason["enum"] == expected and "NOT_YOUR_TURN" in expected and "UNSPECIFIED" not in expected
    for path in doc["paths"].values():
        for op in path.values():
            for code, response in op["responses"].items():
                example = response.get("content", {}).get("application/json", {}).get("example", {})
                for detail in example.get("error", {}).get("details", []):
                    assert detail["reason"] in expected, (code, detail)


def test_error_examples_name_the_status_of_their_code(doc: dict[str, Any]) -> None:
    by_code = {str(code): status.name for status, code in HTTP_STATUS.items()}
    for _, op in rpc_operations(doc):
        for code, response in op["responses"].items():
            if code in ("503", "504", "500", "429", "403", "409"):
                example = response["content"]["application/json"]["example"]["error"]
                assert example["code"] == int(code)
                assert example["status"] == by_code[code] or (code, example["status"]) == ("500", "INTERNAL")
    unavailable = doc["paths"]["/v1/tables"]["post"]["responses"]["503"]["content"]["application/json"]["example"]
    assert unavailable["error"]["status"] == "UNAVAILABLE"
    assert unavailable["error"]["details"][0]["reason"] == "SHUTTING_DOWN"


def test_every_200_answer_has_an_example_that_matches_its_schema(doc: dict[str, Any]) -> None:
    for route, op in rpc_operations(doc):
        ((media_type, content),) = op["responses"]["200"]["content"].items()
        assert media_type == ("application/x-ndjson" if route.streaming else "application/json"), route.rpc
        example = content["example"]
        assert example, route.rpc
        validator = jsonschema_rs.Draft202012Validator({**content["schema"], "components": doc["components"]})
        errors = [str(e) for e in validator.iter_errors(example)]
        assert not errors, (route.rpc, errors[:3])
        # and what the gateway would print: the same message, parsed and printed again
        message = json_format.ParseDict(example, route.response_class())
        assert json.loads(protojson.to_json(message)) == example, route.rpc
    for path in ("/healthz", "/readyz"):
        assert doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["example"]


def test_servers_and_the_seat_key_scheme(doc: dict[str, Any]) -> None:
    assert doc["servers"][0]["url"] == "/"
    assert doc["components"]["securitySchemes"]["SeatKey"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Seat-Key",
        "description": doc["components"]["securitySchemes"]["SeatKey"]["description"],
    }
    for route, op in rpc_operations(doc):
        takes_key = "seat_key" in route.request_class.DESCRIPTOR.fields_by_name
        if takes_key:
            assert op["security"] == [{"SeatKey": []}, {}], "the header, or the body's seatKey, or none (spectator)"
        else:
            assert op["security"] == [], route.rpc
        assert "X-Seat-Key" not in {p["name"] for p in op.get("parameters", [])}


_TRANSFER = re.compile(r'(?:Transfer|\.pay)\([^()]*,\s*"([^"]+)"\)')


def test_transfer_reasons_documented_are_those_the_engine_sends(doc: dict[str, Any]) -> None:
    sent = {m for path in (ROOT / "engine").rglob("*.py") for m in _TRANSFER.findall(path.read_text())}
    assert {"win", "ante", "pot"} <= sent, sent
    note = doc["components"]["schemas"]["mazziere.v1.Transfer"]["properties"]["reason"]["description"]
    documented = set(re.findall(r'"([^"]+)"', note))
    assert documented == sent


# -- /docs, offline ------------------------------------------------------------------------------------------------


def test_docs_load_swagger_ui_from_this_server(gateway: Gateway) -> None:
    page = gateway.http.get("/docs")
    assert page.status_code == 200 and "SwaggerUIBundle" in page.text
    assert not re.search(r"(?i)(https?:)?//[a-z0-9]", page.text), "no other host: /docs must work offline"
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert {"/static/swagger-ui/swagger-ui-bundle.js", "/static/swagger-ui/swagger-ui.css"} <= set(assets)
    for asset in assets:
        answer = gateway.http.get(asset)
        assert answer.status_code == 200 and answer.content, asset
    assert "javascript" in gateway.http.get("/static/swagger-ui/swagger-ui-bundle.js").headers["content-type"]
    assert "'/openapi.json'" in page.text or '"/openapi.json"' in page.text
    assert gateway.http.get("/static/swagger-ui/no-such-file.js").status_code == 404


def test_docs_can_be_turned_off() -> None:
    app = create_app(_NoBackend(), replace(BASE, gateway_docs=False))
    paths = {getattr(r, "path", "") for r in app.routes}
    assert "/docs" not in paths and SWAGGER_UI_STATIC not in paths and "/openapi.json" in paths


def test_each_operation_is_described_by_the_contracts_comment(doc: dict[str, Any]) -> None:
    """The RPC's comment in service.proto (through services/gen/comments.json), and the tags are described."""
    act = doc["paths"]["/v1/tables:act"]["post"]
    assert act["description"] == "Act checks and plays one action and returns the new state and what happened."
    tags = {tag["name"]: tag["description"] for tag in doc["tags"]}
    assert tags["TableService"].startswith("TableService plays Italian card games") and tags["Probes"]
    assert doc["info"]["contact"]["url"]


# -- redocly and spectral lint -----------------------------------------------------------------------------------

REDOCLY = ROOT / "node_modules" / ".bin" / "redocly"
SPECTRAL = ROOT / "node_modules" / ".bin" / "spectral"


def lint(doc: dict[str, Any], tmp_path: Path, command: list[str], opening: str, **env: str) -> tuple[Any, str, int]:
    """A linter's JSON report on the document (written to ``tmp_path`` and named last; the report starts at the first
    ``opening`` of the output), its stderr and its exit code."""
    path = tmp_path / "openapi.json"
    path.write_text(json.dumps(doc))
    done = subprocess.run(
        [*command, str(path)], capture_output=True, text=True, timeout=180, env={**os.environ, **env}, cwd=tmp_path
    )
    report, _ = json.JSONDecoder().raw_decode(done.stdout, done.stdout.index(opening))  # a note may follow it
    return report, done.stderr, done.returncode


@pytest.mark.skipif(not REDOCLY.exists(), reason="Redocly CLI is not installed (npm ci, as make test does)")
def test_redocly_lint_finds_no_error_and_no_warning(doc: dict[str, Any], tmp_path: Path) -> None:
    command = [str(REDOCLY), "lint", f"--config={ROOT / 'redocly.yaml'}", "--format=json"]
    report, stderr, code = lint(
        doc, tmp_path, command, "{", REDOCLY_TELEMETRY="off", REDOCLY_SUPPRESS_UPDATE_NOTICE="true"
    )
    problems = [(p["ruleId"], p["severity"], p["message"]) for p in report["problems"]]
    assert not problems and code == 0, problems or stderr[-2000:]


@pytest.mark.skipif(not SPECTRAL.exists(), reason="Spectral is not installed (npm ci, as make test does)")
def test_spectral_lint_finds_no_error_and_no_warning(doc: dict[str, Any], tmp_path: Path) -> None:
    command = [str(SPECTRAL), "lint", f"--ruleset={ROOT / '.spectral.yaml'}", "--format=json", "--fail-severity=hint"]
    report, stderr, code = lint(doc, tmp_path, command, "[")
    problems = [(p["code"], p["severity"], p["message"], ".".join(map(str, p["path"]))) for p in report]
    assert not problems and code == 0, problems or stderr[-2000:]
