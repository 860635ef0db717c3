"""Explicit, reproducible, committed chance (docs/fairness.md).

Every random draw of a table is numbered (the state's ``draws``) and has its own seed, derived from the
table's secret so that revealing one seed reveals nothing about the others. A draw's commitment (a hash of
its seed) is public before the draw; the seats' entropy is mixed in at the draw; the seed is revealed once
the pack is gathered, and anyone can then recompute the draw:

    seed_k     = HMAC-SHA256(secret, "mazziere/seed/v2" || u64be(k))
    commitment = SHA-256("mazziere/commit/v2" || seed_k)
    key        = SHA-256("mazziere/mix/v2" || seed_k || entropy)
    stream     = SHAKE-256("mazziere/deal/v2" || key), read as 4-byte big-endian words

Fisher-Yates takes unbiased indexes from the stream by rejection sampling. The process-wide ``random``
module is never used.

>>> shuffled([1, 2, 3, 4, 5], b"secret", 0)  # the same secret, draw and entropy always give the same order
(3, 5, 2, 1, 4)
>>> randbelow(6, b"secret", 3)
0
>>> commitment(draw_seed(b"secret", 0)).hex()[:16]
'29aceb41de7de9a9'
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

SEED_DOMAIN = b"mazziere/seed/v2"
COMMIT_DOMAIN = b"mazziere/commit/v2"
MIX_DOMAIN = b"mazziere/mix/v2"
DEAL_DOMAIN = b"mazziere/deal/v2"
ALGORITHM = 2
"""This algorithm's number, told with every commitment (a ``COMMITTED`` event's ``amount``): a verifier refuses a
record of a number it does not know."""
MAX_ENTROPY = 32
"""The most bytes one seat contributes to one draw."""
_WORD = 4  # bytes per draw (">I" words)
_SPACE = 1 << (8 * _WORD)


def draw_seed(secret: bytes, draw: int) -> bytes:
    """The seed of the table's draw number ``draw``."""
    return hmac.digest(secret, SEED_DOMAIN + draw.to_bytes(8, "big"), "sha256")


def commitment(seed: bytes) -> bytes:
    """The public commitment to a draw's seed."""
    return hashlib.sha256(COMMIT_DOMAIN + seed).digest()


def contribution(seat: int, entropy: bytes) -> bytes:
    """One seat's entropy as it is mixed in: the seat, the length, the bytes (one byte each for the first two)."""
    return bytes((seat, len(entropy))) + entropy


class _Stream:
    """Uniform integers from SHAKE-256(deal domain || SHA-256(mix domain || seed || entropy))."""

    __slots__ = ("_input", "_next", "_words")

    def __init__(self, seed: bytes, entropy: bytes, expected_draws: int) -> None:
        self._input = DEAL_DOMAIN + hashlib.sha256(MIX_DOMAIN + seed + entropy).digest()
        self._words = self._read(expected_draws + 4)
        self._next = 0

    def below(self, n: int) -> int:
        """An unbiased integer in ``range(n)`` (rejection sampling, no modulo bias)."""
        limit = _SPACE - _SPACE % n
        while True:
            if self._next == len(self._words):  # rare: read further along the same output stream
                self._words = self._read(2 * len(self._words))
            word = self._words[self._next]
            self._next += 1
            if word < limit:
                return word % n

    def _read(self, count: int) -> tuple[int, ...]:
        """The stream's first ``count`` words (each read once, in one call)."""
        return struct.unpack(f">{count}I", hashlib.shake_256(self._input).digest(_WORD * count))


def order(items: Sequence[T], seed: bytes, entropy: bytes = b"") -> tuple[T, ...]:
    """A Fisher-Yates shuffle of ``items`` (last place first) by a draw's seed and the entropy mixed in."""
    out = list(items)
    stream = _Stream(seed, entropy, len(out))
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)


def number(n: int, seed: bytes, entropy: bytes = b"") -> int:
    """One unbiased integer in ``range(n)`` by a draw's seed and the entropy mixed in."""
    return _Stream(seed, entropy, 1).below(n)


def shuffled(items: Sequence[T], secret: bytes, draw: int, entropy: bytes = b"") -> tuple[T, ...]:
    """``items`` shuffled by the table's draw number ``draw``."""
    return order(items, draw_seed(secret, draw), entropy)


def randbelow(n: int, secret: bytes, draw: int, entropy: bytes = b"") -> int:
    """An integer in ``range(n)`` by the table's draw number ``draw``."""
    return number(n, draw_seed(secret, draw), entropy)
