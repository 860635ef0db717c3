"""The standing players as a bank deciding sees them: which classes each face-down card may be, what each pays the
bank at an end of its hand, and the bank's chip results (:data:`Outcome`) mixed and read as a value."""

from __future__ import annotations

from collections.abc import Sequence

from mazziere.engine.bots.sette_e_mezzo.counting import Pool, Profile, hand_points
from mazziere.engine.bots.sette_e_mezzo.ends import BankEnd, judged
from mazziere.engine.bots.sette_e_mezzo.memo import memo
from mazziere.engine.bots.sette_e_mezzo.results import Value, pay
from mazziere.engine.games.sette_e_mezzo.points import SETTE_E_MEZZO

Player = tuple[int, int | None, tuple[int, ...], int]
"""A standing player as the bank sees him: (stake, chips where a loss may reach them, his cards as classes with -1
for the face-down one, the index of that card or -1)."""
Outcome = tuple[tuple[tuple[int, float], ...], float]
"""The bank's chip result: (amount, probability) pairs, and the probability that it busts."""


def fits(profile: Profile, player: Player, pool: Pool) -> tuple[int, ...]:
    """The classes the face-down card of a standing player may be: his hand is under 7½ and no triplé (a player
    at 7½ shows every card); () for a player whose cards the bank sees."""
    return tuple(card for card in fitting(profile, player) if pool[card])


@memo
def fitting(profile: Profile, player: Player) -> tuple[int, ...]:
    """:func:`fits` whatever the unseen cards."""
    _, _, classes, down = player
    if down < 0:
        return ()
    out = []
    for card in range(len(profile.classes)):
        points, triple = hand_points(profile, (*classes[:down], card, *classes[down + 1 :]))
        if points < SETTE_E_MEZZO and not triple:
            out.append(card)
    return tuple(out)


def owes(profile: Profile, player: Player, card: int, end: BankEnd) -> int:
    """What ``player`` pays the bank (negative: the bank pays him) if his face-down card is of class ``card``."""
    stake, chips, classes, down = player
    hand = classes if down < 0 else (*classes[:down], card, *classes[down + 1 :])
    return -pay(stake, judged(profile, hand, hand_points(profile, hand)[0], end), chips)


def expected(outcome: Outcome) -> float:
    """The bank's expected chip result."""
    return sum(amount * prob for amount, prob in outcome[0])


def mix_outcomes(parts: Sequence[tuple[float, Outcome]]) -> Outcome:
    """The outcome of a chance among ``parts``: (probability, outcome) pairs."""
    acc: dict[int, float] = {}
    bust = 0.0
    for prob, (pairs, busts) in parts:
        bust += prob * busts
        for amount, then in pairs:
            acc[amount] = acc.get(amount, 0.0) + prob * then
    return tuple(acc.items()), bust


def outcome_value(outcome: Outcome) -> Value:
    """An outcome as the figures of advice."""
    pairs, bust = outcome
    ev = sum(amount * prob for amount, prob in pairs)
    win = sum(prob for amount, prob in pairs if amount > 0)
    lose = sum(prob for amount, prob in pairs if amount < 0)
    return (ev, win, max(0.0, 1.0 - win - lose), lose, bust)
