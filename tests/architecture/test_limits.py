"""Limits that keep the code readable, measured by public tools so they cannot creep back:

- no function of ``services/`` above cyclomatic complexity 15 (radon's ``cc``);
- every module of ``engine/`` and ``services/`` at maintainability rank A or B (radon's ``mi``);
- no pair of places in ``services/`` sharing 6 lines or more (pylint's ``duplicate-code`` at
  ``--min-similarity-lines=6``, which passes over comments, docstrings, imports and signatures).

The same figures by hand: ``radon cc -s -n C services``, ``radon mi -s -n C engine services``,
``pylint --disable=all --enable=duplicate-code --min-similarity-lines=6 --ignore=gen services``.
"""

from __future__ import annotations

import subprocess
import sys

from radon.complexity import cc_visit
from radon.metrics import mi_rank, mi_visit

from tests.architecture.imports import ROOT, module_files

MAX_COMPLEXITY = 15
RANKS = ("A", "B")
SOURCES = {module: path for module, path in module_files().items()}


def test_no_function_of_the_services_is_above_the_complexity_limit() -> None:
    over = []
    for module, path in SOURCES.items():
        if not module.startswith("mazziere.services"):
            continue
        for block in cc_visit(path.read_text()):
            if block.complexity > MAX_COMPLEXITY:
                over.append(f"{path.relative_to(ROOT)}:{block.lineno} {block.fullname} ({block.complexity})")
    assert not over, f"functions above complexity {MAX_COMPLEXITY}:\n" + "\n".join(over)


def test_every_module_is_maintainable() -> None:
    below = []
    for path in SOURCES.values():
        score = mi_visit(path.read_text(), multi=True)
        if mi_rank(score) not in RANKS:
            below.append(f"{path.relative_to(ROOT)}: {mi_rank(score)} ({score:.1f})")
    assert not below, "modules below maintainability rank B:\n" + "\n".join(below)


def test_no_duplicate_pair_in_the_services() -> None:
    found = subprocess.run(
        [
            sys.executable,
            "-m",
            "pylint",
            "--disable=all",
            "--enable=duplicate-code",
            "--min-similarity-lines=6",
            "--ignore=gen",
            "--score=n",
            "services",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "R0801" not in found.stdout, found.stdout
    assert found.returncode in (0, 8), found.stderr  # 8: refactoring messages only; anything else is a failure
