from engine.cards import Card
from engine.table import Event
from engine.values import Value
from engine.visibility import NOBODY, PUBLIC, TableCard, face_down, face_up, only, redact

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
