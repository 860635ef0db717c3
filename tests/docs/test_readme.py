"""The README's commands run as written, against a fresh `mazziere serve`, and print what the README shows.

Every ```sh or ```bash block of README.md runs, in order, in one bash process (``set -euo pipefail``), so the
variables one block sets carry into the next, as in a reader's terminal; a ```text block right after a command
block is what that block prints, exactly. Not run: the two quick-start commands themselves (``make run``,
``make test``) and a block whose preceding line is ``<!-- not run -->`` (one that would restart the server). The
README names the server once, ``BASE=http://127.0.0.1:8080`` in its first block; the test puts its own server's
port there, and no other block may name a port of its own.

Beside it, the claims the README makes about its neighbours: the size of the front page, ``make run`` listening
on 127.0.0.1 unless told otherwise, every relative link of the README and docs/ pointing at a file and heading
that exist, and the pages that list the settings and the error reasons listing all of them.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from mazziere.services.config import Config
from mazziere.services.gen.mazziere.v1 import errors_pb2
from tests.gateway.conftest import wait_http
from tests.ports import free_port
from tests.service.test_process import server_env

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
QUICK_START = ["make run", "make test"]
BASE_LINE = "BASE=http://127.0.0.1:8080"
NOT_RUN = "<!-- not run -->"
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
MARK = "@@ block {} done @@"


@dataclass(frozen=True)
class Block:
    lang: str
    body: str
    not_run: bool
    """The block's preceding line is ``<!-- not run -->``."""


def blocks(text: str) -> list[Block]:
    """The fenced blocks of a Markdown page, in order."""
    found = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        found.append(Block(match.group(1), match.group(2).rstrip("\n"), before == NOT_RUN))
    return found


def is_quick_start(block: Block) -> bool:
    return block.body.splitlines() in ([QUICK_START[0]], [QUICK_START[1]])


def runnable(all_blocks: list[Block]) -> list[tuple[Block, str | None]]:
    """The blocks the test runs, each with the output the README shows for it (the ```text block right after it)."""
    chosen = []
    for i, block in enumerate(all_blocks):
        if block.lang not in ("sh", "bash") or block.not_run or is_quick_start(block):
            continue
        following = all_blocks[i + 1] if i + 1 < len(all_blocks) else None
        chosen.append((block, following.body if following is not None and following.lang == "text" else None))
    return chosen


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A fresh `mazziere serve` (its own ports, data directory and keys), as `make run` starts it."""
    data = tmp_path_factory.mktemp("data")
    rest = free_port()
    url = f"http://127.0.0.1:{rest}"
    env = server_env(
        free_port(),
        0,
        rest_port=str(rest),
        rest_host="127.0.0.1",
        log_calls="false",
        data_dir=str(data),
        public_url=url,
    )
    exe = shutil.which("mazziere", path=str(Path(sys.executable).parent)) or "mazziere"
    process = subprocess.Popen([exe, "serve"], env=env, cwd=ROOT, stderr=subprocess.DEVNULL)
    try:
        wait_http(f"{url}/readyz", seconds=60)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_quick_start_is_make_run_then_make_test() -> None:
    """The two commands, in that order, a block each; `.ci/run` runs the second."""
    found = [b.body.strip() for b in blocks(README.read_text()) if is_quick_start(b)]
    assert found == QUICK_START, f"blocks of exactly {QUICK_START[0]!r} then {QUICK_START[1]!r}, not {found}"
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert ci[-1] == QUICK_START[1]


def test_the_front_page_is_short() -> None:
    assert len(README.read_bytes()) < 8 * 1024


def test_every_command_block_of_the_readme_runs_and_prints_what_it_shows(base: str, tmp_path: Path) -> None:
    for tool in ("curl", "jq"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed; the README's commands need it")
    chosen = runnable(blocks(README.read_text()))
    assert chosen, "the README has no command to run"
    first = chosen[0][0].body.splitlines()
    assert first.count(BASE_LINE) == 1, f"the README's first command block must set {BASE_LINE}"
    script = ["set -euo pipefail"]
    for i, (block, _) in enumerate(chosen):
        body = block.body.replace(BASE_LINE, f"BASE={base}") if i == 0 else block.body
        assert not re.search(r":(8080|50051|9090)\b", body), f"a block names a port instead of $BASE:\n{body}"
        script += [body, f"echo '{MARK.format(i)}'"]
    run = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", "\n".join(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, f"exit {run.returncode}\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}"
    printed = run.stdout
    for i, (_, shown) in enumerate(chosen):
        out, mark, printed = printed.partition(MARK.format(i) + "\n")
        assert mark, f"block {i} never finished:\n{run.stdout}"
        if shown is not None:
            assert out.strip() == shown.strip(), f"block {i} printed:\n{out}\nthe README shows:\n{shown}"


def test_make_run_listens_on_127_0_0_1_unless_told_otherwise() -> None:
    """`make run` sets both bind addresses to 127.0.0.1 and keeps any the caller gives; the code's defaults (those
    of `mazziere serve` alone and of the image) stay every address."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS", "MAZZIERE_"))}
    dry = subprocess.run(["make", "-s", "-n", "run"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    recipe = dry.stdout.replace("\\\n", " ").splitlines()
    (serve,) = [line for line in recipe if line.rstrip().endswith("/mazziere serve")]
    show = serve.replace(".venv/bin/mazziere serve", "env")

    def bound(**given: str) -> dict[str, str]:
        out = subprocess.run(["bash", "-c", show], env={**env, **given}, capture_output=True, text=True, check=True)
        pairs = (line.split("=", 1) for line in out.stdout.splitlines() if line.startswith("MAZZIERE_"))
        return {k: v for k, v in pairs if k in ("MAZZIERE_HOST", "MAZZIERE_REST_HOST")}

    assert bound() == {"MAZZIERE_HOST": "127.0.0.1", "MAZZIERE_REST_HOST": "127.0.0.1"}
    assert bound(MAZZIERE_HOST="0.0.0.0", MAZZIERE_REST_HOST="::") == {
        "MAZZIERE_HOST": "0.0.0.0",
        "MAZZIERE_REST_HOST": "::",
    }
    defaults = Config()
    assert (defaults.host, defaults.rest_host) == ("[::]", "0.0.0.0")


def anchor(heading: str) -> str:
    """GitHub's id for a Markdown heading."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def headings(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text())
    return {anchor(line.lstrip("#")) for line in text.splitlines() if re.match(r"#{1,6} ", line)}


@pytest.mark.parametrize("page", [README, *sorted(DOCS.glob("*.md"))], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_finds_its_file_and_heading(page: Path) -> None:
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", FENCE.sub("", page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, fragment = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or (fragment and file.suffix == ".md" and fragment not in headings(file)):
            broken.append(target)
    assert not broken, broken


def test_the_configuration_page_lists_every_setting() -> None:
    """docs/configuration.md's table has one row per setting the service reads, and no other."""
    rows = re.findall(r"^\| `(MAZZIERE_[A-Z0-9_]+)` \|", (DOCS / "configuration.md").read_text(), re.MULTILINE)
    fields = {f"MAZZIERE_{field.name.upper()}" for field in dataclasses.fields(Config)}
    assert sorted(rows) == sorted(fields)


def test_the_errors_page_lists_every_reason() -> None:
    rows = re.findall(r"^\| `([A-Z_]+)` \|", (DOCS / "errors.md").read_text(), re.MULTILINE)
    values = errors_pb2.DESCRIPTOR.enum_types_by_name["ErrorReason"].values
    reasons = {value.name.removeprefix("ERROR_REASON_") for value in values} - {"UNSPECIFIED"}
    assert sorted(rows) == sorted(reasons)
