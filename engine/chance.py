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
from collections.abc import Sequence
from typing import TypeVar

from mazziere.engine.stream import number as number  # the stream and Fisher-Yates: engine/stream.py (compiled)
from mazziere.engine.stream import order as order

T = TypeVar("T")

SEED_DOMAIN = b"mazziere/seed/v2"
COMMIT_DOMAIN = b"mazziere/commit/v2"
ALGORITHM = 2
"""This algorithm's number, told with every commitment (a ``COMMITTED`` event's ``amount``): a verifier refuses a
record of a number it does not know."""
MAX_ENTROPY = 32
"""The most bytes one seat contributes to one draw."""
_BLOCK = 64  # SHA-256's block: HMAC's key length
_INNER_PAD = bytes(x ^ 0x36 for x in range(256))
_OUTER_PAD = bytes(x ^ 0x5C for x in range(256))


def draw_seed(secret: bytes, draw: int) -> bytes:
    """The seed of the table's draw number ``draw``: HMAC-SHA256 (RFC 2104) spelt out over :mod:`hashlib`, which
    computes the same bytes as :func:`hmac.digest` in half its time (that one looks its digest up by name on each
    call); ``tests/core/test_chance.py`` checks the two agree."""
    key = (secret if len(secret) <= _BLOCK else hashlib.sha256(secret).digest()).ljust(_BLOCK, b"\0")
    inner = hashlib.sha256(key.translate(_INNER_PAD) + SEED_DOMAIN + draw.to_bytes(8, "big")).digest()
    return hashlib.sha256(key.translate(_OUTER_PAD) + inner).digest()


def commitment(seed: bytes) -> bytes:
    """The public commitment to a draw's seed."""
    return hashlib.sha256(COMMIT_DOMAIN + seed).digest()


def contribution(seat: int, entropy: bytes) -> bytes:
    """One seat's entropy as it is mixed in: the seat, the length, the bytes (one byte each for the first two)."""
    return bytes((seat, len(entropy))) + entropy


def shuffled(items: Sequence[T], secret: bytes, draw: int, entropy: bytes = b"") -> tuple[T, ...]:
    """``items`` shuffled by the table's draw number ``draw``."""
    return order(items, draw_seed(secret, draw), entropy)


def randbelow(n: int, secret: bytes, draw: int, entropy: bytes = b"") -> int:
    """An integer in ``range(n)`` by the table's draw number ``draw``."""
    return number(n, draw_seed(secret, draw), entropy)
