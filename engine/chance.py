"""Explicit, reproducible chance.

Every random draw is a pure function of the table's secret seed and a draw counter kept in the state:
SHAKE-256 over (domain, counter, seed) is an extendable-output DRBG, and Fisher-Yates takes unbiased
indexes from it by rejection sampling. The process-wide ``random`` module is never used.

>>> shuffled([1, 2, 3, 4, 5], b"seed", 0)  # the same seed and counter always give the same order
(1, 5, 2, 4, 3)
>>> randbelow(6, b"seed", 3)
5
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_DOMAIN = b"mazziere/chance/v1"
_WORD = 4  # bytes per draw
_SPACE = 1 << (8 * _WORD)


class _Stream:
    """Uniform integers from SHAKE-256(domain || counter || seed)."""

    __slots__ = ("_buffer", "_input", "_offset")

    def __init__(self, seed: bytes, counter: int, expected_draws: int) -> None:
        self._input = _DOMAIN + counter.to_bytes(8, "big") + seed
        self._buffer = hashlib.shake_256(self._input).digest(_WORD * (expected_draws + 4))
        self._offset = 0

    def below(self, n: int) -> int:
        """An unbiased integer in ``range(n)`` (rejection sampling, no modulo bias)."""
        limit = _SPACE - _SPACE % n
        while True:
            if self._offset + _WORD > len(self._buffer):  # rare: extend the same output stream
                self._buffer = hashlib.shake_256(self._input).digest(2 * len(self._buffer))
            word = int.from_bytes(self._buffer[self._offset : self._offset + _WORD], "big")
            self._offset += _WORD
            if word < limit:
                return word % n


def shuffled(items: Sequence[T], seed: bytes, counter: int) -> tuple[T, ...]:
    """A Fisher-Yates shuffle of ``items`` determined by ``seed`` and ``counter``."""
    out = list(items)
    stream = _Stream(seed, counter, len(out))
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)


def randbelow(n: int, seed: bytes, counter: int) -> int:
    """One unbiased integer in ``range(n)`` determined by ``seed`` and ``counter``."""
    return _Stream(seed, counter, 1).below(n)
