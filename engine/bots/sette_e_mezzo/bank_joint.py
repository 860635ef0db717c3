"""The bank's own decision, the standing players' face-down cards weighed jointly (EXACT): every assignment of
classes to them under which each standing hand is under 7½ and no triplé, weighed by the ways to deal it, and the
bank's draws from the unseen cards not in a player's hand."""

from __future__ import annotations

import itertools

from mazziere.engine.bots.sette_e_mezzo.counting import Hand, Pool, Profile, bank_add, hand_points, take
from mazziere.engine.bots.sette_e_mezzo.ends import BankEnd, end_of
from mazziere.engine.bots.sette_e_mezzo.memo import memo
from mazziere.engine.bots.sette_e_mezzo.opponents import Outcome, Player, expected, fits, mix_outcomes, owes
from mazziere.engine.bots.sette_e_mezzo.results import TIE
from mazziere.engine.games.sette_e_mezzo.points import SETTE_E_MEZZO

Assignment = tuple[int, ...]
"""A class per standing player for his face-down card (-1: none)."""


@memo
def assignments(profile: Profile, players: tuple[Player, ...], pool: Pool) -> tuple[tuple[Assignment, float], ...]:
    """Every assignment of classes to the standing players' face-down cards that agrees with their statuses, with
    its probability: in proportion to the number of ways to deal it from ``pool`` (the product over classes of
    falling factorials)."""
    choices = [fits(profile, player, pool) or (-1,) for player in players]
    out = []
    for combo in itertools.product(*choices):
        weight = _ways(combo, pool)
        if weight > 0:
            out.append((combo, weight))
    total = sum(weight for _, weight in out)
    return tuple((combo, weight / total) for combo, weight in out)


def _ways(combo: Assignment, pool: Pool) -> float:
    """The ways to deal ``combo`` from ``pool``."""
    weight = 1.0
    used: dict[int, int] = {}
    for card in combo:
        if card >= 0:
            weight *= pool[card] - used.get(card, 0)
            used[card] = used.get(card, 0) + 1
    return weight


@memo
def free_counts(profile: Profile, players: tuple[Player, ...], pool: Pool) -> tuple[float, ...]:
    """Per class, the expected number of unseen cards of it not in a standing player's hand."""
    free = [float(count) for count in pool]
    for combo, prob in assignments(profile, players, pool):
        for card in combo:
            if card >= 0:
                free[card] -= prob
    return tuple(free)


@memo
def bank_stand(profile: Profile, players: tuple[Player, ...], end: BankEnd, pool: Pool) -> Outcome:
    """The bank stops with ``end``: what the standing players pay it, over the assignments of their cards."""
    debts = [
        {card: owes(profile, player, card, end) for card in fits(profile, player, pool) or (-1,)} for player in players
    ]
    dist: dict[int, float] = {}
    for combo, prob in assignments(profile, players, pool):
        amount = sum(debt[card] for debt, card in zip(debts, combo, strict=True))
        dist[amount] = dist.get(amount, 0.0) + prob
    return tuple(dist.items()), float(end[1])


@memo
def bank_value(
    profile: Profile, players: tuple[Player, ...], held: int, bank: Hand, pool: Pool, hit_it: bool
) -> Outcome:
    """The bank's result standing, or drawing (``hit_it``) and then playing on to its best expected result; each
    card drawn is one of the unseen cards not in a player's hand (the weights of :func:`assignments`)."""
    if not hit_it:
        return bank_stand(profile, players, end_of(profile, bank), pool)
    free = free_counts(profile, players, pool)
    total = sum(free)
    parts = []
    for card, count in enumerate(free):
        if count > 1e-12:
            new, rest = bank_add(bank, card), take(pool, card)
            points, triple = hand_points(profile, new)
            if points >= SETTE_E_MEZZO or triple or sum(rest) <= held:
                outcome = bank_stand(profile, players, end_of(profile, new), rest)
            else:
                outcome = _bank_best(profile, players, held, new, rest)
            parts.append((count / total, outcome))
    return mix_outcomes(parts)


def _bank_best(profile: Profile, players: tuple[Player, ...], held: int, bank: Hand, pool: Pool) -> Outcome:
    options = (
        bank_value(profile, players, held, bank, pool, True),
        bank_value(profile, players, held, bank, pool, False),
    )
    evs = [expected(option) for option in options]
    return options[0] if evs[0] >= max(evs) - TIE else options[1]  # ties: HIT, first in legal order
