"""Trentuno's hands as small integers: each three-card hand (by its card bits, :func:`hand_bits`) mapped to its
place in the order of all hands (equal hands share a place, a better hand has a higher one), and per place
whether the ``cautious`` policy stops on it and whether it is a Trentuno. Built once per ``tris_by_points``."""

from __future__ import annotations

from mazziere.engine.bots.cautious import TR_STOP
from mazziere.engine.games.trentuno.hands import TRENTUNO, hand_points, key_table


class Ranks:
    """``place[bits]``: the hand's place; ``stops[place]``: the cautious policy stops holding it (25 or more);
    ``trentuno[place]``: a Trentuno (TR-5), which ends the deal at once (TR-10)."""

    __slots__ = ("place", "stops", "trentuno")

    def __init__(self, tris_by_points: bool) -> None:
        table = key_table(tris_by_points)
        ordered = sorted(set(table.values()))
        where = {key: i for i, key in enumerate(ordered)}
        self.place: dict[int, int] = {bits: where[key] for bits, key in table.items()}
        self.stops: list[bool] = [hand_points(key) >= TR_STOP for key in ordered]
        self.trentuno: list[bool] = [key[0] == TRENTUNO for key in ordered]


_RANKS: dict[bool, Ranks] = {}


def ranks(tris_by_points: bool) -> Ranks:
    """The tables of one mode (built on first use, then kept)."""
    found = _RANKS.get(tris_by_points)
    if found is None:
        found = _RANKS[tris_by_points] = Ranks(tris_by_points)
    return found
