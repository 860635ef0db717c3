"""Hand values in half points (7½ = 15), with the matta, SM-21's ace, reale and triplé.

A :class:`Scoring` is compiled once per rule profile (cached) so the hot path only adds integers.

>>> from mazziere.engine.cards import parse_cards
>>> s = scoring(SetteEMezzoRules())
>>> s.points(parse_cards("7d Fc")), s.points(parse_cards("Rd 3c")), s.points(parse_cards("Rd Fc"))
(15, 14, 15)
>>> s.points(parse_cards("Rd")), s.points(parse_cards("6d 2c"))
(1, 16)
"""

from __future__ import annotations

from functools import lru_cache

from mazziere.engine.cards import ALL_CARDS, FRENCH_40, ITALIAN_40, Card
from mazziere.engine.games.sette_e_mezzo.rules import MattaValues, Pack, SetteEMezzoRules, pack_card

SETTE_E_MEZZO = 15
VALUE: tuple[int, ...] = tuple([1 if c.is_figure else 2 * c.rank for c in ALL_CARDS])
"""SM-2: each card's value in halves, by the card's index: ace 2, 2..7 twice their rank, figures 1 (read by
index, the hot path hashes no card)."""


class Scoring:
    """The values of one rule profile."""

    __slots__ = ("ace_half", "burn_ranks", "matta", "matta_low", "pack", "triple", "two_sevens", "whole_only")

    def __init__(self, rules: SetteEMezzoRules) -> None:
        self.pack: tuple[Card, ...] = ITALIAN_40 if rules.pack is Pack.ITALIAN else FRENCH_40
        self.matta = None if rules.matta_card is None else pack_card(rules.matta_card, rules.pack)
        self.whole_only = rules.matta_values is MattaValues.WHOLE_ONLY
        self.matta_low = 2 if self.whole_only else 1
        self.ace_half = rules.ace_half_first
        self.triple = rules.triple
        self.two_sevens = rules.triple_two_sevens
        self.burn_ranks = rules.burn_ranks

    def points(self, cards: tuple[Card, ...]) -> int:
        """SM-2/3/21: the best total, at most 15 when that can be had, else the smallest (a bust)."""
        matta = self.matta
        base = 0
        wild = False
        for c in cards:
            if c == matta:
                wild = True
            else:
                base += VALUE[c.index]
        if wild and len(cards) == 1:
            return self.matta_low  # a matta alone counts its lowest value (gap)
        best = self._with_matta(base) if wild else base
        if self.ace_half and cards[0].rank == 1 and cards[0] != matta:
            other = self._with_matta(base - 1) if wild else base - 1
            if best > SETTE_E_MEZZO or SETTE_E_MEZZO >= other > best:
                best = other
        return best

    def _with_matta(self, base: int) -> int:
        room = SETTE_E_MEZZO - base
        if room >= 14:
            return base + 14
        if room >= 2:
            return base + (room & ~1)
        if room == 1 and not self.whole_only:
            return SETTE_E_MEZZO
        return base + self.matta_low

    def is_triple(self, cards: tuple[Card, ...]) -> bool:
        """SM-22: 7 + matta (``triple``), or two sevens (``triple_two_sevens``)."""
        if not self.triple or len(cards) != 2:
            return False
        a, b = cards
        if a == self.matta:
            return b.rank == 7
        if b == self.matta:
            return a.rank == 7
        return self.two_sevens and a.rank == 7 and b.rank == 7

    def burnable(self, card: Card) -> bool:
        """SM-20: a card of a burn rank; never the matta (gap)."""
        return card.rank in self.burn_ranks and card != self.matta


COMPILED_MAX = 256
"""The most profiles whose compiled values are kept (a table's profile travels in its state, so a server sees
one per preset and option set in use; docs/performance.md, "Caches", has the worst-case size)."""
_COMPILED: dict[int, tuple[SetteEMezzoRules, Scoring]] = {}


def scoring(rules: SetteEMezzoRules) -> Scoring:
    """The compiled values of ``rules``, by identity (hashing a profile costs more than the whole lookup)."""
    hit = _COMPILED.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    compiled = _by_value(rules)
    if len(_COMPILED) >= COMPILED_MAX:
        _COMPILED.clear()
    _COMPILED[id(rules)] = (rules, compiled)  # the profile is kept alive, so its id is not reused
    return compiled


@lru_cache(maxsize=COMPILED_MAX)
def _by_value(rules: SetteEMezzoRules) -> Scoring:
    return Scoring(rules)


def is_reale(cards: tuple[Card, ...], points: int) -> bool:
    """SM-15: exactly two cards held making 7½."""
    return len(cards) == 2 and points == SETTE_E_MEZZO


HOUSE_STANDS = 10
"""CASINO: the house draws below 5 (10 halves) and stands on 5 or more."""


def house_stands(points: int, card_count: int, lone_matta: bool) -> bool:
    """CASINO: whether the house, still under 7½, stands: on 5 or more, or (its first card a lone matta) once
    it has taken exactly one more card. The game plays it and the advice expects it.

    >>> house_stands(10, 2, False), house_stands(8, 3, False), house_stands(2, 1, True), house_stands(4, 2, True)
    (True, False, False, True)
    """
    return card_count > 1 if lone_matta else points >= HOUSE_STANDS
