"""SM-17 (bank passing), SM-18 (the stock), SM-20 (burning), SM-21 (ace as ½)."""

from __future__ import annotations

import pytest

from mazziere import engine
from mazziere.engine.cards import parse_cards
from mazziere.engine.games.sette_e_mezzo.state import Status
from mazziere.engine.visibility import NOBODY, PUBLIC, TableCard, only
from tests.helpers import replace, stacked
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


def test_sm17_the_next_bank_may_hold_exactly_the_least_stake():
    run = table("5d 5c", seats=2, chips=[100, 2], min_stake=2, ties_push=True, bank_passes_when="EVERY_HAND")
    run.do("1 STAKE 2", "1 STAND", "0 STAND")  # a push: seat 1 keeps 2 chips, the least stake
    assert run.chips == (100, 2) and run.state.bank == 1


def test_sm17_never_keeps_the_bank_when_the_deck_runs_out():
    run = with_stock(table("5d 6c", seats=2, bank_passes_when="NEVER"), "Fc")
    run.do("1 STAKE 1", "1 STAND", "0 STAND")
    assert run.state.bank == 0 and not run.state.fresh
    draws = run.state.draws
    run.do("0 DEAL")
    assert run.kinds("SHUFFLED")[-1].amount == 3  # the stock and the discards, not a fresh pack
    assert run.state.draws == draws + 1 and engine.view(run.state, None).discard_size == 0


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
    assert run.state.hands[1].status is Status.WAITING and run.points(1) == 8  # the replacement's value
    assert engine.view(run.state, 2).seats[1].burned == (burned.cards[0],)
    run.do("1 STAKE 1", "1 STAND", "2 STAKE 1", "2 STAND", "0 STAND")
    run.do("0 DEAL")
    assert len(run.state.discards) == 4  # the burned card too


def test_sm20_burn_any_card_replacement_face_up():
    run = table("2d 6c 7s 4c Fc", burn_ranks=[3, 4], burn_when="ANY_CARD").do("1 STAKE 1", "1 HIT")
    assert "BURN" in run.legal(1)
    run.do("1 BURN")
    assert run.state.hands[1].cards[-1] == TableCard(parse_cards("Fc")[0], PUBLIC) and run.points(1) == 5
    assert run.state.hands[1].status is Status.PLAYING and run.legal(1) == {"HIT": (0, 0), "STAND": (0, 0)}


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


def test_sm17_the_stock_running_out_mid_hand_passes_the_bank_even_when_the_discards_refill_it():
    """The discards refill the stock with plenty for the next deal: only the stock having run out passes the bank."""
    run = with_stock(table("5d 6c", seats=2), "Fc", "Cb 2b 3b 4b 5b 6b")
    run.do("1 STAKE 1", "1 HIT", "1 STAND")
    with stacked("Cb"):
        run.do("0 HIT")
    assert run.kinds("SHUFFLED")[-1].amount == 6 and len(run.state.stock) == 5
    run.do("0 STAND")
    passed = run.kinds("BANK_PASSED")[0]
    assert (passed.seat, passed.target) == (0, 1) and run.state.bank == 1 and run.state.fresh


@pytest.mark.parametrize("reshuffle", ["EVERY_HAND", "ON_MATTA"])
def test_sm17_sm18_a_short_stock_does_not_pass_the_bank_when_the_next_hand_has_a_fresh_pack(reshuffle):
    """DECK_EXHAUSTED counts the stock the next hand is dealt from: with a fresh pack coming (every hand, or after
    the matta showed) the leftover stock never runs out, so the bank stays."""
    run = with_stock(table("Rd 6c", seats=2, reshuffle=reshuffle), "Fc")
    run.do("1 STAKE 1", "1 STAND", "0 STAND")  # the bank's matta shows: ON_MATTA shuffles afresh
    assert run.state.bank == 0 and not run.kinds("BANK_PASSED") and run.state.fresh
    deal(run, "Ad 2d")
    assert run.kinds("SHUFFLED")[-1].amount == 40 and [e.seat for e in run.kinds("DEALT")[-2:]] == [1, 0]


def test_sm17_sm18_on_matta_without_the_matta_a_short_stock_passes_the_bank():
    run = with_stock(table("5d 6c", seats=2, reshuffle="ON_MATTA"), "Fc")
    run.do("1 STAKE 1", "1 STAND", "0 STAND")
    assert run.state.bank == 1 and run.state.fresh


def test_sm17_sm18_a_fresh_pack_does_not_save_the_bank_when_the_stock_ran_out_mid_hand():
    run = with_stock(table("5d 6c", seats=2, reshuffle="EVERY_HAND"), "Fc", "Cb 2b 3b 4b 5b 6b")
    run.do("1 STAKE 1", "1 HIT", "1 STAND")
    with stacked("Cb"):
        run.do("0 HIT", "0 STAND")
    assert run.state.bank == 1


def test_sm20_any_card_a_called_burn_rank_that_busts_is_settled_at_once_never_burned():
    """S002: a bust is declared at once and the called card goes to the bank with the stake (rules page)."""
    run = table("6d 6c 5s 4c", burn_ranks=[3, 4], burn_when="ANY_CARD").do("1 STAKE 3", "1 HIT")
    assert run.state.hands[1].status is Status.BUST and run.kinds("BUST")[0].amount == 3
    assert run.chips == (103, 97, 100) and run.state.turn == 2 and "BURN" not in run.legal(2)
    kept = table("2d 6c 5s 4c", burn_ranks=[3, 4], burn_when="ANY_CARD").do("1 STAKE 3", "1 HIT")
    assert "BURN" in kept.legal(1) and kept.points(1) == 12  # the same 4 without a bust may be burned


def test_sm17_the_next_deal_counts_every_player_who_can_stake_and_the_bank():
    run = with_stock(table("5d 6c 5s"), "Fc 2c")  # three seats need three cards; two are left
    run.do("1 STAKE 1", "1 STAND", "2 STAKE 1", "2 STAND", "0 STAND")
    assert run.state.bank == 1 and run.state.fresh
    run = with_stock(table("5d 6c 5s"), "Fc 2c 3c")
    run.do("1 STAKE 1", "1 STAND", "2 STAKE 1", "2 STAND", "0 STAND")
    assert run.state.bank == 0 and not run.state.fresh


def test_sm17_a_player_left_with_exactly_the_least_stake_needs_a_card_in_the_next_deal():
    run = with_stock(table("5d 5c", seats=2, chips=[100, 2], min_stake=2, ties_push=True), "Fc")
    run.do("1 STAKE 2", "1 STAND", "0 STAND")  # a push: two seats, one card left
    assert run.chips == (100, 2) and run.state.bank == 1


def test_sm18_sm20_with_no_card_anywhere_the_bank_may_only_stand_and_nobody_burns():
    run = with_stock(table("3d 6c", seats=2, burn_ranks=[3]), "")
    assert run.legal(1) == {"STAKE": (1, 10)}  # a 3, but no card to replace it
    run.do("1 STAKE 1")
    assert run.legal(1) == {"STAND": (0, 0)}
    run.do("1 STAND")
    assert run.legal(0) == {"STAND": (0, 0)}


def test_sm18_a_stock_of_exactly_one_card_per_seat_deals_the_next_hand_unshuffled():
    run = with_stock(table("5d 6c 5s"), "Ac 2c 3c", "4b 5b")
    run.do("1 STAKE 1", "1 STAND", "2 STAKE 1", "2 STAND", "0 STAND")
    assert run.state.bank == 0 and not run.state.fresh
    shuffles = len(run.kinds("SHUFFLED"))
    run.do("0 DEAL")
    assert len(run.kinds("SHUFFLED")) == shuffles and run.state.stock == ()
    assert [str(h.cards[0].card) for h in run.state.hands] == ["3c", "Ac", "2c"]


def test_sm18_on_matta_a_matta_drawn_face_up_calls_for_a_fresh_pack():
    run = table("Fd 6c 5s Rd", reshuffle="ON_MATTA", bank_passes_on_reale=False)
    run.do("1 STAKE 1", "1 HIT")  # a fante and the matta face up: 7½
    assert run.state.matta_shown
    run.do("2 STAKE 1", "2 STAND", "0 STAND")
    assert run.state.fresh and run.state.bank == 0
