"""What happened at the table: the event value, what a kind of event is, and the kinds every game tells.

An :class:`Event` is one record for every kind, as on the wire (``Event`` in ``table.proto``, whose ``kind`` is
the kind's text). An :class:`EventKind` names the fields its events carry (its payload); the others stay at
their defaults, which :func:`check_payload` checks and the conformance suite asks of every event played.

The kinds here are the ones every game shares: the end of a hand and of the game, and the dealing's draws
(:mod:`engine.dealing`). A game declares its own kinds in its package (``engine/games/<game>/events.py``):
declaring a kind registers its text, so no list of every game's kinds is kept here. ``EventKind["SHOW"]`` (or
``EventKind.SHOW``) is the kind declared with that text, whichever game declared it.

>>> event = Event(HAND_OVER, seat=1, amount=5)
>>> event.kind == "HAND_OVER", sorted(HAND_OVER.payload)
(True, ['amount', 'points', 'seat'])
>>> check_payload(event)
>>> EventKind("HAND_OVER", "seat amount points") is HAND_OVER  # declared again with the same fields: the same kind
True
>>> EventKind("HAND_OVER", "seat")
Traceback (most recent call last):
...
ValueError: the event kind HAND_OVER is declared already, with the fields amount points seat
"""

from __future__ import annotations

from typing import Any

from mazziere.engine.values import Value
from mazziere.engine.visibility import PUBLIC, Audience, Redactor, TableCard, Viewer, compile_redactor

_DECLARED: dict[str, EventKind] = {}
"""Every kind declared so far, by its text."""
_UNSET: dict[str, Any] = {
    "seat": None, "target": None, "cards": (), "amount": 0, "points": 0, "draw": None, "at": (), "data": ""
}  # fmt: skip
"""The fields of :class:`Event` a kind may name as its payload, each with the value it keeps when unnamed."""


class _Declared(type):
    """The kinds' class finds any declared kind by its text: ``EventKind["SHOW"]``, ``EventKind.SHOW``."""

    def __getitem__(cls, text: str) -> EventKind:
        return _DECLARED[text]

    def __getattr__(cls, name: str) -> EventKind:
        kind = _DECLARED.get(name)
        if kind is None:
            raise AttributeError(f"no event kind {name!r} is declared")
        return kind


class EventKind(str, metaclass=_Declared):
    """A kind of event, with the fields its events carry. Equal to its text (``HAND_OVER == "HAND_OVER"``).

    ``EventKind(text, payload)`` declares it (``payload``: the names of the fields, space-separated) and
    registers its text; declared again with the same fields it is the same kind, with others a ValueError.
    """

    payload: frozenset[str]

    def __new__(cls, text: str, payload: str) -> EventKind:
        fields = frozenset(payload.split())
        known = _DECLARED.get(text)
        if known is not None:
            if known.payload != fields:
                raise ValueError(
                    f"the event kind {text} is declared already, with the fields {' '.join(sorted(known.payload))}"
                )
            return known
        if not fields <= _UNSET.keys():
            raise ValueError(f"an event has no field {' '.join(sorted(fields - _UNSET.keys()))} (kind {text})")
        kind = str.__new__(cls, text)
        kind.payload = fields
        _DECLARED[text] = kind
        return kind

    def __reduce__(self) -> tuple[type[EventKind], tuple[str, str]]:
        return EventKind, (str(self), " ".join(sorted(self.payload)))

    def __repr__(self) -> str:
        return f"EventKind[{str(self)!r}]"


# -- the kinds every game tells

HAND_OVER = EventKind("HAND_OVER", "seat amount points")
"""A hand or deal is settled: the bank or dealer (Trentuno: the first winner), the hand's number or share."""
GAME_OVER = EventKind("GAME_OVER", "seat amount")
"""The game has ended: the winner where there is one, and the chips the last settlement moved."""

# -- the dealing's draws (engine.dealing, docs/fairness.md)

COMMITTED = EventKind("COMMITTED", "draw data")
"""The commitment to the seed of the table's next draw (docs/fairness.md), told before that draw."""
ENTROPY = EventKind("ENTROPY", "seat draw data")
"""A seat's entropy (``data``, hex), mixed into the draw ``draw``."""
SEED = EventKind("SEED", "draw data cards target amount")
"""A draw's seed revealed: a pack gathered (``cards``: its cards in canonical order) or a number drawn
(``target`` in ``range(amount)``)."""


class Event(Value, frozen=True):
    """Something that happened, with who may see it. Cards inside carry their own audience too."""

    kind: EventKind
    seat: int | None = None
    target: int | None = None
    cards: tuple[TableCard, ...] = ()
    amount: int = 0
    points: int = 0
    seen_by: Audience = PUBLIC
    draw: int | None = None
    """The draw the event is about; with ``cards`` taken from a pack, that pack's draw."""
    at: tuple[int, ...] = ()
    """The place of each of ``cards`` in the pack ``draw`` (0 is the top card), when they leave it."""
    data: str = ""
    """A commitment, seed or entropy, in hex."""


_PROVENANCE = frozenset({"draw", "at"})


def check_payload(event: Event) -> None:
    """Raise ValueError if ``event`` sets a field its kind does not carry (an event with cards may also carry
    their ``draw`` and places, ``at``: docs/fairness.md)."""
    allowed = event.kind.payload | _PROVENANCE if "cards" in event.kind.payload else event.kind.payload
    extra = [name for name, unset in _UNSET.items() if getattr(event, name) != unset and name not in allowed]
    if extra:
        raise ValueError(f"a {event.kind} event carries no {', '.join(extra)}")


def redact_events(events: tuple[Event, ...], viewer: Viewer) -> tuple[Event, ...]:
    """The events ``viewer`` may see, their hidden cards face down (:func:`~engine.visibility.redact`, compiled)."""
    return _REDACT_EVENTS(events, viewer)  # type: ignore[no-any-return]


_REDACT_EVENTS: Redactor = compile_redactor(tuple[Event, ...])
