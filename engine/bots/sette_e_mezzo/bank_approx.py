"""The bank's own decision with each standing player's face-down card weighed on its own (APPROXIMATE): any unseen
card that fits his status, and the bank's draws from every unseen card not expected in a hand. Taken beyond the
joint budget of :mod:`~mazziere.engine.bots.sette_e_mezzo.bank_advice`."""

from __future__ import annotations

from mazziere.engine.bots.sette_e_mezzo.counting import Hand, Pool, Profile, bank_add, hand_points, take
from mazziere.engine.bots.sette_e_mezzo.ends import BankEnd, end_of
from mazziere.engine.bots.sette_e_mezzo.memo import memo
from mazziere.engine.bots.sette_e_mezzo.opponents import Outcome, Player, expected, fits, mix_outcomes, owes
from mazziere.engine.bots.sette_e_mezzo.results import TIE
from mazziere.engine.games.sette_e_mezzo.points import SETTE_E_MEZZO

BANK_APPROX_ERROR = 0.1
"""The bound of an APPROXIMATE bank's advice, in chips per chip staked by the standing players whose card is face
down: measured, not proven (against the joint figures, at most 0.042 over 304 random decisions with 2 to 5 such
players; tests/bots/test_exact.py checks it on its own; docs/bots.md)."""


@memo
def bank_value_approx(
    profile: Profile, players: tuple[Player, ...], held: int, bank: Hand, pool: Pool, hit_it: bool
) -> Outcome:
    """The bank's result standing, or drawing (``hit_it``) and then playing on to its best expected result, each
    face-down card weighed on its own."""
    if not hit_it:
        return _stand(profile, players, end_of(profile, bank), pool)
    free = _free_counts(profile, players, pool)
    total = sum(free)
    parts = []
    for card, count in enumerate(free):
        if count > 0:
            parts.append((count / total, _after_draw(profile, players, held, bank_add(bank, card), take(pool, card))))
    return mix_outcomes(parts)


def _stand(profile: Profile, players: tuple[Player, ...], end: BankEnd, pool: Pool) -> Outcome:
    """The bank stops with ``end``: each player's payment, his face-down card weighed on its own."""
    acc: dict[int, float] = {0: 1.0}
    for player in players:
        choices = fits(profile, player, pool) or (-1,)
        weight = sum(pool[card] if card >= 0 else 1 for card in choices)
        after: dict[int, float] = {}
        for card in choices:
            prob = (pool[card] if card >= 0 else 1) / weight
            debt = owes(profile, player, card, end)
            for amount, before in acc.items():
                after[amount + debt] = after.get(amount + debt, 0.0) + before * prob
        acc = after
    return tuple(acc.items()), float(end[1])


def _free_counts(profile: Profile, players: tuple[Player, ...], pool: Pool) -> list[float]:
    """Per class, the unseen cards of it less those expected in the standing players' hands (each on his own)."""
    free = [float(count) for count in pool]
    for player in players:
        choices = fits(profile, player, pool)
        weight = sum(pool[card] for card in choices)
        for card in choices:
            free[card] -= pool[card] / weight
    return [max(count, 0.0) for count in free]


def _after_draw(profile: Profile, players: tuple[Player, ...], held: int, bank: Hand, pool: Pool) -> Outcome:
    """The bank just drew to ``bank``: it stands at 7½ or more, on a triplé or with no card left, else plays on to
    the better of standing and drawing (ties: drawing, first in legal order)."""
    points, triple = hand_points(profile, bank)
    stand = bank_value_approx(profile, players, held, bank, pool, False)
    if points >= SETTE_E_MEZZO or triple or sum(pool) <= held:
        return stand
    drawn = bank_value_approx(profile, players, held, bank, pool, True)
    return drawn if expected(drawn) >= expected(stand) - TIE else stand
