"""What a seat may not see, and the states that agree with everything it may see (determinizations).

A card is hidden from a seat when it lies face down for others (a
:class:`~mazziere.engine.visibility.TableCard` the seat's audience does not admit) or in the ``stock``.
:func:`unseen` lists those cards in a canonical (sorted) order, so it depends only on *which* cards are hidden,
never on where they lie; :func:`determinize` deals an ordering of them back into the hidden places. Every
evaluation starts from these two, so advice is the same for every arrangement of the cards a seat cannot see
(tests/bots/test_advice.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from mazziere.engine import view
from mazziere.engine.cards import Card
from mazziere.engine.games.sette_e_mezzo.points import scoring
from mazziere.engine.table import TableState
from mazziere.engine.values import replace
from mazziere.engine.visibility import TableCard


def _sette_e_mezzo_totals(state: Any) -> Any:
    """Sette e mezzo keeps each hand's total: recompute it from the dealt cards."""
    sc = scoring(state.rules)
    hands = tuple(replace(h, points=sc.points(tuple(tc.card for tc in h.cards))) if h.cards else h for h in state.hands)
    return replace(state, hands=hands)


FIXUPS: dict[str, Callable[[Any], Any]] = {"sette_e_mezzo": _sette_e_mezzo_totals}
"""Per game: recompute what a state derives from its cards after a deal."""


class Hidden:
    """The hidden cards of a state for one seat, in canonical order, and where they go back.

    ``owned``: face-down cards some other seat may see (dealt first); then the ``stock`` (top first); then cards
    nobody sees (discards), which only a reshuffle reaches.
    """

    __slots__ = ("cards", "owned", "stock")

    def __init__(self, state: TableState, seat: int) -> None:
        owned: list[Card] = []
        nobody: list[Card] = []

        def collect(tc: TableCard) -> TableCard:
            if tc.card is not None and not tc.seen_by.admits(seat):
                (owned if tc.seen_by.seats else nobody).append(tc.card)
            return tc

        _map(state, collect)
        stock: tuple[Card, ...] = getattr(state, "stock", ())
        self.owned = len(owned)
        self.stock = len(stock)
        self.cards: tuple[Card, ...] = tuple(sorted([*owned, *stock, *nobody]))


def determinize(state: TableState, seat: int, order: Sequence[Card], seed: bytes) -> TableState:
    """``state`` with its hidden cards (for ``seat``) replaced by ``order``: face-down cards of other seats first,
    then the stock, then cards nobody sees; and ``seed`` in place of the table's seed."""
    hidden = Hidden(state, seat)
    owned = iter(order[: hidden.owned])
    rest = iter(order[hidden.owned + hidden.stock :])

    def deal(tc: TableCard) -> TableCard:
        if tc.card is None or tc.seen_by.admits(seat):
            return tc
        return TableCard(next(owned if tc.seen_by.seats else rest), tc.seen_by)

    new = _map(state, deal)
    changes: dict[str, Any] = {"seed": seed}
    if hasattr(state, "stock"):
        changes["stock"] = tuple(order[hidden.owned : hidden.owned + hidden.stock])
    new = replace(new, **changes)
    fixup = FIXUPS.get(state.game)
    return fixup(new) if fixup else new  # type: ignore[no-any-return]


def view_key(state: TableState, seat: int) -> bytes:
    """A key made of the seat's view alone: the seed of every sampled determinization."""
    return hashlib.blake2b(repr(view(state, seat)).encode() + seat.to_bytes(2, "big"), digest_size=24).digest()


def _map(value: Any, fn: Callable[[TableCard], TableCard]) -> Any:
    """``value`` with ``fn`` applied to every table card inside it (engine values and tuples; rules untouched)."""
    if isinstance(value, TableCard):
        return fn(value)
    if isinstance(value, tuple):
        items = tuple(_map(v, fn) for v in value)
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    if isinstance(value, msgspec.Struct):
        changes = {}
        for name in value.__struct_fields__:
            if name == "rules":
                continue
            old = getattr(value, name)
            if isinstance(old, (tuple, TableCard, msgspec.Struct)):
                new = _map(old, fn)
                if new is not old:
                    changes[name] = new
        return msgspec.structs.replace(value, **changes) if changes else value
    return value
