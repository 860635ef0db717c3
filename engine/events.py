"""What happened at the table: the kinds of event of every game, listed once, and the event value.

An :class:`Event` is one record for every kind, as on the wire (``Event`` in ``table.proto``, whose ``kind`` is
this enum's text). Each :class:`EventKind` names the fields its events carry (its payload); the others stay at
their defaults, which :func:`check_payload` checks and the conformance suite asks of every event played.

>>> event = Event(EventKind.STAKED, seat=1, amount=5)
>>> event.kind == "STAKED", sorted(EventKind.STAKED.payload)
(True, ['amount', 'seat'])
>>> check_payload(event)
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from mazziere.engine.values import Value
from mazziere.engine.visibility import PUBLIC, Audience, Redactor, TableCard, Viewer, compile_redactor


class EventKind(StrEnum):
    """Every kind of event, with the fields its events carry. Equal to its text (``EventKind.HIT == "HIT"``)."""

    payload: frozenset[str]

    def __new__(cls, text: str, payload: str) -> EventKind:
        kind = str.__new__(cls, text)
        kind._value_ = text
        kind.payload = frozenset(payload.split())
        return kind

    # -- every game
    HAND_OVER = "HAND_OVER", "seat amount points"
    """A hand or deal is settled: the bank or dealer (Trentuno: the first winner), the hand's number or share."""
    GAME_OVER = "GAME_OVER", "seat amount"
    """The game has ended: the winner where there is one, and the chips the last settlement moved."""

    # -- dealers, banks and shuffles
    FIRST_BANK = "FIRST_BANK", "seat"
    """SM-6: the first bank."""
    FIRST_DEALER = "FIRST_DEALER", "seat"
    """SC-4: the first dealer."""
    DEALER = "DEALER", "seat"
    """TR-2, TR-13: the seat that deals next."""
    NEXT_DEALER = "NEXT_DEALER", "seat"
    """SC-14: the deal passes on."""
    BANK_PASSED = "BANK_PASSED", "seat target"
    """SM-16, SM-17, SM-23: the bank passes from ``seat`` to ``target``."""
    DREW = "DREW", "seat cards"
    """SM-6 HIGHEST_CARD: a seat's card, face up, in the draw for the first bank."""
    CHOOSE_DEALER = "CHOOSE_DEALER", "seat"
    """SC-4: the seat that deals the pack face up to choose the first dealer."""
    CHOOSE_CARD = "CHOOSE_CARD", "seat cards"
    """SC-4: a card dealt face up to a seat while choosing the first dealer."""
    COMMITTED = "COMMITTED", "amount draw data"
    """The commitment to the seed of the table's next draw (docs/fairness.md), told before that draw; ``amount`` names
    the dealing algorithm (:data:`engine.chance.ALGORITHM`)."""
    ENTROPY = "ENTROPY", "seat draw data"
    """A seat's entropy (``data``, hex), mixed into the draw ``draw``."""
    SEED = "SEED", "draw data cards target amount"
    """A draw's seed revealed: a pack gathered (``cards``: its cards in canonical order) or a number drawn
    (``target`` in ``range(amount)``)."""
    SHUFFLED = "SHUFFLED", "amount"
    """SM-7, SM-18: the stock is shuffled (``amount`` cards)."""
    SHUFFLE = "SHUFFLE", "seat"
    """SC-5: the dealer shuffles."""
    CUT = "CUT", "seat target"
    """SC-5: ``seat`` cuts for the dealer ``target``."""

    # -- dealing
    DEAL = "DEAL", "seat amount"
    """TR-3, TR-4: the dealer deals, the pot holding ``amount``."""
    DEALT = "DEALT", "seat cards"
    """SM-7: a seat's first card."""
    CARD_DEALT = "CARD_DEALT", "seat cards"
    """SC-6: a seat's card."""
    HAND = "HAND", "seat cards"
    """TR-4: a seat's three cards."""
    WIDOW = "WIDOW", "cards"
    """TR-4: the widow, face up."""

    # -- Sette e mezzo's turns and showdown
    STAKED = "STAKED", "seat amount"
    """SM-8: a player's stake."""
    HIT = "HIT", "seat cards amount points"
    """SM-9, SM-12: a card face up (``amount``: a raise with it)."""
    HIT_HIDDEN = "HIT_HIDDEN", "seat cards amount"
    """SM-9 option: a card face down, the hidden one turned up."""
    STOOD = "STOOD", "seat amount points"
    """SM-9, SM-12: a player or the bank stands."""
    BURNED = "BURNED", "seat cards"
    """SM-20: a card burned, face up."""
    REPLACED = "REPLACED", "seat cards"
    """SM-20: the burned card's replacement."""
    REVEALED = "REVEALED", "seat cards points"
    """SM-11, SM-12: a face-down card turned up."""
    SETTE_E_MEZZO = "SETTE_E_MEZZO", "seat points"
    """SM-11, SM-22: 7½ (or a triplé) reached."""
    BUST = "BUST", "seat target amount points"
    """SM-10: over 7½; a player pays the bank ``target`` his stake at once."""
    PAID = "PAID", "seat target amount points"
    """SM-13..15: the bank ``target`` pays the player ``seat``."""
    COLLECTED = "COLLECTED", "seat target amount points"
    """SM-13: the player ``seat`` pays the bank ``target``."""
    PUSH = "PUSH", "seat target points"
    """SM-13: a tie; no money moves."""

    # -- Saltacavallo's turns and lives
    KEEP = "KEEP", "seat"
    """SC-7, SC-10: a seat keeps its card."""
    SWAP = "SWAP", "seat target cards"
    """SC-7: two seats change cards, face down (each side sees both)."""
    REVEAL = "REVEAL", "seat cards"
    """SC-10: a card turned face up."""
    DRAW = "DRAW", "seat cards"
    """SC-10: the dealer draws from the stock."""
    DRAW_AGAIN = "DRAW_AGAIN", "seat cards"
    """SC-10 Cucù: a drawn cavallo; the dealer draws again."""
    DRAW_VOID = "DRAW_VOID", "seat cards"
    """SC-10 Cucù: a drawn re; the dealer keeps his own card."""
    REPLAY = "REPLAY", "seat points"
    """SC-12 REPLAY: every living seat would die; the hand is played again."""
    LIFE_LOST = "LIFE_LOST", "seat amount points"
    """SC-11, TR-12 LIVES: a seat loses a life (Saltacavallo: its coin to the pot)."""
    DEAD = "DEAD", "seat"
    """SC-11: a seat has no life left."""
    REVIVE = "REVIVE", "seat target amount"
    """SC-13: ``target`` gives a life to the dead ``seat``."""
    POT_WON = "POT_WON", "seat amount"
    """SC-15: the last living seat takes the pot."""
    POT_SHARE = "POT_SHARE", "seat amount"
    """SC-12 SPLIT_POT, SC-15: a seat's share of a split pot."""

    # -- Trentuno's turns and showdown
    WIDOW_TRENTUNO = "WIDOW_TRENTUNO", "seat cards"
    """TR-6: the widow is a Trentuno; the dealer takes it."""
    EXCHANGE = "EXCHANGE", "seat cards"
    """TR-9: a card given to the widow and the one taken from it."""
    TAKE_ALL = "TAKE_ALL", "seat cards"
    """TR-9: the whole widow taken; ``cards`` is the new widow."""
    STOP = "STOP", "seat"
    """TR-11: a seat stops; the last round begins."""
    PASS = "PASS", "seat"
    """TR-11: a seat passes in the last round."""
    ROUND_LIMIT = "ROUND_LIMIT", "seat amount"
    """TR-14: ``amount`` rounds played; the dealer is deemed to have stopped."""
    SHOW = "SHOW", "seat cards points"
    """TR-12: a hand shown at the end of the deal."""
    WIN = "WIN", "seat amount points"
    """TR-12: a winner and his share of the pot."""


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


_UNSET: dict[str, Any] = {
    "seat": None, "target": None, "cards": (), "amount": 0, "points": 0, "draw": None, "at": (), "data": ""
}  # fmt: skip
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
