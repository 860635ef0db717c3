"""Replay every golden playthrough and diff it with its file (``make golden`` rewrites them when a change is meant)."""

from __future__ import annotations

import difflib

import pytest

from tests.golden import CASES, HERE, MAX_LINES, Case, render


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_playthrough_matches_its_golden_file(case: Case) -> None:
    expected = case.path.read_text()
    actual = render(case)
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), actual.splitlines(), str(case.path.name), "replayed", n=2, lineterm=""
        )
        shown = "\n".join(line[:200] for line in list(diff)[:60])
        pytest.fail(
            f"{case.name} no longer plays as recorded: what players see has changed. If the change is meant, run "
            f"`make golden` and review the files' diff.\n{shown}"
        )
    assert expected.count("\n") <= MAX_LINES


def test_every_golden_file_has_a_case() -> None:
    assert {p.name for p in HERE.glob("*.txt")} == {c.path.name for c in CASES}
