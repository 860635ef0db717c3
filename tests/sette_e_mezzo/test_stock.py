"""SM-17 (bank passing), SM-18 (the stock), SM-20 (burning), SM-21 (ace as ½)."""

from __future__ import annotations

import engine
from engine.cards import parse_cards
from engine.games.sette_e_mezzo.state import Status
from engine.visibility import NOBODY, PUBLIC, TableCard, only
from tests.helpers import replace
from tests.sette_e_mezzo.table import deal, table


def with_stock(run, stock: str, discards: str = ""):
    pile = tuple(TableCard(c, NOBODY) for c in parse_cards(discards))
    run.state = replace(run.state, stock=parse_cards(stock), discards=pile)
    return run


def test_sm17_deck_exhausted_mid_hand_reshuffles_the_discards_and_passes_the_bank():
    run = with_stock(table("5d 6c", seats=2), "Fc", "2b 3b")
    run.do("1 STAKE 1", "1 HIT", "1 STAND", "0 HIT")
    assert run.kinds("SHUFFLED")[-1].amount == 2  # only the discards: the cards on the table stay
    assert run.state.hands[0].status is Status.BUST
    passed = run.kinds("BANK_PASSED")[0]
    assert (passed.seat, passed.target) == (0, 1) and run.state.fresh
    deal(run, "Ad 2d")
    assert run.kinds("SHUFFLED")[-1].amount == 40 and [e.seat for e in run.kinds("DEALT")[-2:]] == [0, 1]


def test_sm17_deck_exhausted_when_the_stock_cannot_deal_the_next_hand():
    run = with_stock(table("5d 6c", seats=2), "Fc")
    run.do("1 STAKE 1", "1 STAND", "0 STAND")
    assert run.state.bank == 1
    run = with_stock(table("5d 6c", seats=2), "Fc 2c")
    run.do("1 STAKE 1", "1 STAND", "0 STAND")
    assert run.state.bank == 0


def test_sm17_every_hand_passes_to_the_next_seat_that_can_stake():
    run = table("5d 6c 5s", bank_passes_when="EVERY_HAND").do("1 STAKE 1", "1 STAND", "2 STAKE 1", "2 STAND", "0 STAND")
    assert run.state.bank == 1
    run = table("6c 5s", chips=[100, 0, 100], bank_passes_when="EVERY_HAND")
    run.do("2 STAKE 1", "2 STAND", "0 STAND")
    assert run.state.bank == 2


def test_sm17_never_keeps_the_bank_when_the_deck_runs_out():
    run = with_stock(table("5d 6c", seats=2, bank_passes_when="NEVER"), "Fc")
    run.do("1 STAKE 1", "1 STAND", "0 STAND")
    assert run.state.bank == 0 and not run.state.fresh
    run.do("0 DEAL")
    assert run.kinds("SHUFFLED")[-1].amount == 3  # the stock and the discards, not a fresh pack


def test_sm18_continue_plays_the_stock_down_across_hands():
    run = table("5d 6c 5s 2b 3b 4b").do("1 STAKE 1", "1 STAND", "2 STAKE 1", "2 STAND", "0 STAND")
    draws = run.state.draws
    run.do("0 DEAL")
    assert not run.kinds("SHUFFLED")[1:] and run.state.draws == draws
    assert [str(h.cards[0].card) for h in run.state.hands] == ["4b", "2b", "3b"]
    assert run.state.results == () and len(run.state.discards) == 3


def test_sm18_every_hand_shuffles_a_fresh_pack():
    run = table("5d 6c 5s", reshuffle="EVERY_HAND").do("1 STAKE 1", "1 STAND", "2 STAKE 1", "2 STAND", "0 STAND")
    deal(run, "Ad 2d 3d")
    assert len(run.kinds("SHUFFLED")) == 2 and run.state.discards == ()
    assert [str(h.cards[0].card) for h in run.state.hands] == ["3d", "Ad", "2d"]


def test_sm18_on_matta_shuffles_after_the_matta_shows_bank_unchanged():
    hand = ("1 STAKE 1", "1 HIT", "2 STAKE 1", "2 STAND", "0 STAND")
    run = table("Rd 6c 5s Fc", reshuffle="ON_MATTA", bank_passes_on_reale=False).do(*hand)
    assert run.state.matta_shown and run.state.fresh and run.state.bank == 0
    deal(run, "Ad 2d 3d")
    assert len(run.kinds("SHUFFLED")) == 2
    quiet = table("Rd 6c 5s", reshuffle="ON_MATTA").do("1 STAKE 1", "1 STAND", "2 STAKE 1", "2 STAND", "0 STAND")
    assert quiet.state.matta_shown and quiet.state.fresh  # shown at the showdown
    hidden = table("5d Rc 5s 6b 2b", reshuffle="ON_MATTA", matta_card="Rc").do("1 STAKE 1", "1 STAND", "2 STAKE 1")
    hidden.do("2 HIT", "2 HIT")  # busts with the matta kept hidden
    assert hidden.state.hands[2].status is Status.BUST
    hidden.do("0 STAND")
    assert not hidden.state.fresh


def test_sm18_a_reale_hands_the_stock_unchanged_to_the_new_bank():
    run = table("7d 6c 5s Fc 2b 3b 4b").do("1 STAKE 5", "1 HIT", "2 STAKE 2", "2 STAND", "0 STAND")
    assert run.state.bank == 1
    run.do("1 DEAL")
    assert not run.kinds("SHUFFLED")[1:]
    assert [str(h.cards[0].card) for h in run.state.hands] == ["3b", "4b", "2b"]


def test_sm20_burn_first_card_once_replacement_face_down():
    run = table("3d 6c 5s 4c", preset="NAPOLETANO")
    assert run.legal(1) == {"STAKE": (1, 10), "BURN": (0, 0)}
    run.do("1 BURN")
    burned, replaced = run.kinds("BURNED")[0], run.kinds("REPLACED")[0]
    assert burned.cards[0] == TableCard(parse_cards("3d")[0], PUBLIC)
    assert replaced.cards[0] == TableCard(parse_cards("4c")[0], only(1))
    assert run.legal(1) == {"STAKE": (1, 10)}  # burn_limit 1
    assert engine.view(run.state, 2).seats[1].burned == (burned.cards[0],)
    run.do("1 STAKE 1", "1 STAND", "2 STAKE 1", "2 STAND", "0 STAND")
    run.do("0 DEAL")
    assert len(run.state.discards) == 4  # the burned card too


def test_sm20_burn_any_card_replacement_face_up():
    run = table("2d 6c 7s 4c Fc", burn_ranks=[3, 4], burn_when="ANY_CARD").do("1 STAKE 1", "1 HIT")
    assert "BURN" in run.legal(1)
    run.do("1 BURN")
    assert run.state.hands[1].cards[-1] == TableCard(parse_cards("Fc")[0], PUBLIC) and run.points(1) == 5


def test_sm20_a_burned_called_card_replaced_by_a_bust_busts():
    run = table("2d 6c 7s 4c 7b", burn_ranks=[4], burn_when="ANY_CARD").do("1 STAKE 3", "1 HIT", "1 BURN")
    assert run.state.hands[1].status is Status.BUST and run.chips == (103, 97, 100)


def test_sm20_first_card_only_and_never_the_bank_nor_the_matta():
    run = table("2d 6c 4s 3c", burn_ranks=[3, 4]).do("1 STAKE 1", "1 HIT")
    assert "BURN" not in run.legal(1)
    run.do("1 STAND", "2 STAKE 1", "2 STAND")
    assert run.legal(0) == {"HIT": (0, 0), "STAND": (0, 0)}
    matta = table("3d 6c 4s", burn_ranks=[3], matta_card="3d")
    assert "BURN" not in matta.legal(1)


def test_sm20_unlimited_burns():
    run = table("3d 6c 5s 4c 3b 2b", burn_ranks=[3, 4], burn_limit=0)
    run.do("1 BURN", "1 BURN", "1 BURN")
    assert len(run.state.hands[1].burned) == 3 and str(run.state.hands[1].cards[0].card) == "2b"
    assert run.legal(1) == {"STAKE": (1, 10)}


def test_sm21_ace_as_first_card_counts_half_when_better():
    run = table("Ad 6c 5s 7c", ace_half_first=True).do("1 STAKE 2", "1 HIT")
    assert run.points(1) == 15 and run.state.hands[1].status is Status.SETTE_E_MEZZO
    run.do("2 STAKE 1", "2 STAND", "0 STAND")
    assert run.chips[1] == 104  # a two-card 7½: a reale
    plain = table("Ad 6c 5s 7c").do("1 STAKE 2", "1 HIT")
    assert plain.state.hands[1].status is Status.BUST
    late = table("7d 6c 5s Ac", ace_half_first=True).do("1 STAKE 2", "1 HIT")
    assert late.state.hands[1].status is Status.BUST
