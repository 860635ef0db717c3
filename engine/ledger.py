"""Exact money: integer chips moved by transfers between seats and the pot.

>>> settle((10, 10), 0, [Transfer(0, POT, 3, "ante"), Transfer(POT, 1, 2, "pot")])
((7, 12), 1)
"""

from __future__ import annotations

from collections.abc import Iterable

from mazziere.engine.values import Value

POT = -1
"""The party number of the table's pot."""


class Transfer(Value, frozen=True):
    """``amount`` chips from ``payer`` to ``payee`` (seat numbers, or :data:`POT`)."""

    payer: int
    payee: int
    amount: int
    reason: str = ""


def settle(chips: tuple[int, ...], pot: int, transfers: Iterable[Transfer]) -> tuple[tuple[int, ...], int]:
    """Chips and pot after the transfers. The total is unchanged by construction."""
    balance = [*chips, pot]  # index -1 is the pot
    for t in transfers:
        if t.amount < 0:
            raise ValueError(f"negative transfer {t}")
        balance[t.payer] -= t.amount
        balance[t.payee] += t.amount
    return tuple(balance[:-1]), balance[-1]


def total(chips: tuple[int, ...], pot: int) -> int:
    """Every chip on the table; conserved by every action."""
    return sum(chips) + pot
