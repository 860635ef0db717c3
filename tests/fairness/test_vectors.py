"""Test vectors for committed dealing (docs/fairness.md): what a third verifier must compute, pinned.

Regenerate with ``python -m tests.fairness.test_vectors`` only when the algorithm is meant to change (a new
domain string and a new state format), and say so in the commit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mazziere.engine import chance
from mazziere.engine.cards import FRENCH_32, FRENCH_40, ITALIAN_40, cards_text
from mazziere.services.cli.verify import ALGORITHMS, COMMIT_DOMAIN

VECTORS = Path(__file__).parent.parent / "data" / "fairness_vectors.json"
PACKS = {"ITALIAN_40": ITALIAN_40, "FRENCH_40": FRENCH_40, "FRENCH_32": FRENCH_32}
CASES: tuple[tuple[bytes, int, tuple[tuple[int, bytes], ...]], ...] = (
    (b"mazziere", 0, ()),
    (b"mazziere", 1, ((0, b"\x01\x02\x03"),)),
    (bytes(range(32)), 7, ((2, b"seat two"), (0, bytes(32)))),
    (b"\x00", 2**32 + 5, ((11, b"\xff"),)),
)


def render() -> dict[str, Any]:
    draws = []
    for secret, draw, contributions in CASES:
        seed = chance.draw_seed(secret, draw)
        entropy = b"".join(chance.contribution(s, e) for s, e in contributions)
        draws.append(
            {
                "secret": secret.hex(),
                "draw": draw,
                "seed": seed.hex(),
                "commitment": chance.commitment(seed).hex(),
                "contributions": [{"seat": s, "entropy": e.hex()} for s, e in contributions],
                "entropy": entropy.hex(),
                "orders": {
                    name: cards_text(chance.order(sorted(pack, key=str), seed, entropy)).split()
                    for name, pack in PACKS.items()
                },
                "numbers": {str(n): chance.number(n, seed, entropy) for n in (2, 3, 7, 12, 40, 2**31 + 1)},
            }
        )
    return {
        "about": "docs/fairness.md: seed, commitment, entropy and the canonical pack shuffled; orders list the top "
        "card first. Written by `python -m tests.fairness.test_vectors`.",
        "algorithm": chance.ALGORITHM,
        "canonical": {name: sorted(cards_text(pack).split()) for name, pack in PACKS.items()},
        "draws": draws,
    }


def test_fairness_vectors_are_as_pinned() -> None:
    assert json.loads(VECTORS.read_text()) == render(), "the dealing algorithm changed: see docs/fairness.md"


def test_the_verifier_knows_the_engines_algorithm() -> None:
    """Every COMMITTED names ``chance.ALGORITHM``; a verifier that did not know it would refuse every record."""
    assert chance.ALGORITHM in ALGORITHMS and chance.COMMIT_DOMAIN == COMMIT_DOMAIN


def test_canonical_order_is_byte_order_of_the_notation() -> None:
    for cards in render()["canonical"].values():
        assert [c.encode() for c in cards] == sorted(c.encode() for c in cards)


if __name__ == "__main__":
    VECTORS.write_text(json.dumps(render(), indent=1) + "\n")
    sys.exit(0)
