"""The generated clients (clients/): each plays a hand against a real `mazziere serve` and reads a refusal's ErrorInfo.

``make test`` generates and builds them first (``make clients``: ``npm ci``, ``buf generate`` with local plugins,
``tsc``; the Go plugins built from the versions in clients/go/go.mod). Each client's own test runs as a
subprocess with the server's address in ``MAZZIERE_TARGET`` (the server: ``servers`` in conftest.py), and the
server's command in ``MAZZIERE_SERVE`` for the tests of each client's ``watch``, which start a server of their own
and stop it (SIGTERM, SIGKILL) and start it again while they watch a table. The Python client is installed on its
own (``pip install clients/python``) into a fresh virtual environment, whose interpreter runs its example, a hand
and its watch; tests/clients/test_packages.py installs it as a release builds it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from tests.clients.conftest import MAZZIERE

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"


def run(command: list[str], cwd: Path, target: str, needs: Path, rest_target: str = "") -> str:
    """Runs a client's command against the server (gRPC at ``target``, the REST port at ``rest_target``); fails
    with its whole output unless it succeeds."""
    if not needs.exists():
        pytest.fail(f"{needs.relative_to(ROOT)} is missing: run `make clients` (make test does)", pytrace=False)
    tool = shutil.which(command[0]) if not Path(command[0]).is_absolute() else command[0]
    if tool is None:
        pytest.fail(f"{command[0]} is not on PATH", pytrace=False)
    env = {**os.environ, "MAZZIERE_TARGET": target, "MAZZIERE_REST_TARGET": rest_target, "MAZZIERE_SERVE": MAZZIERE}
    env["GOTOOLCHAIN"] = "local"
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    output = f"$ {' '.join(command)}  (in {cwd.relative_to(ROOT)})\n{done.stdout}\n{done.stderr}"
    assert done.returncode == 0, output
    return output


# pip's words when it could not get a requirement (no index reachable, or not in the local wheels).
UNREACHABLE = (
    "No matching distribution found",
    "Could not find a version that satisfies",
    "NewConnectionError",
    "Network is unreachable",
    "Temporary failure in name resolution",
    "ProxyError",
)


@pytest.fixture(scope="module")
def client_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of a fresh venv holding `pip install clients/python` and nothing of the server.

    pip builds the wheel in an isolated environment (setuptools and grpcio-tools from the package index or
    $PIP_FIND_LINKS) and installs grpcio, grpcio-status and protobuf; the test is skipped if it cannot get them.
    """
    venv = tmp_path_factory.mktemp("client-venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    command = [str(python), "-m", "pip", "install", "--quiet", str(CLIENTS / "python")]
    done = subprocess.run(command, cwd=venv, capture_output=True, text=True, timeout=600)
    output = f"$ {' '.join(command)}\n{done.stdout}\n{done.stderr}"
    if done.returncode != 0 and any(words in output for words in UNREACHABLE):
        pytest.skip(f"pip could not get the client's requirements (no package index or wheel cache?):\n{output}")
    assert done.returncode == 0, output
    return python


def check_example(output: str) -> None:
    """What clients/python/example.py prints: a hand, the table's own move, advice, a refusal."""
    assert "HAND_OVER" in output, output
    assert "played by the table: DEAL" in output and "(auto)" in output, output
    assert "advice for seat" in output and "expected" in output, output
    assert "refused: ABORTED, reason STALE_SEQUENCE" in output, output


def check_hand(output: str) -> dict[str, Any]:
    """What clients/python/tests/hand.py saw (the JSON line after the command), checked; returned for more."""
    seen: dict[str, Any] = json.loads(output.splitlines()[1])
    assert seen["server_modules"] == [], output
    assert {"sette_e_mezzo", "saltacavallo", "trentuno"} <= set(seen["games"]), output
    assert seen["created"] == {"seq": 0, "to_act": [1], "keys": [0, 1]}, output
    assert seen["not_your_turn"] == {
        "code": "FAILED_PRECONDITION",
        "reason": "NOT_YOUR_TURN",
        "metadata": seen["not_your_turn"]["metadata"],
        "unchanged": True,
    }, output
    assert (seen["wrong_key"]["code"], seen["wrong_key"]["reason"]) == ("PERMISSION_DENIED", "SEAT_KEY_INVALID")
    assert (seen["unknown_game"]["code"], seen["unknown_game"]["reason"]) == ("INVALID_ARGUMENT", "UNKNOWN_GAME")
    moves = seen["moves"]
    assert [m["kind"] for m in moves][:2] == ["DEAL", "STAKE"] and moves[0]["seat"] == 1, output
    assert [m["seq"] for m in moves] == list(range(1, len(moves) + 1)), output
    assert "HAND_OVER" in [e["kind"] for e in seen["events"]], output
    assert seen["spectator"] is False, output
    # docs/fairness.md: the pack dealt is in play until the table is gathered; then every draw checks out.
    assert seen["verified"]["playing"] == [True, [0]], output
    assert seen["verified"]["gathered"] == [True, [], 1], output
    assert (seen["unknown_policy"]["code"], seen["unknown_policy"]["reason"]) == ("INVALID_ARGUMENT", "UNKNOWN_POLICY")
    assert seen["auto"] == {"kind": "DEAL", "seq": len(moves) + 1, "marked": True}, output
    assert seen["advice"]["seq"] == len(moves) + 1 and seen["advice"]["actions"] > 0, output
    assert seen["stale"] == {
        "code": "ABORTED",
        "reason": "STALE_SEQUENCE",
        "metadata": {"expected_seq": str(len(moves)), "actual_seq": str(len(moves) + 1)},
        "is_grpc": True,
    }, output
    assert seen["unreachable"] == {"code": "UNAVAILABLE", "reason": None, "metadata": {}}, output
    # The server that answered is this checkout's (the same venv as the tests); the client, its own distribution.
    client = tomllib.loads((CLIENTS / "python" / "pyproject.toml").read_text())["project"]["version"]
    assert seen["versions"]["server"] == metadata.version("mazziere"), output
    assert seen["versions"]["client"] == client, output
    return seen


def test_python_example(target: str, client_python: Path) -> None:
    example = CLIENTS / "python" / "example.py"
    check_example(run([str(client_python), str(example)], ROOT, target, example))


def test_python_client_plays_a_hand(target: str, client_python: Path) -> None:
    """The helper alone (isolated mode: nothing of the checkout on sys.path): a hand, and refusals raised as
    MazziereError with their code and reason; the server's version and the client's."""
    script = CLIENTS / "python" / "tests" / "hand.py"
    check_hand(run([str(client_python), "-I", str(script)], CLIENTS / "python", target, script))


def test_python_watch_keeps_each_update_once_in_order(client_python: Path) -> None:
    """``Client.watch`` against a scripted HostService (clients/python/tests/watch_order.py): repeats dropped, a step
    skipped or a heartbeat past the last step means watching again from that step, after seq 0 from -1; a snapshot
    the server answers is delivered; refusals raised; a busy server's delay kept; a cancel from another thread."""
    script = CLIENTS / "python" / "tests" / "watch_order.py"
    output = run([str(client_python), "-I", str(script)], CLIENTS / "python", "", script)
    seen = json.loads(output.splitlines()[1])
    across = seen["across_reconnects"]
    assert across["delivered"] == [[0, True]] + [[seq, False] for seq in range(1, 8)], output
    assert across["after_seqs"] == [0, 2, 3, 3, 4], output
    assert [r["error"] for r in across["retries"]] == ["UNAVAILABLE/SHUTTING_DOWN", None, None, None], output
    assert (across["presences"], across["capabilities"], across["ended"]) == (3, ["invite"], "done"), output
    zero = seen["after_seq_zero"]
    assert (zero["delivered"], zero["after_seqs"]) == ([[0, True], [1, False]], [0, -1]), output
    answered = seen["snapshot_answered"]
    assert answered["delivered"] == [[10, False], [8, True], [9, False], [10, False]], output
    assert answered["after_seqs"] == [9, 10], output
    for name, refused in seen["refusals"].items():
        assert refused["ended"] == f"{name}/REFUSED" and refused["delivered"] == [[3, True]], output
        assert [r["error"] for r in refused["retries"]] == ["UNAVAILABLE/None"] and refused["after_seqs"] == [0, 3]
    assert set(seen["refusals"]) == {"PERMISSION_DENIED", "NOT_FOUND", "INVALID_ARGUMENT", "FAILED_PRECONDITION"}
    busy = seen["busy"]
    assert busy["ended"] == "RESOURCE_EXHAUSTED/RESPONSE_TOO_LARGE", output
    assert [r["error"] for r in busy["retries"]] == ["RESOURCE_EXHAUSTED/OVERLOADED"], output
    assert busy["retries"][0]["delay"] >= 0.02, output  # the server's RetryInfo, longer than the backoff's
    cancelled = seen["cancelled"]
    assert (cancelled["ended"], cancelled["retries"], cancelled["after_seqs"]) == ("done", [], [0]), output
    assert seen["backoff_bounds"] is True, output


def test_python_client_watches_across_restarts(client_python: Path) -> None:
    """clients/python/tests/watch.py: every seq once, in order, while its server stops (SIGTERM: SHUTTING_DOWN;
    SIGKILL: a cut connection) and starts again on the same store; refusals raised; a cancel ends the watch."""
    script = CLIENTS / "python" / "tests" / "watch.py"
    output = run([str(client_python), "-I", str(script)], CLIENTS / "python", "", script)
    seen = json.loads(output.splitlines()[1])
    assert seen["refused"] == {
        "wrong_capability": "PERMISSION_DENIED/CAPABILITY_INVALID",
        "no_such_table": "NOT_FOUND/TABLE_NOT_FOUND",
    }, output
    assert seen["cancelled"] == "ended after 0 more", output
    updates, closed_at = seen["updates"], seen["closed_at"]
    assert [u["seq"] for u in updates] == list(range(closed_at + 1)) and closed_at == seen["played_to"] + 1, output
    assert updates[0]["snapshot"] and updates[-1]["closed"], output
    assert not any(u["snapshot"] for u in updates[1:]) and not any(u["closed"] for u in updates[:-1]), output
    retries, terminated, killed = seen["retries"], seen["retries_before_SIGTERM"], seen["retries_before_SIGKILL"]
    assert retries[terminated] == "UNAVAILABLE/SHUTTING_DOWN", output
    assert all(r.startswith("UNAVAILABLE/") for r in retries) and len(retries) > killed > terminated, output
    assert seen["ended"] == "done", output


def test_go_client(target: str) -> None:
    folder = CLIENTS / "go"
    output = run(["go", "test", "-count=1", "-v", "./..."], folder, target, folder / "gen" / "mazziere" / "v1")
    names = ("TestPlayHand", "TestStaleSequenceIsAborted", "TestWrongSeatKeyIsPermissionDenied",
             "TestAutoPlayAndAdvise", "TestUnknownPolicyIsInvalidArgument",
             "TestWatchDeliversEachUpdateOnceInOrderAcrossReconnects", "TestWatchAfterSeqZeroResumesFromTheOpening",
             "TestWatchDeliversASnapshotTheServerAnswers", "TestWatchReturnsARefusal",
             "TestWatchWaitsForABusyServerButNotForAnAnswerTooLarge",
             "TestWatchBacksOffExponentiallyWithJitterUpToItsLongest",
             "TestWatchStopsWhenCancelledAndOnTheCallersError",
             "TestWatchDeliversEverySeqOnceAcrossServerRestarts", "TestWatchReturnsTheServersRefusal")  # fmt: skip
    for name in names:
        assert f"--- PASS: {name}" in output, output


def test_typescript_client(servers: tuple[str, str]) -> None:
    """A hand and two refusals over each transport: gRPC, the Connect protocol (JSON and protobuf) and gRPC-Web;
    `watch` against scripted streams, and over each transport while its own server stops and starts again."""
    folder = CLIENTS / "typescript"
    output = run(["node", "--test", "dist/test/"], folder, servers[0], folder / "dist" / "test", servers[1])
    suites = ("over grpc", "over connect", "over grpc-web", "over connect with protobuf bodies",
              "watch against scripted streams", "watch against a server that stops and starts again")  # fmt: skip
    for suite in suites:
        assert re.search(rf"^ok \d+ - {suite}$", output, re.MULTILINE), output
    assert "# pass 29" in output and "# fail 0" in output and "# skipped 0" in output, output


def test_typescript_verifier_judges_the_records_as_mazziere_verify_does() -> None:
    """clients/typescript/test/fairness.test.ts, offline: the test vectors, and every record of
    tests/data/fairness_records.json accepted or refused with the error tests/fairness/test_records.py expects."""
    folder = CLIENTS / "typescript"
    output = run(["node", "--test", "dist/test/fairness.test.js"], folder, "", folder / "dist" / "test")
    assert re.search(r"^ok \d+ - judges every record of tests/data/fairness_records.json", output, re.MULTILINE), output
    assert "# fail 0" in output and "# skipped 0" in output, output


def test_python_clients_verifier_judges_the_records_as_mazziere_verify_does(tmp_path: Path) -> None:
    """The verifier the Python client ships (its build copies services/cli/verify.py as mazziere_client.verify),
    loaded from the client's own build: every record of tests/data/fairness_records.json judged alike."""
    folder = CLIENTS / "python"
    command = [sys.executable, "setup.py", "--quiet", "build_py", "--build-lib", str(tmp_path)]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    shipped = tmp_path / "mazziere_client" / "verify.py"
    spec = importlib.util.spec_from_file_location("shipped_verify", shipped)
    assert spec is not None and spec.loader is not None
    verify = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = verify  # its dataclasses look their module up
    try:
        spec.loader.exec_module(verify)
    finally:
        del sys.modules[spec.name]
    cases = json.loads((ROOT / "tests" / "data" / "fairness_records.json").read_text())["cases"]
    for case in cases:
        options = case["options"]
        events = verify.events_of(json.dumps(line) for line in case["lines"])
        result = verify.verify_record(
            events,
            partial=options.get("partial", False),
            seat=options.get("seat"),
            gave={int(d): h for d, h in options.get("gave", {}).items()} if "seat" in options else None,
            server_seats=options.get("server_seats", ()),
        )
        assert (result.error or None) == case["error"], case["name"]
