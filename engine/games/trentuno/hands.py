"""Hand values and their total order (TR-1, TR-5, TR-8, TR-12).

Every three-card hand has a :data:`HandKey`, a tuple that sorts like the hands: the higher key wins, equal
keys split. ``(class, primary, a, b, c)``:

* Trentuno ``(4, 31, hi, lo, 0)``: ace plus two 10-point cards of one suit; ``hi``/``lo`` the ranks of the
  10-point cards (K > Q > J > 10), so A-K-Q is the best hand (TR-7).
* Tris ``(3, rank, 0, 0, 0)``: three of a rank, A > K > ... > 7. With ``tris_by_points`` any three cards of
  one value: ``(3, value, ranks...)`` so K-K-K > K-K-Q > ... > 10-10-10 > 9-9-9.
* Joker tris ``(2, rank, 0, 0, 0)``: a pair plus the jack of clubs (not three jacks), below every tris.
* Otherwise ``(1, sum, ranks...)``: the best sum of cards of one suit, then the ranks of the cards that make
  it, high to low, then the other cards high to low (TR-12). Suits never break ties.

Ranks compare A (14) > K (13) > Q > J > 10 > 9 > 8 > 7. All 4,960 hands are precomputed per mode.

>>> from mazziere.engine.cards import parse_cards
>>> hand_key(parse_cards("AH KH QH"))
(4, 31, 13, 12, 0)
>>> hand_points(hand_key(parse_cards("QH TH JD")))
40
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from itertools import combinations
from typing import Final

from mazziere.engine.cards import ALL_CARDS, FRENCH_32, Card, Suit

HandKey = tuple[int, int, int, int, int]

TRENTUNO: Final = 4
TRIS: Final = 3
JOKER_TRIS: Final = 2
SUIT_SUM: Final = 1


class HandKind(Enum):
    """The class of a hand, as shown after a deal."""

    NONE = "NONE"
    """Not dealt in."""
    SUIT_SUM = "SUIT_SUM"
    JOKER_TRIS = "JOKER_TRIS"
    TRIS = "TRIS"
    TRENTUNO = "TRENTUNO"


KINDS = (HandKind.NONE, HandKind.SUIT_SUM, HandKind.JOKER_TRIS, HandKind.TRIS, HandKind.TRENTUNO)
"""``KINDS[key[0]]`` is the kind of a key."""

JACK_OF_CLUBS = Card(11, Suit.CLUBS)


def card_value(card: Card) -> int:
    """TR-1: face value, figures (J, Q, K) and the 10 count 10, the ace 11."""
    return 11 if card.rank == 1 else min(card.rank, 10)


def card_order(card: Card) -> int:
    """The rank order used for ties: A 14, K 13, Q 12, J 11, 10..7 face value."""
    return 14 if card.rank == 1 else card.rank


def evaluate(cards: Sequence[Card], tris_by_points: bool = False) -> HandKey:
    """The key of a hand, computed from the rules (the tables below are built with it): the first class it is."""
    return _trentuno(cards) or _tris(cards, tris_by_points) or _joker_tris(cards) or _suit_sum(cards)


def _orders(cards: Sequence[Card]) -> list[int]:
    return sorted((card_order(x) for x in cards), reverse=True)


def _trentuno(cards: Sequence[Card]) -> HandKey | None:
    """TR-5: an ace and two 10-point cards of one suit."""
    a, b, c = cards
    if a.suit == b.suit == c.suit and sorted(card_value(x) for x in cards) == [10, 10, 11]:
        orders = _orders(cards)
        return (TRENTUNO, 31, orders[1], orders[2], 0)
    return None


def _tris(cards: Sequence[Card], tris_by_points: bool) -> HandKey | None:
    """TR-8: three of a rank, or (``tris_by_points``) of a value."""
    a, b, c = cards
    if tris_by_points:
        if card_value(a) == card_value(b) == card_value(c):
            orders = _orders(cards)
            return (TRIS, card_value(a), orders[0], orders[1], orders[2])
    elif a.rank == b.rank == c.rank:
        return (TRIS, card_order(a), 0, 0, 0)
    return None


def _joker_tris(cards: Sequence[Card]) -> HandKey | None:
    """TR-8: a pair and the jack of clubs (not three jacks)."""
    if JACK_OF_CLUBS in cards:
        x, y = (z for z in cards if z != JACK_OF_CLUBS)
        if x.rank == y.rank and x.rank != JACK_OF_CLUBS.rank:
            return (JOKER_TRIS, card_order(x), 0, 0, 0)
    return None


def _suit_sum(cards: Sequence[Card]) -> HandKey:
    """TR-12: the best sum of one suit's cards, then those cards' ranks, then the others', high to low."""
    total, counting, suit = _best_suit(cards)
    rest = _orders([x for x in cards if x.suit != suit])
    counted = (*counting, *rest)
    return (SUIT_SUM, total, counted[0], counted[1], counted[2])


def _best_suit(cards: Sequence[Card]) -> tuple[int, list[int], Suit]:
    """The suit whose cards sum highest (then rank highest, the first such suit): the sum, the ranks, the suit."""
    best: tuple[int, list[int], Suit] | None = None
    for suit in dict.fromkeys(x.suit for x in cards):
        mine = [x for x in cards if x.suit == suit]
        score = (sum(card_value(x) for x in mine), _orders(mine), suit)
        if best is None or score[:2] > best[:2]:
            best = score
    assert best is not None
    return best


_INDEX: dict[Card, int] = {card: i for i, card in enumerate(FRENCH_32)}
_BIT: dict[Card, int] = {card: 1 << i for card, i in _INDEX.items()}


def _table(tris_by_points: bool) -> dict[int, HandKey]:
    return {_BIT[a] | _BIT[b] | _BIT[c]: evaluate((a, b, c), tris_by_points) for a, b, c in combinations(FRENCH_32, 3)}


_TABLE: Final = _table(False)
_TABLE_BY_POINTS: Final = _table(True)


_BIT_BY_INDEX: Final[list[int]] = [_BIT.get(card, 0) for card in ALL_CARDS]
"""``_BIT`` by ``Card.index`` (0 for a card outside the pack, which no table key matches)."""


def hand_bits(cards: Sequence[Card]) -> int:
    """The bitmask of some cards of the French 32-card pack (bit i is ``FRENCH_32[i]``)."""
    bit = _BIT_BY_INDEX
    mask = 0
    for card in cards:
        mask |= bit[card.index]
    return mask


def card_bit(card: Card) -> int:
    return _BIT_BY_INDEX[card.index]


def key_table(tris_by_points: bool = False) -> dict[int, HandKey]:
    """Every hand's key by its :func:`hand_bits` (the table itself: do not change it)."""
    return _TABLE_BY_POINTS if tris_by_points else _TABLE


def hand_key(cards: Sequence[Card], tris_by_points: bool = False) -> HandKey:
    """The precomputed key of three cards of the French 32-card pack."""
    bit = _BIT_BY_INDEX
    mask = bit[cards[0].index] | bit[cards[1].index] | bit[cards[2].index]
    return _TABLE_BY_POINTS[mask] if tris_by_points else _TABLE[mask]


def all_keys(tris_by_points: bool = False) -> dict[int, HandKey]:
    """Every hand's key by card bitmask (bit i is ``FRENCH_32[i]``), a copy; for tests and tools."""
    return dict(key_table(tris_by_points))


def hand_points(key: HandKey) -> int:
    """The value of a hand in half points: Trentuno 62, any tris 61, a suit sum twice the sum."""
    if key[0] == TRENTUNO:
        return 62
    if key[0] in (TRIS, JOKER_TRIS):
        return 61
    return 2 * key[1]


def hand_kind(key: HandKey) -> HandKind:
    return KINDS[key[0]]
