"""How a bank's hand ends, and what a player's hand gets against that end (the judge, in halves of his stake)."""

from __future__ import annotations

from mazziere.engine.bots.sette_e_mezzo.counting import Hand, Profile, hand_points
from mazziere.engine.games.sette_e_mezzo.judge import judge
from mazziere.engine.games.sette_e_mezzo.points import SETTE_E_MEZZO

BankEnd = tuple[int, bool, Hand]
"""(total, bust, a hand that ends so): the hand stands for its reale and triplé in :func:`judge`."""


def end_of(profile: Profile, bank: Hand) -> BankEnd:
    """The end of a bank that stops on ``bank``: a bust, or its total and canonical shape (SM-22: a triplé of two
    sevens is no bust)."""
    points, triple = hand_points(profile, bank)
    if points > SETTE_E_MEZZO and not triple:
        return (SETTE_E_MEZZO + 1, True, ())
    return (points, False, bank if len(bank) == 2 and (points == SETTE_E_MEZZO or triple) else ())


def judged(profile: Profile, player: Hand, player_points: int, end: BankEnd) -> int:
    """The result of a standing ``player`` (his total ``player_points``) against the bank's ``end``, in halves."""
    bank_points, bust, bank = end
    return judge(
        profile.rules, profile.scoring, profile.cards_of(player), player_points, profile.cards_of(bank), bank_points,
        bust,
    )  # fmt: skip
