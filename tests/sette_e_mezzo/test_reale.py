"""SM-15, SM-16, SM-19 (every natural_rule), SM-22 (triplé), SM-23: reales, doubles and the bank passing."""

from __future__ import annotations

import pytest

from mazziere.engine.games.sette_e_mezzo.state import Status
from tests.sette_e_mezzo.table import table

PLAYER_REALE_BANK_FIVE = ("7d 6c 5s Fc", ["1 STAKE 5", "1 HIT", "2 STAKE 2", "2 STAND", "0 STAND"])
BOTH_REALE = ("7d 6c 7s Fc Cb", ["1 STAKE 5", "1 HIT", "2 STAKE 3", "2 STAND", "0 HIT"])
SEVEN_FIGURE_VS_ILLEGITTIMO = ("7d 6c 3s Fc 4b Cc", ["1 STAKE 5", "1 HIT", "2 STAKE 1", "2 STAND", "0 HIT", "0 HIT"])
MATTA_FIGURE_VS_ILLEGITTIMO = ("Rd 6c 3s Fc 4b Cc", SEVEN_FIGURE_VS_ILLEGITTIMO[1])
BANK_REALE = ("5d 6c 7s Fc", ["1 STAKE 5", "1 STAND", "2 STAKE 3", "2 STAND", "0 HIT"])
MANY_CARD_BOTH = ("3d 6c 3s 4b Fc 4c Cc", ["1 STAKE 5", "1 HIT", "1 HIT", "2 STAKE 1", "2 STAND", "0 HIT", "0 HIT"])


def play(hand: tuple[str, list[str]], **options: object):
    deck, moves = hand
    return table(deck, **options).do(*moves)


def test_sm15_reale_pays_double():
    run = play(PLAYER_REALE_BANK_FIVE)
    assert run.state.hands[1].status is Status.SETTE_E_MEZZO
    assert run.chips == (88, 110, 102)
    assert [(r.seat, r.amount, r.reale) for r in run.state.results] == [(1, 10, True), (2, 2, False)]


def test_sm15_reale_paid_double_when_the_bank_busts():
    run = table("7d 6c 5s Fc 4b").do("1 STAKE 5", "1 HIT", "2 STAKE 2", "2 STAND", "0 HIT")
    assert run.state.hands[0].status is Status.BUST
    assert run.chips == (88, 110, 102)


def test_sm16_a_player_paid_double_for_a_reale_takes_the_bank():
    run = play(PLAYER_REALE_BANK_FIVE)
    passed = run.kinds("BANK_PASSED")[0]
    assert (passed.seat, passed.target) == (0, 1)
    assert run.state.bank == 1 and run.state.turn == 1 and run.legal(1) == {"DEAL": (0, 0)}
    assert not run.state.fresh  # the new bank goes on with the same stock


def test_sm16_several_reales_the_first_in_turn_after_the_bank():
    run = table("7d 7c 5s Fc Rb", first_bank_seat=1)
    run.do("2 STAKE 1", "2 HIT", "0 STAKE 1", "0 HIT", "1 STAND")
    assert [r.seat for r in run.state.results] == [2, 0] and run.state.bank == 2


def test_sm16_a_bank_reale_keeps_the_bank_even_every_hand():
    run = play(BANK_REALE, bank_passes_when="EVERY_HAND")
    assert run.state.bank == 0 and not run.kinds("BANK_PASSED")
    run = play(BANK_REALE, bank_passes_when="EVERY_HAND", bank_passes_on_reale=False)
    assert run.state.bank == 1


def test_sm23_bank_passes_on_reale_off_keeps_the_bank():
    run = play(PLAYER_REALE_BANK_FIVE, bank_passes_on_reale=False)
    assert run.chips == (88, 110, 102) and run.state.bank == 0


def test_sm19_s002_bank_reale_collects_double_single_from_a_reale():
    run = play(BOTH_REALE)
    assert run.chips == (111, 95, 94)


def test_sm19_s002_matta_figure_loses_only_to_seven_figure():
    run = play(MATTA_FIGURE_VS_ILLEGITTIMO)
    assert run.chips == (100 - 10 + 1, 110, 99) and run.state.bank == 1


def test_sm19_s002_matta_figure_loses_to_a_bank_seven_figure_reale_single():
    run = table("Rd 6c 7s Fc Cb").do("1 STAKE 5", "1 HIT", "2 STAKE 1", "2 STAND", "0 HIT")
    assert [(r.seat, r.amount, r.reale) for r in run.state.results] == [(1, -5, True), (2, -2, False)]
    assert run.chips == (107, 95, 98) and run.state.bank == 0


def test_sm19_s002_ace_and_matta_is_not_the_matta_figure_exception():
    """With ace_half_first an ace (½) and the matta (7) make a reale, but not of matta + figure: a bank 7½ of
    three cards beats it, single."""
    run = table("Ad 6c 3s Rd 4b Cc", ace_half_first=True)
    run.do("1 STAKE 5", "1 HIT", "2 STAKE 1", "2 STAND", "0 HIT", "0 HIT")
    assert [(r.seat, r.amount, r.reale) for r in run.state.results] == [(1, -5, True), (2, -1, False)]
    assert run.chips == (106, 95, 99) and run.state.bank == 0


def test_sm19_s002_bank_illegittimo_beats_a_seven_figure_reale():
    run = play(SEVEN_FIGURE_VS_ILLEGITTIMO)
    assert run.chips == (106, 95, 99) and run.state.bank == 0


def test_sm19_s002_bank_sette_e_mezzo_of_many_cards_collects_single():
    run = play(MANY_CARD_BOTH)
    assert run.chips == (106, 95, 99)


def test_sm19_s000_player_reale_beats_bank_illegittimo_paid_double():
    run = play(SEVEN_FIGURE_VS_ILLEGITTIMO, natural_rule="S000")
    assert run.chips == (100 - 10 + 2, 110, 98) and run.state.bank == 1


def test_sm19_s000_bank_sette_e_mezzo_collects_double_single_from_a_sette_e_mezzo():
    run = play(MANY_CARD_BOTH, natural_rule="S000")
    assert run.chips == (107, 95, 98)


def test_sm19_s000_bank_reale_beats_player_reale_single():
    run = play(BOTH_REALE, natural_rule="S000")
    assert run.chips == (111, 95, 94)


def test_sm19_s001_two_card_sette_e_mezzo_pays_double_both_ways():
    run = play(BOTH_REALE, natural_rule="S001")
    assert run.chips == (116, 90, 94)
    assert play(PLAYER_REALE_BANK_FIVE, natural_rule="S001").chips == (88, 110, 102)


def test_sm19_s001_ties_still_go_to_the_bank():
    run = play(SEVEN_FIGURE_VS_ILLEGITTIMO, natural_rule="S001")
    assert run.chips == (106, 95, 99)


def test_sm19_encyclopedia_reale_beats_many_card_sette_e_mezzo_paid_single():
    run = play(SEVEN_FIGURE_VS_ILLEGITTIMO, natural_rule="ENCYCLOPEDIA")
    assert run.chips == (100 - 5 + 1, 105, 99) and run.state.bank == 0


def test_sm19_encyclopedia_bank_reale_collects_single():
    run = play(BANK_REALE, natural_rule="ENCYCLOPEDIA")
    assert run.chips == (108, 95, 97)
    assert play(BANK_REALE).chips == (116, 90, 94)  # S002: double


def test_sm22_triple_seven_and_matta_pays_triple_and_takes_the_bank():
    run = table("7d 6c 5s Rd", triple=True).do("1 STAKE 5", "1 HIT", "2 STAKE 1", "2 STAND", "0 STAND")
    assert run.chips == (84, 115, 101) and run.state.bank == 1
    plain = table("7d 6c 5s Rd").do("1 STAKE 5", "1 HIT", "2 STAKE 1", "2 STAND", "0 STAND")
    assert plain.chips == (89, 110, 101)


def test_sm22_triple_two_sevens_is_a_triple_not_a_bust():
    run = table("7d 6c 5s 7c", triple=True, triple_two_sevens=True)
    run.do("1 STAKE 5", "1 HIT", "2 STAKE 1", "2 STAND", "0 STAND")
    assert run.state.hands[1].status is Status.SETTE_E_MEZZO and run.chips == (84, 115, 101)
    bust = table("7d 6c 5s 7c", triple=True).do("1 STAKE 5", "1 HIT")
    assert bust.state.hands[1].status is Status.BUST


def test_sm22_bank_triple_collects_triple():
    run = table("5d 6c 7s Rd", triple=True).do("1 STAKE 2", "1 STAND", "2 STAKE 1", "2 STAND", "0 HIT")
    assert run.chips == (109, 94, 97) and run.state.bank == 0


@pytest.mark.parametrize("rule", ["S002", "S000", "S001"])
def test_sm19_a_player_never_pays_more_than_he_has(rule):
    run = table(BANK_REALE[0], chips=[100, 5, 100], natural_rule=rule)
    run.do("1 STAKE 5", "1 STAND", "2 STAKE 1", "2 STAND", "0 HIT")
    assert run.chips == (107, 0, 98)
    assert run.state.results[0].amount == -5


def test_sm22_a_triple_beats_a_bank_reale_and_is_paid_triple():
    run = table("7d 6c 7s Rd Fb", triple=True).do("1 STAKE 2", "1 HIT", "2 STAKE 1", "2 STAND", "0 HIT")
    assert [(r.seat, r.amount) for r in run.state.results] == [(1, 6), (2, -2)]
    assert run.chips == (96, 106, 98)


def test_sm22_two_triples_tie_and_the_tie_is_the_banks():
    run = table("7d 6c 7s Rd 7b", triple=True, triple_two_sevens=True)
    run.do("1 STAKE 2", "1 HIT", "2 STAKE 1", "2 STAND", "0 HIT")
    assert run.points(0) == 28  # two sevens: a triplé, not a bust
    assert [(r.seat, r.amount) for r in run.state.results] == [(1, -2), (2, -3)]  # single; triple from the 6
    assert run.chips == (105, 98, 97)


PLAYER_MANY_VS_BANK_REALE = ("3d 6c 7s 4b Fc Cb", ["1 STAKE 5", "1 HIT", "1 HIT", "2 STAKE 1", "2 STAND", "0 HIT"])


def test_sm19_s002_bank_reale_collects_double_from_a_many_card_sette_e_mezzo():
    run = play(PLAYER_MANY_VS_BANK_REALE)
    assert run.state.hands[1].status is Status.SETTE_E_MEZZO and run.points(0) == 15
    assert [(r.seat, r.amount, r.reale) for r in run.state.results] == [(1, -10, False), (2, -2, False)]
    assert run.chips == (112, 90, 98)


def test_sm19_s000_a_many_card_sette_e_mezzo_pays_a_bank_reale_single():
    run = play(PLAYER_MANY_VS_BANK_REALE, natural_rule="S000")
    assert [(r.seat, r.amount) for r in run.state.results] == [(1, -5), (2, -2)]
    assert run.chips == (107, 95, 98)


def test_sm19_encyclopedia_reale_against_reale_is_the_banks_single():
    run = play(BOTH_REALE, natural_rule="ENCYCLOPEDIA")
    assert [(r.seat, r.amount, r.reale) for r in run.state.results] == [(1, -5, True), (2, -3, False)]
    assert run.chips == (108, 95, 97) and run.state.bank == 0


def test_sm22_a_two_sevens_triple_passes_the_bank_as_a_reale_does():
    run = table("7d 6c 5s 7c", triple=True, triple_two_sevens=True)
    run.do("1 STAKE 5", "1 HIT", "2 STAKE 1", "2 STAND", "0 STAND")
    assert run.state.results[0].reale and run.state.bank == 1
    passed = run.kinds("BANK_PASSED")[0]
    assert (passed.seat, passed.target) == (0, 1)


def test_sm22_a_bank_two_sevens_triple_keeps_the_bank_as_a_reale_does():
    run = table("5d 6c 7s 7b", triple=True, triple_two_sevens=True, bank_passes_when="EVERY_HAND")
    run.do("1 STAKE 1", "1 STAND", "2 STAKE 1", "2 STAND", "0 HIT")
    assert run.state.hands[0].status is Status.SETTE_E_MEZZO and run.chips == (106, 97, 97)
    assert run.state.bank == 0 and not run.kinds("BANK_PASSED")


@pytest.mark.parametrize(("rule", "paid"), [("S001", -10), ("ENCYCLOPEDIA", -5)])
def test_sm19_a_many_card_sette_e_mezzo_against_a_bank_reale_s001_double_encyclopedia_single(rule, paid):
    run = play(PLAYER_MANY_VS_BANK_REALE, natural_rule=rule)
    assert [(r.seat, r.amount) for r in run.state.results] == [(1, paid), (2, -2 if rule == "S001" else -1)]


@pytest.mark.parametrize(("rule", "paid"), [("S002", -5), ("S000", -5), ("S001", 0), ("ENCYCLOPEDIA", 0)])
def test_sm19_reale_against_reale_with_ties_push_the_bank_wins_only_where_its_reale_beats(rule, paid):
    """S002 and S000 give reale against reale to the bank outright; S001 and ENCYCLOPEDIA call it a tie, which
    pushes when ties push."""
    run = play(BOTH_REALE, natural_rule=rule, ties_push=True)
    assert run.state.results[0].amount == paid


@pytest.mark.parametrize(("deck", "options"), [("7d 6c 5s Rd 4b", {}), ("7d 6c 5s 7c 4b", {"triple_two_sevens": True})])
def test_sm22_a_triple_is_paid_triple_when_the_bank_busts(deck, options):
    run = table(deck, triple=True, **options).do("1 STAKE 2", "1 HIT", "2 STAKE 1", "2 STAND", "0 HIT")
    assert run.state.hands[0].status is Status.BUST
    assert [(r.seat, r.amount) for r in run.state.results] == [(1, 6), (2, 1)] and run.chips == (93, 106, 101)
