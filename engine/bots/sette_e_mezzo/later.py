"""The players still to play before the bank, as a player's advice models them (docs/bots.md): each holds a
face-down card and, with ``forced_draws``, draws while he must (below the bank's face-up card, or a lone matta).

Only how many cards they draw matters to the bank, so they are counted on a *reduced* pool: the matta and the
classes worth less than the bank's card apart, every other class as one (such a card ends a turn that must draw,
whatever came before it). :func:`players_fit` is the chance that their turns, read from a pool in a uniform order
and never short of cards, draw at most so many.
"""

from __future__ import annotations

from mazziere.engine.bots.sette_e_mezzo.counting import Hand, Pool, Profile, hand_points
from mazziere.engine.bots.sette_e_mezzo.memo import memo
from mazziere.engine.games.sette_e_mezzo.points import SETTE_E_MEZZO

Reduced = tuple[int, ...]
"""A pool as the players still to play see it: a count per kept class (:func:`kept`), then the count of the rest."""


@memo
def kept(profile: Profile) -> tuple[int, ...]:
    """The classes a turn that must draw may hold and still draw: the matta (alone), and each class worth less than
    the bank's face-up card (``profile.forced_up``)."""
    classes = range(len(profile.classes))
    return tuple(card for card in classes if card == profile.matta or _worth(profile, card) < profile.forced_up)


def reduced(profile: Profile, pool: Pool) -> Reduced:
    """``pool`` as a :data:`Reduced` pool."""
    classes = kept(profile)
    counts = [pool[card] for card in classes]
    return (*counts, sum(pool) - sum(counts))


def must_draw(profile: Profile, hand: Hand) -> bool:
    """A player still to play holding ``hand`` (classes of the profile) must draw, a card being left."""
    points, triple = hand_points(profile, hand)
    if points >= SETTE_E_MEZZO or triple:
        return False
    return (len(hand) == 1 and hand[0] == profile.matta) or points < profile.forced_up


@memo
def turns(profile: Profile, pool: Reduced) -> tuple[tuple[Reduced, int, float], ...]:
    """Every way one turn may go from ``pool`` (never short of cards): (the pool left, the cards drawn after the
    face-down card, the probability), one entry per pool left."""
    out: Ends = {}
    _walk(profile, kept(profile), (), pool, 1.0, out)
    return tuple((rest, drawn, prob) for (rest, drawn), prob in out.items())


Ends = dict[tuple[Reduced, int], float]
"""Per (pool left, cards drawn), the probability of a turn ending so."""


def _walk(profile: Profile, classes: tuple[int, ...], hand: Hand, pool: Reduced, prob: float, out: Ends) -> None:
    """Add to ``out`` every end of a turn holding ``hand`` (reached with ``prob``) that reads on from ``pool``."""
    total = sum(pool)
    rest_index = len(classes)
    for index, count in enumerate(pool):
        if not count:
            continue
        after = (*pool[:index], count - 1, *pool[index + 1 :])
        chance = prob * count / total
        if index < rest_index:
            grown = profile.add(hand, classes[index])
            if must_draw(profile, grown):
                _walk(profile, classes, grown, after, chance, out)
                continue
        key = (after, len(hand))  # the cards drawn after the face-down one: those held before this last card
        out[key] = out.get(key, 0.0) + chance


@memo
def players_fit(profile: Profile, pool: Reduced, players: int, draws: int) -> float:
    """The chance that ``players`` turns, read one after another from ``pool`` in a uniform order (never short of
    cards), draw at most ``draws`` cards together."""
    if draws < 0:
        return 0.0
    if not players or draws >= most_draws(profile, pool, players):
        return 1.0
    total = 0.0
    for rest, drawn, prob in turns(profile, pool):
        if drawn <= draws:
            total += prob * players_fit(profile, rest, players - 1, draws - drawn)
    return total


def most_draws(profile: Profile, pool: Reduced, players: int) -> int:
    """A bound on the cards ``players`` turns may draw from ``pool``: every card of a turn but its last is one it
    drew for, those are worth less than the bank's card together (each at least its lowest worth; a lone matta is
    the only other), so at most as many of the pool's lowest worths as fit in the players' thresholds' sum."""
    classes = kept(profile)
    room = players * max(0, profile.forced_up - 1)
    cards = 0
    for index in sorted(range(len(classes)), key=lambda i: _worth(profile, classes[i])):
        card = classes[index]
        if card == profile.matta:
            cards += pool[index]
            continue
        worth = _worth(profile, card)
        fit = min(pool[index], room // worth)
        cards += fit
        room -= fit * worth
    return cards


def _worth(profile: Profile, card: int) -> int:
    """The least a card of class ``card`` counts in a hand, in halves (the matta nothing: it counts as it must)."""
    if card == profile.matta:
        return 0
    worth = profile.scoring.points((profile.cards[card],))
    return min(worth, 1) if profile.classes[card] == 1 and profile.rules.ace_half_first else worth
