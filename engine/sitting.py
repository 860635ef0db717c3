"""Sitting hands out, in the games that allow it (their option ``sit_out``): the action kinds, their events and
the entries the seat that deals may choose between hands, to sit a player out of the next hands or back in.

The seat that deals sends them, so between hands it stays the only seat to act: a player away from the table is
sat out by whoever deals for the table (a host, for a person who left), and sat in again the same way.
"""

from __future__ import annotations

from collections.abc import Iterable

from mazziere.engine.events import EventKind
from mazziere.engine.table import LegalAction

SIT_OUT = "SIT_OUT"
"""Between hands, the seat that deals sits the ``target`` seat out: not dealt in until it sits in again."""
SIT_IN = "SIT_IN"
"""Between hands, the seat that deals sits the ``target`` seat in again: dealt into the next hand."""
SIT_KINDS = (SIT_OUT, SIT_IN)

SAT_OUT = EventKind("SAT_OUT", "seat target")
"""``seat`` sits out from the next hand on (``target``: the seat that deals, which sat it out)."""
SAT_IN = EventKind("SAT_IN", "seat target")
"""``seat`` sits in again from the next hand on (``target``: the seat that deals, which sat it in)."""


def sit_entries(
    deal: tuple[LegalAction, ...], may_sit_out: tuple[int, ...], sitting_out: tuple[int, ...]
) -> tuple[LegalAction, ...]:
    """The dealing seat's entries between hands: ``deal`` (its own, when it may deal), then a SIT_OUT for each
    seat of ``may_sit_out`` and a SIT_IN for each seat of ``sitting_out``, by seat number."""
    return (
        *deal,
        *(LegalAction(SIT_OUT, target=seat) for seat in may_sit_out),
        *(LegalAction(SIT_IN, target=seat) for seat in sitting_out),
    )


def seated(sitting_out: Iterable[int], seat: int, out: bool) -> tuple[int, ...]:
    """The seats sitting out once ``seat`` sits out (``out``) or in, in ascending order."""
    rest = {s for s in sitting_out if s != seat}
    return tuple(sorted(rest | {seat} if out else rest))
