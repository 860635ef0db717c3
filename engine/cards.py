"""Cards, suits, ranks and the three packs, with a two-character text notation.

Notation: rank character then suit character.

* Italian pack (carte napoletane): ranks ``A 2 3 4 5 6 7 F C R`` (asso, fante, cavallo, re);
  suits in lower case ``d c s b`` (denari, coppe, spade, bastoni). ``Rd`` is the re di denari.
* French packs: ranks ``A 2 3 4 5 6 7 8 9 T J Q K`` (``T`` is the ten);
  suits in upper case ``H D C S`` (hearts, diamonds, clubs, spades). ``KD`` is the king of diamonds.

The case of the suit tells the two packs apart, so every card of every pack has one spelling.

>>> Card.parse("Rd")
Card.parse('Rd')
>>> Card.parse("Rd").rank, Card.parse("TS").rank
(10, 10)
>>> [str(c) for c in ITALIAN_40[:3]]
['Ad', '2d', '3d']
"""

from __future__ import annotations

from enum import Enum

from mazziere.engine.errors import Reason, Rejected


class Suit(Enum):
    """A suit; its value is the notation character."""

    DENARI = "d"
    COPPE = "c"
    SPADE = "s"
    BASTONI = "b"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"
    SPADES = "S"

    @property
    def is_italian(self) -> bool:
        return self.value.islower()


_SUIT_INDEX = {suit: i for i, suit in enumerate(Suit)}

ITALIAN_SUITS = (Suit.DENARI, Suit.COPPE, Suit.SPADE, Suit.BASTONI)
FRENCH_SUITS = (Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS, Suit.SPADES)

# Rank numbers: Italian 1..10 (8 fante, 9 cavallo, 10 re); French 1..13 (11 J, 12 Q, 13 K).
_ITALIAN_RANKS = "A234567FCR"
_FRENCH_RANKS = "A23456789TJQK"


class Card:
    """One playing card. Build cards with :meth:`parse`; compare them by value.

    There is one object per card (:data:`ALL_CARDS`), made at import; ``Card(rank, suit)`` gives that object
    back. So two cards are equal when they are the same object (a comparison in C), hashing and order use one
    small integer computed once, ``key`` (rank-major: cards order by rank, then by suit), and ``index`` is the
    card's place in :data:`ALL_CARDS`: its number in the state's byte form. ``text`` is its notation.
    """

    __slots__ = ("index", "key", "rank", "suit", "text")
    rank: int
    suit: Suit
    index: int
    key: int
    """The card's small integer: its hash, and its order (``operator.attrgetter("key")`` reads a pile's in C)."""
    text: str
    """The card's notation, as ``str(card)`` gives it."""

    def __new__(cls, rank: int, suit: Suit) -> Card:
        key = rank * 8 + _SUIT_INDEX[suit]
        known = _BY_KEY.get(key)
        if known is not None:
            return known
        ranks = _ITALIAN_RANKS if suit.is_italian else _FRENCH_RANKS
        if not 1 <= rank <= len(ranks):
            raise ValueError(f"no card has rank {rank} in suit {suit.name}")
        card = object.__new__(cls)
        for name, value in (("rank", rank), ("suit", suit), ("index", len(_BY_KEY)), ("key", key)):
            object.__setattr__(card, name, value)
        object.__setattr__(card, "text", ranks[rank - 1] + suit.value)
        _BY_KEY[key] = card
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return Card.parse, (self.text,)

    def __hash__(self) -> int:
        return self.key

    def __lt__(self, other: Card) -> bool:
        return self.key < other.key

    def __le__(self, other: Card) -> bool:
        return self.key <= other.key

    def __gt__(self, other: Card) -> bool:
        return self.key > other.key

    def __ge__(self, other: Card) -> bool:
        return self.key >= other.key

    @property
    def is_figure(self) -> bool:
        """Fante/cavallo/re in the Italian pack, J/Q/K in the French ones."""
        return self.rank >= 8 if self.suit.is_italian else self.rank >= 11

    @staticmethod
    def parse(text: str) -> Card:
        """Read a card from its notation; raise :class:`Rejected` (INVALID_CARD) if it is not one."""
        card = _BY_TEXT.get(text)
        if card is None:
            raise Rejected(Reason.INVALID_CARD, f"{text!r} is not a card (e.g. 'Rd', '7c', 'KD', 'TS')")
        return card

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


def parse_cards(text: str) -> tuple[Card, ...]:
    """Read space-separated cards.

    >>> parse_cards("7d Rc")
    (Card.parse('7d'), Card.parse('Rc'))
    """
    return tuple(Card.parse(t) for t in text.split())


def cards_text(cards: tuple[Card, ...] | list[Card]) -> str:
    """The inverse of :func:`parse_cards`."""
    return " ".join(str(c) for c in cards)


_BY_KEY: dict[int, Card] = {}
ALL_CARDS: tuple[Card, ...] = tuple(
    [Card(r, s) for s in ITALIAN_SUITS for r in range(1, 11)] + [Card(r, s) for s in FRENCH_SUITS for r in range(1, 14)]
)
"""Every card of every pack, Italian then French; a card's place here is its ``index`` (part of the byte form)."""
_BY_TEXT = {str(c): c for c in ALL_CARDS}

ITALIAN_40: tuple[Card, ...] = tuple(c for c in ALL_CARDS if c.suit.is_italian)
"""Carte napoletane: four suits of asso..7, fante, cavallo, re."""
FRENCH_40: tuple[Card, ...] = tuple(c for c in ALL_CARDS if not c.suit.is_italian and c.rank not in (8, 9, 10))
"""French 40-card pack: A, 2..7, J, Q, K."""
FRENCH_32: tuple[Card, ...] = tuple(c for c in ALL_CARDS if not c.suit.is_italian and c.rank not in range(2, 7))
"""French 32-card pack (piquet): 7, 8, 9, 10, J, Q, K, A."""
