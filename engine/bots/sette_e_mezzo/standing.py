"""A player who stands: the probability of each result once the players still to play and the bank have played,
and its value in chips at a stake."""

from __future__ import annotations

from mazziere.engine.bots.sette_e_mezzo.bank_play import MAX_DRAWS
from mazziere.engine.bots.sette_e_mezzo.counting import Hand, Pool, Profile, hand_points
from mazziere.engine.bots.sette_e_mezzo.ends import judged
from mazziere.engine.bots.sette_e_mezzo.memo import memo
from mazziere.engine.bots.sette_e_mezzo.rest import bank_dist, stock_suffices
from mazziere.engine.bots.sette_e_mezzo.results import HALVES, Dist, Value, pay


def stand_dist(profile: Profile, hand: Hand, pool: Pool, held: int, later: int) -> Dist:
    """Standing on ``hand``: the probability of each result in :data:`HALVES`, once the later players and the bank
    have played from ``pool`` (``held`` of its cards lie in hands)."""
    drawable = sum(pool) - held
    if stock_suffices(profile, pool, drawable, later):
        # The stock cannot run out. Then what the later players draw changes nothing for the bank: a play that
        # stops on its own cards' rule takes the first cards of an exchangeable order, and the bank's own draws are
        # as likely to be those as the ones after (docs/bots.md).
        later, drawable = 0, MAX_DRAWS
    return stood_dist(profile, hand, pool, drawable, later)


@memo
def stood_dist(profile: Profile, hand: Hand, pool: Pool, drawable: int, later: int) -> Dist:
    """:func:`stand_dist` with ``drawable`` cards the stock and the discards hold."""
    points = hand_points(profile, hand)[0]
    probs = [0.0] * len(HALVES)
    for end, prob in bank_dist(profile, pool, drawable, later):
        probs[HALVES.index(judged(profile, hand, points, end))] += prob
    return tuple(probs)


def stand_value(dist: Dist, stake: int, chips: int | None) -> Value:
    """The value of standing at ``stake`` (his ``chips`` where a loss may reach them) with results ``dist``."""
    ev = win = push = lose = 0.0
    for halves, prob in zip(HALVES, dist, strict=True):
        if prob:
            ev += prob * pay(stake, halves, chips)
            if halves > 0:
                win += prob
            elif halves < 0:
                lose += prob
            else:
                push += prob
    return (ev, win, push, lose, 0.0)
