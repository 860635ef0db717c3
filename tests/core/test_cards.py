import pytest

from mazziere.engine.cards import FRENCH_32, FRENCH_40, ITALIAN_40, Card, Suit, cards_text, parse_cards
from mazziere.engine.errors import Reason, Rejected


def test_packs_have_the_sizes_of_rules_section_0():
    assert len(ITALIAN_40) == len(set(ITALIAN_40)) == 40
    assert len(FRENCH_40) == len(set(FRENCH_40)) == 40
    assert len(FRENCH_32) == len(set(FRENCH_32)) == 32
    assert {c.rank for c in FRENCH_32} == {1, 7, 8, 9, 10, 11, 12, 13}
    assert {c.rank for c in FRENCH_40} == {1, 2, 3, 4, 5, 6, 7, 11, 12, 13}


@pytest.mark.parametrize("card", ITALIAN_40 + FRENCH_40 + FRENCH_32)
def test_notation_round_trips(card):
    assert Card.parse(str(card)) == card
    assert len(str(card)) == 2


def test_notation_examples():
    assert Card.parse("Rd") == Card(10, Suit.DENARI)
    assert Card.parse("Cc") == Card(9, Suit.COPPE)
    assert Card.parse("KD") == Card(13, Suit.DIAMONDS)
    assert Card.parse("TS") == Card(10, Suit.SPADES)
    assert cards_text(parse_cards("7d Rb AH")) == "7d Rb AH"


@pytest.mark.parametrize("text", ["", "Kd", "Rz", "11d", "7", "TD ", "Jd", "8b"])
def test_bad_notation_is_a_typed_rejection(text):
    with pytest.raises(Rejected) as err:
        Card.parse(text)
    assert err.value.reason is Reason.INVALID_CARD
    assert repr(text) in err.value.message


def test_figures():
    assert [c.is_figure for c in parse_cards("7d Fd Cd Rd")] == [False, True, True, True]
    assert [c.is_figure for c in parse_cards("7H TH JH QH KH AH")] == [False, False, True, True, True, False]


def test_a_card_orders_strictly_against_itself_and_reads_back_from_its_repr():
    for card in ITALIAN_40 + FRENCH_40:
        assert not card < card and not card > card and card <= card and card >= card
        assert repr(card) == f"Card.parse({str(card)!r})" and eval(repr(card), {"Card": Card}) is card
    ace, re = Card.parse("Ad"), Card.parse("Rd")
    assert ace < re and re > ace and ace <= re and re >= ace and not re <= ace and not ace >= re
