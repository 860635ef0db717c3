"""Committed dealing: a table's draws within one action, with their commitments, provenance and reveals.

A game never calls :mod:`engine.chance` itself: it asks its :class:`Dealing` (``step.dealing``, or
:meth:`Dealing.opening` when a table starts) to shuffle a pack or draw a number. The dealing then

* mixes in the entropy the seats contributed to that draw, and publishes the next draw's commitment
  (a ``COMMITTED`` event);
* keeps each pack it shuffles (its cards in canonical order) until the pack is revealed;
* marks the cards a game takes from a pack (:meth:`Dealing.took`), so that the events showing them carry
  their ``draw`` and place (``at``) in that pack (:meth:`Dealing.tell`, or the step's events);
* reveals a pack's seed (a ``SEED`` event) when :meth:`Dealing.reveal` is called: games call it when a new
  hand is dealt, the engine when a game ends or its table is closed. docs/fairness.md has the algorithm.

>>> from mazziere.engine.cards import ITALIAN_40
>>> events = []
>>> dealing = Dealing.opening(b"secret", events)
>>> deck = dealing.shuffle(ITALIAN_40)
>>> dealing.took(deck, 2)
>>> from mazziere.engine.games.sette_e_mezzo.events import DEALT
>>> first = dealing.tell(Event(DEALT, seat=0, cards=(TableCard(deck[1], PUBLIC),)))
>>> first.draw, first.at, [str(e.kind) for e in events]
(0, (1,), ['COMMITTED', 'COMMITTED', 'DEALT'])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import attrgetter
from typing import Final, TypeVar

import msgspec

from mazziere.engine import chance
from mazziere.engine.cards import ALL_CARDS, FRENCH_32, FRENCH_40, ITALIAN_40, Card
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.events import COMMITTED, ENTROPY, SEED, Event
from mazziere.engine.table import Pack, TableState
from mazziere.engine.visibility import PUBLIC, TableCard

S = TypeVar("S", bound=TableState)


_FACE_UP = tuple(TableCard(card, PUBLIC) for card in ALL_CARDS)
"""Every card face up, by ``Card.index``: a revealed pack's cards."""
_INDEX = attrgetter("index")
_NOTATION = attrgetter("text")
"""A card's notation: canonical order sorts by it, byte by byte (docs/fairness.md); read without a Python call."""


def _canonical(cards: Iterable[Card]) -> tuple[tuple[Card, ...], bytes]:
    """``cards`` in canonical order, and their indexes as a pack keeps them."""
    contents = tuple(sorted(cards, key=_NOTATION))
    return contents, bytes(map(_INDEX, contents))


_WHOLE_PACKS: Final = {id(pack): (pack, *_canonical(pack)) for pack in (ITALIAN_40, FRENCH_40, FRENCH_32)}
"""The whole packs the games shuffle again and again, by ``id``: the pack, its canonical order and indexes."""


class Dealing:
    """The dealing fields of a state (``seed``, ``draws``, ``entropy``, ``packs``, ``commitment``) as one action
    changes them."""

    __slots__ = ("commitment", "draws", "entropy", "events", "origin", "packs", "secret")

    def __init__(
        self,
        secret: bytes,
        draws: int,
        entropy: bytes,
        packs: tuple[Pack, ...],
        commitment: bytes,
        events: list[Event],
    ) -> None:
        self.secret = secret
        self.draws = draws
        self.entropy = entropy
        self.packs = packs
        self.commitment = commitment
        """The next draw's commitment."""
        self.events = events
        """Where the dealing tells what it does: the step's own list of events."""
        self.origin: dict[int, tuple[int, int]] = {}
        """The cards taken from a pack in this action (by ``Card.index``): their draw and place in it."""

    @classmethod
    def of(cls, state: TableState, events: list[Event]) -> Dealing:
        return cls(state.seed, state.draws, state.entropy, state.packs, state.commitment, events)

    @classmethod
    def opening(cls, secret: bytes, events: list[Event]) -> Dealing:
        """A new table's dealing: no draw yet; the first draw's commitment told."""
        dealing = cls(secret, 0, b"", (), b"", events)
        dealing._commit()
        return dealing

    # -- draws -------------------------------------------------------------------------------------

    def shuffle(self, cards: Iterable[Card]) -> tuple[Card, ...]:
        """A new pack of ``cards`` (put in canonical order, then shuffled by the next draw): the one dealt from."""
        whole = _WHOLE_PACKS.get(id(cards))
        contents, indexes = (whole[1], whole[2]) if whole is not None and whole[0] is cards else _canonical(cards)
        deck = chance.shuffled(contents, self.secret, self.draws, self.entropy)
        self.packs = (*self.packs, Pack(self.draws, indexes))
        self._drew()
        return deck

    def number(self, n: int) -> int:
        """An integer in ``range(n)`` by the next draw, revealed at once (its result is public)."""
        draw, seed = self.draws, chance.draw_seed(self.secret, self.draws)
        value = chance.number(n, seed, self.entropy)
        self._drew()
        self.events.append(Event(SEED, target=value, amount=n, draw=draw, data=seed.hex()))
        return value

    def took(self, stock: Sequence[Card], count: int = 1) -> None:
        """The first ``count`` cards of ``stock`` (what is left of the current pack) leave it now."""
        pack = self.packs[-1]
        first = len(pack.cards) - len(stock)
        if count == 1:
            self.origin[stock[0].index] = (pack.draw, first)
            return
        for j in range(count):
            self.origin[stock[j].index] = (pack.draw, first + j)

    def reveal(self, *, keep_current: bool) -> None:
        """Reveal every pack kept (but the one dealt from, if ``keep_current``): all its cards are gathered."""
        kept = self.packs[-1:] if keep_current else ()
        for pack in self.packs[: len(self.packs) - len(kept)]:
            cards = tuple(map(_FACE_UP.__getitem__, pack.cards))
            seed = chance.draw_seed(self.secret, pack.draw)
            self.events.append(Event(SEED, cards=cards, draw=pack.draw, data=seed.hex()))
        self.packs = kept

    def _drew(self) -> None:
        self.draws += 1
        self.entropy = b""
        self._commit()

    def _commit(self) -> None:
        self.commitment = chance.commitment(chance.draw_seed(self.secret, self.draws))
        self.events.append(Event(COMMITTED, amount=chance.ALGORITHM, draw=self.draws, data=self.commitment.hex()))

    # -- events ------------------------------------------------------------------------------------

    def place(self, cards: tuple[TableCard, ...]) -> tuple[int | None, tuple[int, ...]]:
        """The draw and places of ``cards`` if all were taken from one pack in this action, else ``(None, ())``."""
        if len(cards) == 1:  # the usual case: one card dealt
            card = cards[0].card
            one = self.origin.get(card.index) if card is not None else None
            return (None, ()) if one is None else (one[0], (one[1],))
        origin, draw, at = self.origin, None, []
        for tc in cards:
            one = origin.get(tc.card.index) if tc.card is not None else None
            if one is None or (draw is not None and one[0] != draw):
                return None, ()
            draw = one[0]
            at.append(one[1])
        return draw, tuple(at)

    def tell(self, event: Event) -> Event:
        """Tell ``event`` (and return it as told): cards taken from a pack in this action carry their draw and
        places. For a table's opening; a game's action tells its events on its :class:`~engine.step.Step`."""
        if event.cards and self.origin:
            draw, at = self.place(event.cards)
            if draw is not None:
                event = msgspec.structs.replace(event, draw=draw, at=at)
        self.events.append(event)
        return event


def with_entropy(state: S, seat: int, entropy: bytes) -> tuple[S, tuple[Event]]:
    """``state`` with ``seat``'s entropy for the next draw, and the event telling it; raise :class:`Rejected`
    (INVALID_ENTROPY) if it is too long or the seat gave some for that draw already."""
    if len(entropy) > chance.MAX_ENTROPY:
        raise Rejected(
            Reason.INVALID_ENTROPY, f"entropy is at most {chance.MAX_ENTROPY} bytes for one draw, not {len(entropy)}"
        )
    if any(given == seat for given, _ in contributions(state.entropy)):
        raise Rejected(
            Reason.INVALID_ENTROPY, f"seat {seat} has given its entropy for draw {state.draws}; send it after that draw"
        )
    event = Event(ENTROPY, seat=seat, draw=state.draws, data=entropy.hex())
    return msgspec.structs.replace(state, entropy=state.entropy + chance.contribution(seat, entropy)), (event,)


def contributions(entropy: bytes) -> list[tuple[int, bytes]]:
    """The seats' contributions ``entropy`` holds, in order, each ``(seat, bytes)`` (ValueError if it is not a
    run of them: :func:`engine.chance.contribution`)."""
    found, i = [], 0
    while i < len(entropy):
        if i + 2 > len(entropy) or i + 2 + entropy[i + 1] > len(entropy) or not entropy[i + 1]:
            raise ValueError("not a run of (seat, length, bytes) contributions")
        found.append((entropy[i], entropy[i + 2 : i + 2 + entropy[i + 1]]))
        i += 2 + entropy[i + 1]
    return found


def gather(state: S, events: list[Event]) -> S:
    """The table's packs all gathered (the game has ended or the table is closed): every seed kept is revealed."""
    dealing = Dealing.of(state, events)
    dealing.reveal(keep_current=False)
    return msgspec.structs.replace(state, packs=dealing.packs)
