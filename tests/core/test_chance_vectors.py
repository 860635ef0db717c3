"""Chance test vectors: the exact order of every pack for fixed seeds and draw counters.

Every seeded game, golden file and replay rests on :mod:`engine.chance`; a change to its stream (the domain,
the word size, the rejection rule, the Fisher-Yates direction) would silently change every one of them. These
vectors make such a change fail loudly. If the change is meant, it is a new chance version (new domains, the
``*_DOMAIN`` constants): regenerate the file with ``python -m tests.core.test_chance_vectors`` and say so in the
commit. The seeds are table secrets and the counters draw numbers (``chance.shuffled(pack, secret, draw)``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from mazziere.engine import chance
from mazziere.engine.cards import FRENCH_32, FRENCH_40, ITALIAN_40, cards_text

VECTORS = Path(__file__).parent.parent / "data" / "chance_vectors.txt"
PACKS = {"ITALIAN_40": ITALIAN_40, "FRENCH_40": FRENCH_40, "FRENCH_32": FRENCH_32}
SEEDS = (b"mazziere", b"\x00", bytes(range(32)))
COUNTERS = (0, 1, 7, 2**32 + 5)
BELOW = (2, 3, 7, 12, 40, 2**31 + 1)


def render() -> str:
    lines = [
        "# engine.chance test vectors: written by `python -m tests.core.test_chance_vectors`; never edit by hand.",
        "# shuffled SEED_HEX COUNTER PACK: the pack's order after chance.shuffled, top card (dealt first) first",
    ]
    for seed in SEEDS:
        for counter in COUNTERS:
            for name, pack in PACKS.items():
                order = cards_text(chance.shuffled(pack, seed, counter))
                lines.append(f"shuffled {seed.hex()} {counter} {name}: {order}")
    lines.append("# randbelow SEED_HEX COUNTER N: chance.randbelow(N, seed, counter)")
    for seed in SEEDS:
        for counter in COUNTERS[:2]:
            for n in BELOW:
                lines.append(f"randbelow {seed.hex()} {counter} {n}: {chance.randbelow(n, seed, counter)}")
    return "\n".join(lines) + "\n"


def test_chance_stream_matches_the_vectors() -> None:
    expected = VECTORS.read_text().splitlines()
    actual = render().splitlines()
    changed = [(e, a) for e, a in zip(expected, actual, strict=False) if e != a]
    assert len(expected) == len(actual) and not changed, (
        "the chance stream changed: every seeded game, replay and golden file changes with it. "
        f"First difference:\n  expected {changed[0][0] if changed else '(line count)'}\n"
        f"  actual   {changed[0][1] if changed else ''}"
    )


def test_vectors_cover_every_pack_and_every_card_once() -> None:
    for line in VECTORS.read_text().splitlines():
        if line.startswith("shuffled"):
            name, order = line.split(" ", 3)[3].split(": ")
            assert sorted(order.split()) == sorted(cards_text(PACKS[name]).split())


if __name__ == "__main__":
    VECTORS.write_text(render())
    sys.stdout.write(f"wrote {VECTORS}\n")
