"""The draw stream of :mod:`engine.chance`: uniform words from a draw's seed, and Fisher-Yates over them.

A module of its own so that it is compiled with the engine (a pack's shuffle is the hot loop of a deal), while
:mod:`engine.chance` stays interpreted for the tests that stack a deck by replacing ``chance.shuffled``.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import Final, TypeVar

T = TypeVar("T")

MIX_DOMAIN: Final = b"mazziere/mix/v2"
DEAL_DOMAIN: Final = b"mazziere/deal/v2"
_WORD: Final = 4  # bytes per draw (">I" words)
_SPACE: Final = 1 << (8 * _WORD)
_LIMITS: Final = tuple([_SPACE - _SPACE % n if n else 0 for n in range(129)])
"""By ``n``: the words below which ``word % n`` is unbiased (rejection sampling), for the packs' sizes."""


class Stream:
    """Uniform integers from SHAKE-256(deal domain || SHA-256(mix domain || seed || entropy))."""

    __slots__ = ("_input", "_next", "_words")

    def __init__(self, seed: bytes, entropy: bytes, expected_draws: int) -> None:
        self._input = DEAL_DOMAIN + hashlib.sha256(MIX_DOMAIN + seed + entropy).digest()
        self._words = self._read(expected_draws + 4)
        self._next = 0

    def below(self, n: int) -> int:
        """An unbiased integer in ``range(n)`` (rejection sampling, no modulo bias)."""
        limit = _LIMITS[n] if n < len(_LIMITS) else _SPACE - _SPACE % n
        while True:
            if self._next == len(self._words):  # rare: read further along the same output stream
                self._words = self._read(2 * len(self._words))
            word = self._words[self._next]
            self._next += 1
            if word < limit:
                return word % n

    def shuffle(self, out: list[T]) -> None:
        """Fisher-Yates in place, last place first: each place swapped with an unbiased index below it (:meth:`below`,
        inlined for the usual case, where the next word is taken)."""
        words, k, limits = self._words, self._next, _LIMITS
        for i in range(len(out) - 1, 0, -1):
            n = i + 1
            if n < len(limits) and k < len(words) and words[k] < limits[n]:
                j = words[k] % n
                k += 1
            else:  # a word rejected, the words read used up, or a long list: the plain way
                self._next = k
                j = self.below(n)
                words, k = self._words, self._next
            out[i], out[j] = out[j], out[i]
        self._next = k

    def _read(self, count: int) -> tuple[int, ...]:
        """The stream's first ``count`` words (each read once, in one call)."""
        return struct.unpack(f">{count}I", hashlib.shake_256(self._input).digest(_WORD * count))


def order(items: Sequence[T], seed: bytes, entropy: bytes = b"") -> tuple[T, ...]:
    """A Fisher-Yates shuffle of ``items`` (last place first) by a draw's seed and the entropy mixed in."""
    out = list(items)
    Stream(seed, entropy, len(out)).shuffle(out)
    return tuple(out)


def number(n: int, seed: bytes, entropy: bytes = b"") -> int:
    """One unbiased integer in ``range(n)`` by a draw's seed and the entropy mixed in."""
    return Stream(seed, entropy, 1).below(n)
