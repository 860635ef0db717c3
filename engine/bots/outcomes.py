"""How a hand ended for one seat: the outcome class (1 win, 0 push, -1 lose) and whether it busted.

* Sette e mezzo: the sign of the seat's chip result; a bust is a BUST event of the seat.
* Saltacavallo: lose when the seat lost a life; push when nobody did (a replayed hand); win otherwise.
* Trentuno: win as the deal's only winner, push sharing the win (or, played for lives, neither winning nor losing
  a life), lose otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mazziere.engine.table import Event

Classify = Callable[[int, int, Sequence[Event]], tuple[int, bool]]


def sette_e_mezzo(seat: int, delta: int, events: Sequence[Event]) -> tuple[int, bool]:
    bust = any(e.kind == "BUST" and e.seat == seat for e in events)
    return (delta > 0) - (delta < 0), bust


def saltacavallo(seat: int, delta: int, events: Sequence[Event]) -> tuple[int, bool]:
    lost = [e.seat for e in events if e.kind == "LIFE_LOST"]
    if seat in lost:
        return -1, False
    return (1 if lost or delta > 0 else 0), False


def trentuno(seat: int, delta: int, events: Sequence[Event]) -> tuple[int, bool]:
    winners = [e.seat for e in events if e.kind == "WIN"]
    lives = any(e.kind == "LIFE_LOST" for e in events)
    if seat in winners:
        return (1 if len(winners) == 1 else 0), False
    if lives and not any(e.kind == "LIFE_LOST" and e.seat == seat for e in events):
        return 0, False
    return -1, False


CLASSIFY: dict[str, Classify] = {"sette_e_mezzo": sette_e_mezzo, "saltacavallo": saltacavallo, "trentuno": trentuno}
