"""State validation: refuse a table state that no sequence of legal actions could have produced.

The codec checks the types of a decoded state; :func:`engine.registry.check_state` checks that its values fit
together (seat counts and per-seat lengths, seats in range, counters, money where the rules bound it, every card of
the pack exactly once, the phase agreeing with the rest), so that no loop or index of the game can run off a bad
state. Each game implements :meth:`engine.game.Game.check_state` in its own ``validate`` module with the helpers
here, each refusal naming the path of the value that is wrong:

>>> print(invalid("state.turn", "7 is not a seat"))
INVALID_STATE: state.turn: 7 is not a seat
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from mazziere.engine.cards import ALL_CARDS, Card
from mazziere.engine.chance import MAX_ENTROPY
from mazziere.engine.dealing import contributions
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.table import TableState

S = TypeVar("S", bound=TableState)


def check_stock(state: TableState) -> None:
    """A game in play deals its ``stock`` (docs/engine.md) from the pack kept last: what is left of it."""
    stock: tuple[Card, ...] = getattr(state, "stock", ())
    if not stock:
        return
    if not state.packs:
        raise invalid("state.stock", f"{len(stock)} cards, but no pack is kept to deal them from")
    indexes = set(map(_INDEX, stock))
    if len(indexes) != len(stock) or not indexes.issubset(state.packs[-1].cards):
        raise invalid("state.stock", f"not what is left of the pack of draw {state.packs[-1].draw}")


_INDEX = operator.attrgetter("index")


def invalid(path: str, what: str) -> Rejected:
    return Rejected(Reason.INVALID_STATE, f"{path}: {what}")


# -- the header every state starts with -------------------------------------------------------------------

_VALID_RULES: dict[int, Any] = {}
"""Profiles already validated, by identity (the dict keeps each alive, so its id is not reused)."""
_VALID_RULES_MAX = 256


def check_header(state: TableState, rules_type: type, low: int, high: int) -> int:
    """The checks every game shares; returns the seat count. ``low``/``high`` bound the seats."""
    n = len(state.names)
    if not low <= n <= high:
        raise invalid("state.names", f"{n} seats; this table seats {low}..{high}")
    if len(state.chips) != n:
        raise invalid("state.chips", f"{len(state.chips)} entries for {n} seats")
    if state.seq < 0:
        raise invalid("state.seq", f"{state.seq} is negative")
    if state.draws < 0:
        raise invalid("state.draws", f"{state.draws} is negative")
    if state.pot < 0:
        raise invalid("state.pot", f"{state.pot} is negative")
    check_dealing(state, n)
    check_rules(state.rules, rules_type)
    return n


def check_entropy(entropy: bytes, n: int) -> None:
    """The seats' contributions to the next draw: distinct seats of the table, each at most MAX_ENTROPY bytes."""
    try:
        given = contributions(entropy)
    except ValueError as exc:
        raise invalid("state.entropy", str(exc)) from None
    seats = [seat for seat, _ in given]
    if len(set(seats)) != len(seats) or any(not 0 <= s < n for s in seats):
        raise invalid("state.entropy", f"contributions from seats {seats}, not distinct seats of {n}")
    if any(len(data) > MAX_ENTROPY for _, data in given):
        raise invalid("state.entropy", f"a contribution is longer than {MAX_ENTROPY} bytes")


def check_dealing(state: TableState, n: int) -> None:
    """The seats' entropy for the next draw and the packs kept (docs/fairness.md) are ones play could make."""
    if state.entropy:  # usually none: a move seldom carries it
        check_entropy(state.entropy, n)
    if len(state.commitment) != 32:
        raise invalid("state.commitment", f"{len(state.commitment)} bytes, not a SHA-256")
    last = -1
    for i, pack in enumerate(state.packs):
        if not last < pack.draw < state.draws:
            raise invalid(f"state.packs[{i}].draw", f"{pack.draw} is not a draw after {last} and before {state.draws}")
        last = pack.draw
        if len(set(pack.cards)) != len(pack.cards) or (pack.cards and max(pack.cards) >= len(ALL_CARDS)):
            raise invalid(f"state.packs[{i}].cards", "not distinct cards")


def check_rules(rules: Any, rules_type: type) -> None:
    """The profile is of the game's type and passes its own ``validate`` (memoised by identity, after the type: a
    profile known valid for its own game is still wrong for another's)."""
    if type(rules) is not rules_type:
        raise invalid("state.rules", f"a {type(rules).__name__} is not a {rules_type.__name__}")
    if _VALID_RULES.get(id(rules)) is rules:
        return
    try:
        getattr(rules, "validate")()  # noqa: B009  (a profile of the game's type, checked just above)
    except Rejected as exc:
        raise invalid("state.rules", exc.message) from None
    if len(_VALID_RULES) >= _VALID_RULES_MAX:
        _VALID_RULES.clear()
    _VALID_RULES[id(rules)] = rules


def check_chips_not_negative(chips: Sequence[int]) -> None:
    if chips and min(chips) < 0:
        s = next(i for i, c in enumerate(chips) if c < 0)
        raise invalid(f"state.chips[{s}]", f"{chips[s]} is negative")


def check_seat(path: str, seat: int, n: int) -> None:
    if not 0 <= seat < n:
        raise invalid(path, f"{seat} is not a seat of this {n}-seat table")


def check_seats(path: str, seats: Sequence[int], n: int) -> None:
    """Every entry of ``seats`` is a seat of the table."""
    if seats and (min(seats) < 0 or max(seats) >= n):
        i = next(i for i, s in enumerate(seats) if not 0 <= s < n)
        check_seat(f"{path}[{i}]", seats[i], n)


def check_sitting_out(path: str, sitting_out: Sequence[int], n: int, allowed: bool, dealer: int) -> None:
    """The seats sitting out (option ``sit_out``): none unless the rules allow it; else seats of the table in
    ascending order, each once, never ``dealer`` (the seat that deals plays every hand)."""
    if sitting_out and not allowed:
        raise invalid(path, "seats sit out but the rules do not allow it (option sit_out)")
    check_seats(path, sitting_out, n)
    if list(sitting_out) != sorted(set(sitting_out)):
        raise invalid(path, f"{list(sitting_out)} is not ascending with each seat once")
    if dealer in sitting_out:
        raise invalid(path, f"seat {dealer} deals, so it cannot sit out")


def check_length(path: str, items: Sequence[Any], n: int, what: str = "seats") -> None:
    if len(items) != n:
        raise invalid(path, f"{len(items)} entries for {n} {what}")


# -- cards ------------------------------------------------------------------------------------------------

card_key = operator.attrgetter("key")
"""A card's small integer (:attr:`Card.key <engine.cards.Card.key>`, its hash), read in C: no Python call per card."""
table_card_key = operator.attrgetter("card.key")
"""The key of a :class:`~engine.visibility.TableCard`'s card; AttributeError if it is hidden (``None``)."""

Piles = Iterable[tuple[str, Sequence[Any]]]
"""``(path, cards)`` pairs, each pile a tuple of :class:`Card` or :class:`TableCard`."""


class Pack:
    """A pack's cards by key, for the conservation check."""

    __slots__ = ("by_key", "keys", "name")

    def __init__(self, name: str, cards: Sequence[Card]) -> None:
        self.name = name
        self.by_key = {card_key(c): c for c in cards}
        self.keys = frozenset(self.by_key)


def check_cards(
    state: S, pack: Pack, whole: bool, fast_keys: Callable[[S], list[int]], piles: Callable[[S], Piles]
) -> None:
    """The cards of ``state`` are distinct cards of ``pack``, all of it when ``whole``.

    ``fast_keys(state)`` lists the keys of every card with :data:`card_key` / :data:`table_card_key` (map over
    each pile: no Python call per card); only when that finds a fault does ``piles(state)`` name the culprit.
    """
    try:
        keys = fast_keys(state)
    except AttributeError:  # a hidden card (None) or not a card at all
        pass
    else:
        seen = set(keys)
        if len(seen) == len(keys) and (seen == pack.keys if whole else seen <= pack.keys):
            return
    explain_cards(pack, whole, piles(state))


def explain_cards(pack: Pack, whole: bool, piles: Piles) -> None:
    """The slow path: walk the piles and raise for the first hidden, foreign or repeated card, or the missing."""
    where: dict[int, str] = {}
    for path, pile in piles:
        for i, item in enumerate(pile):
            if item is None:  # an empty place (a Saltacavallo seat without a card)
                continue
            card = item if isinstance(item, Card) else getattr(item, "card", item)
            if not isinstance(card, Card):
                raise invalid(f"{path}[{i}]", "a hidden or unknown card; a state holds every card's face")
            key = card_key(card)
            if key not in pack.keys:
                raise invalid(f"{path}[{i}]", f"{card} is not a card of the {pack.name} pack")
            if key in where:
                raise invalid(f"{path}[{i}]", f"{card} is also at {where[key]}")
            where[key] = f"{path}[{i}]"
    if whole and len(where) != len(pack.keys):
        missing = " ".join(str(pack.by_key[k]) for k in sorted(k for k in pack.keys if k not in where))
        raise invalid("state", f"card(s) of the {pack.name} pack are nowhere on the table: {missing}")
    raise AssertionError("check_cards found a fault that explain_cards cannot name")  # pragma: no cover
