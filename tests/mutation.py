"""The mutation score per module, from the results ``mutmut run`` leaves in ``mutants/`` (``make mutate``).

``python -m tests.mutation`` prints, for every mutated module, its mutants killed (a test failed, or timed out),
survived (every test passed), untested (no selected test runs the function) and not yet checked, and the score:
killed over everything checked. ``--survivors`` also lists the surviving and untested mutants by name (``mutmut
show NAME`` prints the change). docs/testing.md keeps the last score and the equivalent survivors.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

MUTANTS = Path("mutants")
KILLED = {1, 3, 24, -24, 36, 152, 255}  # a failing test, a pytest error, or a timeout
SURVIVED = {0}
UNTESTED = {5, 33}


def _kind(code: int | None) -> str:
    if code is None:
        return "unchecked"
    if code in KILLED:
        return "killed"
    if code in SURVIVED:
        return "survived"
    if code in UNTESTED:
        return "untested"
    return "other"


def main(argv: list[str]) -> int:
    metas = sorted(MUTANTS.glob("engine/**/*.py.meta"))
    if not metas:
        print("no results in mutants/: run `make mutate` first")
        return 1
    rows = []
    names: dict[str, list[str]] = {"survived": [], "untested": []}
    totals: Counter[str] = Counter()
    for meta in metas:
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        if not codes:
            continue
        counts = Counter(_kind(code) for code in codes.values())
        for name, code in codes.items():
            if _kind(code) in names:
                names[_kind(code)].append(name)
        totals.update(counts)
        rows.append((str(meta.relative_to(MUTANTS))[: -len(".meta")], counts))
    print(f"{'module':44} {'mutants':>7} {'killed':>7} {'survived':>8} {'untested':>8} {'unchecked':>9} {'score':>7}")
    for module, counts in [*rows, ("all", totals)]:
        checked = counts["killed"] + counts["survived"] + counts["untested"] + counts["other"]
        score = f"{100 * counts['killed'] / checked:6.1f}%" if checked else "      -"
        print(
            f"{module:44} {sum(counts.values()):7} {counts['killed']:7} {counts['survived']:8} "
            f"{counts['untested']:8} {counts['unchecked']:9} {score}"
        )
    if "--survivors" in argv:
        for kind, listed in names.items():
            print(f"\n{kind}:")
            print("\n".join(f"  {name}" for name in sorted(listed)) or "  none")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
