from typing import Any

from mazziere.engine.cards import Card
from mazziere.engine.table import Event
from mazziere.engine.values import Value
from mazziere.engine.visibility import NOBODY, PUBLIC, TableCard, face_down, face_up, only, redact

ACE = Card.parse("Ad")
RE = Card.parse("Rd")


class Hand(Value, frozen=True):
    owner: int
    cards: tuple[TableCard, ...]


def test_audiences():
    assert PUBLIC.admits(None) and PUBLIC.admits(3)
    assert not NOBODY.admits(0) and not NOBODY.admits(None)
    assert only(1, 2).admits(2) and not only(1, 2).admits(0) and not only(1).admits(None)
    assert only(1).with_seat(4) == only(1, 4)
    assert PUBLIC.with_seat(4) is PUBLIC


def test_redact_hides_cards_a_seat_may_not_see():
    hand = Hand(0, (face_down(ACE, 0), face_up(RE)))
    assert redact(hand, 0) == hand
    assert redact(hand, 1) == Hand(0, (TableCard(None, only(0)), face_up(RE)))
    assert redact(hand, None) == redact(hand, 1)


def test_redact_drops_events_and_hides_their_cards_with_one_mechanism():
    events = (
        Event("DEALT", seat=0, cards=(face_down(ACE, 0),)),
        Event("PEEKED", seat=0, seen_by=only(0)),
        Event("HIT", seat=0, cards=(face_up(RE),)),
    )
    mine = redact(events, 0)
    theirs = redact(events, 1)
    assert mine == events
    assert [e.kind for e in theirs] == ["DEALT", "HIT"]
    assert theirs[0].cards == (TableCard(None, only(0)),)
    assert theirs[1] == events[2]


# -- the fallback: values the type hints do not describe are redacted by looking at them -------------------

HIDDEN = face_down(ACE, 0)
SHOWN = face_up(RE)
WHISPER = Event("PEEKED", seat=0, cards=(HIDDEN,), seen_by=only(0))
DEALT = Event("DEALT", seat=0, cards=(HIDDEN,))


class Loose(Value, frozen=True):
    """A field typed ``Any``: redacted by value, whatever it holds."""

    payload: Any


class Unresolved(Value, frozen=True):
    """A hint that names nothing (``typing.get_type_hints`` fails): every field is redacted by value."""

    label: str
    card: "NoSuchType"  # type: ignore[name-defined]  # noqa: F821
    events: "tuple[NoSuchType, ...]"  # type: ignore[name-defined]  # noqa: F821


class Mixed(Value, frozen=True):
    """A union of two kinds that hold cards, and a fixed-length tuple: both redacted by value."""

    either: TableCard | Hand
    pair: tuple[TableCard, Event]
    maybe: Hand | None = None


def test_redact_fallback_any_field_by_value() -> None:
    value = Loose((HIDDEN, WHISPER, DEALT, Hand(0, (HIDDEN, SHOWN)), "text"))
    assert redact(value, 0) == value
    theirs = redact(value, 1)
    assert theirs == Loose(
        (
            TableCard(None, only(0)),
            Event("DEALT", seat=0, cards=(TableCard(None, only(0)),)),
            Hand(0, (TableCard(None, only(0)), SHOWN)),
            "text",
        )
    )
    assert redact(Loose(HIDDEN), None) == Loose(TableCard(None, only(0)))
    assert redact(Loose(7), 1) == Loose(7)


def test_redact_fallback_unresolvable_hints() -> None:
    value = Unresolved("x", HIDDEN, (WHISPER, DEALT))
    assert redact(value, 0) == value
    theirs = redact(value, 1)
    assert theirs.label == "x" and theirs.card == TableCard(None, only(0))
    assert [e.kind for e in theirs.events] == ["DEALT"] and theirs.events[0].cards == (TableCard(None, only(0)),)


def test_redact_fallback_unions_and_fixed_tuples() -> None:
    value = Mixed(Hand(0, (HIDDEN,)), (HIDDEN, WHISPER), Hand(1, (HIDDEN,)))
    assert redact(value, 0) == value
    theirs = redact(value, 1)
    assert theirs.either == Hand(0, (TableCard(None, only(0)),))
    assert theirs.pair == (TableCard(None, only(0)),)  # the whispered event is not theirs to see
    assert theirs.maybe == Hand(1, (TableCard(None, only(0)),))
    assert redact(Mixed(HIDDEN, (SHOWN, DEALT)), None).either == TableCard(None, only(0))
    assert redact(Mixed(SHOWN, (SHOWN, DEALT)), None).maybe is None


def _seen(card: TableCard, viewer: int | None) -> TableCard:
    return card if card.card is None or card.seen_by.admits(viewer) else TableCard(None, card.seen_by)


def test_a_kind_of_value_redacted_for_the_first_time_compiles_to_the_plain_rule():
    """Redactors are compiled once per kind of value; kinds made here are new to the engine, so their redactors
    are built in this test, and must do what the rule says: cards hidden, unseen events dropped, the rest kept."""

    class Place(Value, frozen=True):
        cards: tuple[TableCard, ...]
        last: TableCard | None
        name: str

    class Board(Value, frozen=True):
        places: tuple[Place, ...]
        log: tuple[Event, ...]
        top: TableCard
        pair: tuple[TableCard, TableCard]
        count: int

    board = Board(
        places=(Place((HIDDEN, SHOWN), HIDDEN, "a"), Place((face_down(RE, 1),), None, "b")),
        log=(DEALT, WHISPER, Event("HIT", seat=1, cards=(SHOWN,))),
        top=face_down(ACE, 2),
        pair=(HIDDEN, face_down(RE, 0, 1)),
        count=3,
    )
    for viewer in (None, 0, 1, 2):
        expected = Board(
            places=tuple(
                Place(tuple(_seen(c, viewer) for c in p.cards), p.last and _seen(p.last, viewer), p.name)
                for p in board.places
            ),
            log=tuple(
                Event(e.kind, e.seat, e.target, tuple(_seen(c, viewer) for c in e.cards), e.amount, e.points, e.seen_by)
                for e in board.log
                if e.seen_by.admits(viewer)
            ),
            top=_seen(board.top, viewer),
            pair=tuple(_seen(c, viewer) for c in board.pair),  # type: ignore[arg-type]
            count=3,
        )
        assert redact(board, viewer) == expected, viewer
