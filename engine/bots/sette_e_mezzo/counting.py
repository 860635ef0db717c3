"""Sette e mezzo's rules compiled for counting: the classes of cards, hands and unseen cards as classes, totals.

The unseen cards are a multiset of *classes*: the matta, and one class per rank (suits matter for nothing else; the
figures are one class unless a figure's rank may be burned). A :class:`Profile` is one rule profile compiled so,
with (for a player's advice) the bank's cards the player sees.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from mazziere.engine.cards import Card
from mazziere.engine.games.sette_e_mezzo.points import Scoring, scoring
from mazziere.engine.games.sette_e_mezzo.rules import BurnWhen, MattaRealePays, NaturalRule, SetteEMezzoRules

POINTS_MAX = 1 << 14
"""The most hands whose total :func:`hand_points` keeps (least recently used first out)."""
PROFILES_MAX = 256
"""The most compiled profiles :func:`profile_of` keeps (emptied when full)."""

Pool = tuple[int, ...]
"""Unseen cards: a count per class (the classes of :class:`Profile`)."""
Hand = tuple[int, ...]
"""A hand as classes: the first card, then the others sorted, except that the newest card stays last where it may
be burned (``burn_when: ANY_CARD``); their order matters to nothing else."""


class Profile:
    """One rule profile compiled for enumeration, and (for a player's advice) the bank's face-up cards."""

    __slots__ = (
        "bank_up", "burnable", "cards", "classes", "forced_up", "keep_last", "loss", "matta", "rules", "scoring",
        "stride", "three_two",
    )  # fmt: skip

    def __init__(self, rules: SetteEMezzoRules, bank_up: Hand) -> None:
        self.rules = rules
        self.bank_up = bank_up
        """The bank's cards the advised player sees (CASINO: its first card)."""
        self.scoring: Scoring = scoring(rules)
        representatives = _representatives(self.scoring)
        self.classes: tuple[int, ...] = tuple(sorted(representatives))
        self.cards: tuple[Card, ...] = tuple(representatives[key] for key in self.classes)
        self.matta = self.classes.index(0) if 0 in representatives else -1
        self.stride = max(self.pool(self.scoring.pack)) + 1  # room for every count of a class (bank_play)
        self.burnable = tuple(bool(rules.burn_ranks) and self.scoring.burnable(card) for card in self.cards)
        self.keep_last = any(self.burnable) and rules.burn_when is BurnWhen.ANY_CARD
        self.forced_up = self._forced_up()
        """The total below which a player must draw (``forced_draws`` against a face-up bank card), else -1."""
        self.three_two = (
            not rules.reale_pays_double
            and rules.reale_with_matta_pays is MattaRealePays.THREE_TO_TWO
            and self.matta >= 0
        )
        """A 3:2 payment may be made (rounded down: the value of an odd stake is not proportional)."""
        doubles = rules.reale_pays_double and rules.natural_rule is not NaturalRule.ENCYCLOPEDIA
        self.loss = 3 if rules.triple else 2 if doubles else 1
        """The most stakes a player may lose at once (a loss is capped by his chips)."""

    def _forced_up(self) -> int:
        if not (self.rules.forced_draws and self.bank_up):
            return -1
        up = self.bank_up[0]
        return self.scoring.matta_low if up == self.matta else self.scoring.points((self.cards[up],))

    def pool(self, cards: Sequence[Card]) -> Pool:
        """``cards`` as a count per class."""
        counts = [0] * len(self.classes)
        for card in cards:
            counts[self.classes.index(_class_key(self.scoring, card))] += 1
        return tuple(counts)

    def hand(self, cards: Sequence[Card]) -> Hand:
        """``cards`` (in the order dealt) as a :data:`Hand`."""
        raw = tuple(self.classes.index(_class_key(self.scoring, card)) for card in cards)
        if len(raw) < 3:
            return raw
        if self.keep_last:
            return (raw[0], *sorted(raw[1:-1]), raw[-1])
        return (raw[0], *sorted(raw[1:]))

    def cards_of(self, hand: Hand) -> tuple[Card, ...]:
        """A card of each class of ``hand``."""
        return tuple(self.cards[card_class] for card_class in hand)

    def add(self, hand: Hand, card_class: int) -> Hand:
        """``hand`` and a new card of class ``card_class``."""
        if not hand:
            return (card_class,)
        if self.keep_last:
            return (hand[0], *sorted(hand[1:]), card_class) if len(hand) > 1 else (hand[0], card_class)
        return (hand[0], *sorted((*hand[1:], card_class)))


def _representatives(scorer: Scoring) -> dict[int, Card]:
    """One card of each class, by class key."""
    out: dict[int, Card] = {}
    for card in scorer.pack:
        out.setdefault(_class_key(scorer, card), card)
    return out


def _class_key(scorer: Scoring, card: Card) -> int:
    """The matta 0, figures 8 (one class: they differ in nothing unless a figure's rank may be burned), else rank."""
    if card == scorer.matta:
        return 0
    if card.is_figure and not any(rank >= 8 for rank in scorer.burn_ranks):
        return 8
    return card.rank


_PROFILES: dict[tuple[int, Hand], tuple[SetteEMezzoRules, Profile]] = {}


def profile_of(rules: SetteEMezzoRules, bank_up: Hand = ()) -> Profile:
    """The compiled :class:`Profile` of ``rules`` (kept by identity, at most :data:`PROFILES_MAX`)."""
    key = (id(rules), bank_up)
    hit = _PROFILES.get(key)
    if hit is not None and hit[0] is rules:
        return hit[1]
    if len(_PROFILES) >= PROFILES_MAX:
        _PROFILES.clear()
    profile = Profile(rules, bank_up)
    _PROFILES[key] = (rules, profile)
    return profile


def take(pool: Pool, card_class: int) -> Pool:
    """``pool`` less one card of class ``card_class``."""
    return (*pool[:card_class], pool[card_class] - 1, *pool[card_class + 1 :])


def bank_add(hand: Hand, card_class: int) -> Hand:
    """A bank's hand and a new card (the bank never burns: its cards after the first stay sorted)."""
    return (hand[0], *sorted((*hand[1:], card_class))) if hand else (card_class,)


@functools.lru_cache(maxsize=POINTS_MAX)
def hand_points(profile: Profile, hand: Hand) -> tuple[int, bool]:
    """The hand's total and whether it is a triplé (kept in a table of their own: they are many and cheap)."""
    cards = profile.cards_of(hand)
    return profile.scoring.points(cards), profile.scoring.is_triple(cards)
