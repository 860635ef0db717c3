"""Observation vectors: a layout of named segments, and the writers that fill them from a seat's view.

Every segment is a run of float32 numbers. Bits and one-hot segments hold 0 or 1; a *position* segment holds, for
each card of the pack (or each seat), its 1-based place in a sequence (0: not in it), so both the set and the order
are kept; numbers (chips, stakes, sizes) are written as they are, exactly while below 2**24 in magnitude.

>>> layout = Layout()
>>> layout.add("phase", 3, "one-hot"), layout.number("chips", 2, "number")
(0, 3)
>>> layout.size, [segment.name for segment in layout.segments]
(5, ['phase', 'chips'])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from mazziere.engine.cards import Card
from mazziere.engine.visibility import TableCard

NUMBER = 2.0**31
"""The bound of a number segment: chips, stakes, points and counts lie in [-NUMBER, NUMBER]."""

Vector = np.ndarray
"""A float32 observation vector (``np.ndarray`` of shape ``(size,)``)."""


@dataclass(frozen=True)
class Segment:
    """A named run of ``size`` numbers from ``start``, each in ``[low, high]``."""

    name: str
    start: int
    size: int
    what: str
    low: float
    high: float


class Layout:
    """The segments of one game's observation vector, in order."""

    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.size = 0

    def add(self, name: str, size: int, what: str, high: float = 1.0, low: float = 0.0) -> int:
        """Append a segment of values in ``[low, high]``; return where it starts."""
        start = self.size
        self.segments.append(Segment(name, start, size, what, low, high))
        self.size += size
        return start

    def number(self, name: str, size: int, what: str) -> int:
        """Append a segment of numbers in ``[-NUMBER, NUMBER]``; return where it starts."""
        return self.add(name, size, what, NUMBER, -NUMBER)

    def bounds(self) -> tuple[Vector, Vector]:
        """The lowest and highest value of every place of the vector."""
        low = np.zeros(self.size, np.float32)
        high = np.zeros(self.size, np.float32)
        for s in self.segments:
            low[s.start : s.start + s.size] = s.low
            high[s.start : s.start + s.size] = s.high
        return low, high

    def table(self) -> str:
        """The layout as a Markdown table (docs/rl.md shows it for every game)."""
        rows = ["| segment | places | size | what |", "|---|---|---:|---|"]
        for s in self.segments:
            rows.append(f"| `{s.name}` | {s.start}..{s.start + s.size - 1} | {s.size} | {s.what} |")
        return "\n".join(rows)


def pack_index(pack: Sequence[Card]) -> dict[Card, int]:
    """Each card's place in ``pack``."""
    return {card: i for i, card in enumerate(pack)}


def one_hot(out: Vector, at: int, index: int | None) -> None:
    """A 1 at ``at + index`` (nothing for ``None``)."""
    if index is not None:
        out[at + index] = 1.0


def enum_hot(out: Vector, at: int, members: Sequence[Enum], value: Enum | None) -> None:
    """A one-hot of ``value`` among ``members`` (all zeros for ``None``)."""
    if value is not None:
        out[at + members.index(value)] = 1.0


def seat_places(out: Vector, at: int, seats: Iterable[int]) -> None:
    """For each seat, its 1-based place in ``seats`` (0: not there)."""
    for k, seat in enumerate(seats, 1):
        out[at + seat] = k


def card_places(
    out: Vector,
    at: int,
    index: dict[Card, int],
    cards: Sequence[TableCard | None],
    room: int,
    hidden_at: int | None = None,
) -> None:
    """For each card of the pack, its 1-based place in ``cards`` where the viewer sees it (0: not there); a 1 at
    ``hidden_at + k`` for each place ``k`` holding a card the viewer cannot see. ``cards`` has at most ``room``."""
    if len(cards) > room:
        raise ValueError(f"{len(cards)} cards where the layout has room for {room}")
    for k, held in enumerate(cards):
        if held is None:
            continue
        if held.card is not None:
            out[at + index[held.card]] = k + 1
        elif hidden_at is None:
            raise ValueError(f"a face-down card at place {k} of a sequence the layout shows only face up")
        else:
            out[hidden_at + k] = 1.0
