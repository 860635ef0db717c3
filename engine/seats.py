"""The seat ring: who plays after whom, and who deals first.

Every game numbers its seats in its own direction of play, so one ring serves them all: seat ``s + 1`` plays
after seat ``s``, and seat 0 after the last. Which seats are still in (dealt in, alive, with chips enough) is a
mask with one entry per seat, truthy for a seat in play.

>>> in_play = (True, False, True, True)
>>> next_in_play(in_play, 0)
2
>>> previous_in_play(in_play, 0)
3
>>> round_from(in_play, 2)
(3, 0, 2)
>>> others_after(in_play, 2)
(3, 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the dealing is passed in; the seat ring imports no game machinery
    from mazziere.engine.dealing import Dealing


def next_in_play(in_play: Sequence[object], seat: int) -> int | None:
    """The first seat in play after ``seat``, once round the table; ``None`` if no other seat is in play."""
    n = len(in_play)
    s = seat
    for _ in range(n - 1):
        s = s + 1 if s + 1 < n else 0
        if in_play[s]:
            return s
    return None


def previous_in_play(in_play: Sequence[object], seat: int) -> int | None:
    """The last seat in play before ``seat`` (the one who plays just before it); ``None`` if there is none."""
    n = len(in_play)
    s = seat
    for _ in range(n - 1):
        s = s - 1 if s else n - 1
        if in_play[s]:
            return s
    return None


def others_after(in_play: Sequence[object], seat: int) -> tuple[int, ...]:
    """Every other seat in play, in play order from the one after ``seat``."""
    n = len(in_play)
    return tuple([s for i in range(1, n) if in_play[s := (seat + i) % n]])


def round_from(in_play: Sequence[object], seat: int) -> tuple[int, ...]:
    """One round of the table that ends on ``seat``: the others in play from the one after it, then ``seat``
    (the order of a deal, the dealer last)."""
    return (*others_after(in_play, seat), seat)


def mask(seat_count: int, seats: Sequence[int]) -> tuple[bool, ...]:
    """The mask of a table of ``seat_count`` seats with ``seats`` in play.

    >>> mask(4, (0, 2))
    (True, False, True, False)
    """
    return tuple([s in seats for s in range(seat_count)])


def first_dealer(seat_count: int, dealing: Dealing, fixed: int | None) -> int:
    """The seat that deals first: ``fixed`` if the rules name a seat, else one drawn at random by the table's
    first draw (revealed at once).

    >>> from mazziere.engine.dealing import Dealing
    >>> first_dealer(4, Dealing.opening(b"seed", []), 2)
    2
    >>> first_dealer(4, Dealing.opening(b"seed", []), None)
    1
    """
    if fixed is not None:
        return fixed
    return dealing.number(seat_count)
