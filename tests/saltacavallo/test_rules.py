"""One test (or a few) per rule of RULES.md §2, each on a hand-picked deal."""

from __future__ import annotations

from typing import Any

import pytest

from mazziere import engine
from mazziere.engine import chance
from mazziere.engine.cards import Card
from mazziere.engine.games.saltacavallo import CUCU, NAPOLETANO, Phase, SaltacavalloState
from mazziere.engine.ledger import POT, Transfer
from mazziere.engine.table import Action, Seat
from mazziere.engine.values import field_names
from mazziere.engine.visibility import PUBLIC
from tests.helpers import replace, stacked
from tests.saltacavallo.support import act, deal, kinds, options_of, run, seen, table, with_lives

KEEP = ("KEEP", None)


# -- SC-1 ranks ------------------------------------------------------------------------------------


def test_sc1_rank_order_fante_below_cavallo_and_re() -> None:
    # dealer 0 deals 1, 2, 3, 0: fante, asso, 7, 2: the asso is lowest.
    state = deal(table(4), "Fs Ad 7c 2b").state
    state, _, transfers = run(state, (1, "KEEP"), (2, "KEEP"), (3, "KEEP"), (0, "KEEP"))
    assert state.losers == (2,)
    assert transfers == [Transfer(2, POT, 1, "life")]
    assert state.lives == (3, 3, 2, 3)


def test_sc1_suits_do_not_matter_in_play() -> None:
    state = deal(table(3), "5d 5c 6b").state
    state, _, _ = run(state, (1, "KEEP"), (2, "KEEP"), (0, "KEEP"))
    assert state.losers == (1, 2)


# -- SC-2 seats ------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 21])
def test_sc2_three_to_twenty_seats(n: int) -> None:
    with pytest.raises(engine.Rejected) as err:
        engine.new_table("saltacavallo", [Seat(f"p{i}", 10) for i in range(n)], seed=b"s")
    assert err.value.reason is engine.Reason.INVALID_SEATS


def test_sc2_two_seat_start_with_min_seats_two() -> None:
    out = engine.new_table("saltacavallo", [Seat("a", 3), Seat("b", 3)], seed=b"s", options={"min_seats": 2})
    assert out.state.lives == (3, 3)
    for n in (3, 20):
        engine.new_table("saltacavallo", [Seat(f"p{i}", 3) for i in range(n)], seed=b"s")


def test_sc2_two_players_left_play_on_and_swap_with_the_dealer() -> None:
    state = with_lives(table(4), (2, 0, 0, 1), dealer=3)
    out = deal(state, "4c 6d")  # seat 0, then the dealer 3
    assert [e.seat for e in out.events if e.kind == "CARD_DEALT"] == [0, 3]
    state = out.state
    assert options_of(state, 0) == {KEEP, ("SWAP", 3)}
    state, _, transfers = run(state, (0, "SWAP", 3), (3, "KEEP"))
    assert state.losers == (3,) and state.lives == (2, 0, 0, 0)
    assert state.phase is Phase.OVER and state.winners == (0,)
    assert transfers[-1] == Transfer(POT, 0, 10, "pot")
    assert state.chips == (19, 7, 7, 7) and state.pot == 0


# -- SC-3 lives and coins ----------------------------------------------------------------------------


def test_sc3_each_seat_brings_its_lives_in_coins() -> None:
    seats = [Seat("a", 15), Seat("b", 15), Seat("c", 14)]
    with pytest.raises(engine.Rejected) as err:
        engine.new_table("saltacavallo", seats, seed=b"s", options={"coin": 5})
    assert err.value.reason is engine.Reason.INVALID_SEATS
    state = engine.new_table("saltacavallo", [*seats[:2], Seat("c", 15)], seed=b"s", options={"coin": 5}).state
    assert state.lives == (3, 3, 3)


def test_sc3_a_lost_life_is_a_coin_into_the_pot() -> None:
    state = deal(table(3, coin=5, lives=2), "Ad 5c 6b").state
    state, _, transfers = run(state, (1, "KEEP"), (2, "KEEP"), (0, "KEEP"))
    assert transfers == [Transfer(1, POT, 5, "life")]
    assert state.chips == (10, 5, 10) and state.pot == 5 and state.lives == (2, 1, 2)


# -- SC-4 first dealer -------------------------------------------------------------------------------


def _chooser(n: int, seed: bytes) -> int:
    return chance.randbelow(n, seed, 0)


def test_sc4_second_denari_deals_first() -> None:
    seed = b"first"
    chooser = _chooser(4, seed)
    with stacked("5c 3d Rb 7d 2d"):
        out = engine.new_table("saltacavallo", [Seat(f"p{i}", 10) for i in range(4)], seed=seed)
    cards = [(e.seat, str(e.cards[0].card)) for e in out.events if e.kind == "CHOOSE_CARD"]
    expected = [(chooser + k) % 4 for k in range(1, 5)]
    assert cards == list(zip(expected, ["5c", "3d", "Rb", "7d"], strict=True))
    assert all(e.cards[0].is_face_up for e in out.events if e.kind == "CHOOSE_CARD")
    assert out.state.dealer == (chooser + 4) % 4
    assert out.events[-1].kind == "FIRST_DEALER" and out.events[-1].seat == out.state.dealer
    assert out.state.draws == 2


def test_sc4_due_di_denari_deals_first() -> None:
    seed = b"first"
    chooser = _chooser(5, seed)
    with stacked("5d 3d 2d"):
        out = engine.new_table(
            "saltacavallo", [Seat(f"p{i}", 10) for i in range(5)], seed=seed, options={"first_dealer": "DUE_DI_DENARI"}
        )
    assert out.state.dealer == (chooser + 3) % 5


def test_sc4_re_di_denari_deals_first() -> None:
    seed = b"first"
    chooser = _chooser(3, seed)
    with stacked("Rb Rc 5d 3d Rd"):
        out = engine.new_table(
            "saltacavallo", [Seat(f"p{i}", 10) for i in range(3)], seed=seed, options={"first_dealer": "RE_DI_DENARI"}
        )
    assert out.state.dealer == (chooser + 5) % 3
    assert len([e for e in out.events if e.kind == "CHOOSE_CARD"]) == 5


def test_sc4_random_first_dealer() -> None:
    seed = b"random"
    out = engine.new_table(
        "saltacavallo", [Seat(f"p{i}", 10) for i in range(7)], seed=seed, options={"first_dealer": "RANDOM"}
    )
    assert out.state.dealer == chance.randbelow(7, seed, 0)
    assert out.state.draws == 1 and kinds(out.events) == ["FIRST_DEALER"]


def test_sc4_named_seat_deals_first() -> None:
    state = table(5, dealer=3)
    assert state.dealer == 3 and state.draws == 0
    assert engine.to_act(state) == (3,)
    with pytest.raises(engine.Rejected) as err:
        table(5, dealer=5)
    assert err.value.reason is engine.Reason.INVALID_OPTION


# -- SC-5 shuffle, cut, deal ---------------------------------------------------------------------------


def test_sc5_shuffle_cut_and_deal_from_the_next_seat_dealer_last() -> None:
    state = table(4, dealer=2)
    out = deal(state, "3d 4c 5b 6s")
    assert kinds(out.events)[:2] == ["SHUFFLE", "CUT"]
    cut = next(e for e in out.events if e.kind == "CUT")
    assert cut.seat == 1 and cut.target == 2  # the seat before the dealer cuts
    dealt = [(e.seat, str(e.cards[0].card)) for e in out.events if e.kind == "CARD_DEALT"]
    assert dealt == [(3, "3d"), (0, "4c"), (1, "5b"), (2, "6s")]
    state = out.state
    assert seen(state, 0) == ["4c", None, None, None]
    assert seen(state, 2) == [None, None, "6s", None]
    assert seen(state, None) == [None] * 4
    assert engine.view(state, None).stock_size == 36
    assert engine.to_act(state) == (3,)
    # spectators see the deal events with every card face down
    spectator = engine.visibility.redact(out.events, None)
    assert all(tc.card is None for e in spectator if e.kind == "CARD_DEALT" for tc in e.cards)


def test_sc5_every_hand_reshuffles() -> None:
    state = deal(table(3), "Ad 5c 6b").state
    state, _, _ = run(state, (1, "KEEP"), (2, "KEEP"), (0, "KEEP"))
    out = engine.apply(state, Action(state.dealer, "DEAL"))
    assert "SHUFFLE" in kinds(out.events)
    assert out.state.stock and len(out.state.stock) == 37 and out.state.draws == 2


def test_sc5_continue_plays_the_stock_down() -> None:
    state = table(3, reshuffle="CONTINUE")
    out = deal(state, "Ad 5c 6b 7d 2s 3b 4c")
    assert "SHUFFLE" in kinds(out.events) and len(out.state.stock) == 37
    state, _, _ = run(out.state, (1, "KEEP"), (2, "KEEP"), (0, "DRAW"))  # the dealer draws the 7d
    assert str(state.hand[0].card) == "7d" and len(state.stock) == 36  # type: ignore[union-attr]
    out = engine.apply(state, Action(state.dealer, "DEAL"))  # dealer 1 deals 2, 0, 1 from the stock
    assert "SHUFFLE" not in kinds(out.events) and "CUT" not in kinds(out.events)
    dealt = [(e.seat, str(e.cards[0].card)) for e in out.events if e.kind == "CARD_DEALT"]
    assert dealt == [(2, "2s"), (0, "3b"), (1, "4c")]
    assert out.state.draws == 1 and len(out.state.stock) == 33


def test_sc5_continue_reshuffles_when_the_stock_cannot_cover_a_hand() -> None:
    state = table(3, reshuffle="CONTINUE")
    # the stock below is what is left of a pack shuffled before (a stock is always the rest of a pack kept)
    kept = deal(state, "Ad 2d 3d").state
    state = replace(state, draws=kept.draws, packs=kept.packs)
    short = replace(state, stock=engine.parse_cards("Ad 2d 3d 4d 5d 6d 7d"))  # 3 seats + 5 reserve = 8
    out = engine.apply(short, Action(0, "DEAL"))
    assert "SHUFFLE" in kinds(out.events) and len(out.state.stock) == 37
    enough = replace(state, stock=engine.parse_cards("Ad 2d 3d 4d 5d 6d 7d Fd"))
    out = engine.apply(enough, Action(0, "DEAL"))
    assert "SHUFFLE" not in kinds(out.events) and len(out.state.stock) == 5


# -- SC-6 cavallo and re face up ----------------------------------------------------------------------


def test_sc6_cavallo_and_re_are_turned_up_and_take_no_decision() -> None:
    out = deal(table(4), "Cd 3c Rb 5s")
    state = out.state
    assert seen(state, None) == [None, "Cd", None, "Rb"]
    assert [e.cards[0].is_face_up for e in out.events if e.kind == "CARD_DEALT"] == [True, False, True, False]
    assert engine.to_act(state) == (2,)  # seat 1 (cavallo) is skipped
    state, _, _ = run(state, (2, "KEEP"))  # seat 3 (re) is skipped: the dealer's turn
    assert state.phase is Phase.DEALER and engine.to_act(state) == (0,)


def test_sc6_a_dealt_hand_of_figures_plays_itself() -> None:
    out = deal(table(3), "Cd Rc 5b")  # only the dealer holds a low card and it is his turn at once
    assert out.state.phase is Phase.DEALER
    out = deal(table(3), "Cd Rc Rb")
    assert out.state.phase is Phase.DEAL and out.state.losers == (1,)  # cavallo below re
    assert "HAND_OVER" in kinds(out.events) and out.state.dealer == 1


# -- SC-7 keep or swap ------------------------------------------------------------------------------


def test_sc7_swap_with_the_next_seat_and_who_sees_what() -> None:
    state = deal(table(4), "3d 4c 5b 6s").state
    assert options_of(state, 1) == {KEEP, ("SWAP", 2)}
    out = act(state, 1, "SWAP", 2)
    state = out.state
    assert seen(state, 1) == [None, "4c", "3d", None]
    assert seen(state, 2) == [None, "4c", "3d", None]
    assert seen(state, 3) == [None, None, None, "5b"]
    assert seen(state, None) == [None] * 4
    (event,) = out.events
    assert event.kind == "SWAP" and event.seat == 1 and event.target == 2 and event.seen_by.everyone
    assert [tc.card for tc in engine.visibility.redact(event, 3).cards] == [None, None]
    assert [str(tc.card) for tc in engine.visibility.redact(event, 2).cards] == ["3d", "4c"]
    # seat 2 passes the asso on: seat 1 knows where its card went, seat 3 sees what it got and gave
    state = act(state, 2, "SWAP", 3).state
    assert seen(state, 1) == [None, "4c", None, "3d"]
    assert seen(state, 2) == [None, "4c", "5b", "3d"]
    assert seen(state, 3) == [None, None, "5b", "3d"]
    assert seen(state, 0) == ["6s", None, None, None]
    out = act(state, 3, "SWAP", 0)  # the last seat may swap with the dealer; then all is revealed
    swap = out.events[0]
    assert [str(tc.card) for tc in engine.visibility.redact(swap, 0).cards] == ["3d", "6s"]
    assert [tc.card and str(tc.card) for tc in engine.visibility.redact(swap, 1).cards] == ["3d", None]
    state = out.state
    assert state.phase is Phase.DEALER and seen(state, None) == ["3d", "4c", "5b", "6s"]


def test_sc7_only_the_seat_in_turn_acts_and_may_name_only_its_target() -> None:
    state = deal(table(4), "3d 4c 5b 6s").state
    with pytest.raises(engine.Rejected) as err:
        act(state, 2, "KEEP")
    assert err.value.reason is engine.Reason.NOT_YOUR_TURN
    with pytest.raises(engine.Rejected) as err:
        act(state, 1, "SWAP", 3)
    assert err.value.reason is engine.Reason.ILLEGAL_ACTION


# -- SC-8 king wall, SC-9 horse jump ------------------------------------------------------------------


def test_sc8_king_is_a_wall() -> None:
    state = deal(table(4), "3d Rc 5b 6s").state
    assert options_of(state, 1) == {KEEP}
    with pytest.raises(engine.Rejected):
        act(state, 1, "SWAP", 3)


def test_sc9_horse_jumps_to_the_seat_after_it() -> None:
    state = deal(table(4), "3d Cc 5b 6s").state
    assert options_of(state, 1) == {KEEP, ("SWAP", 3)}
    state = act(state, 1, "SWAP", 3).state
    assert seen(state, 3) == [None, "5b", "Cc", "3d"] and seen(state, 2) == [None, None, "Cc", None]


def test_sc9_horse_jumps_repeat() -> None:
    state = deal(table(6), "3d Cc Cs Cb 5b 6s").state
    assert options_of(state, 1) == {KEEP, ("SWAP", 5)}
    state, _, _ = run(state, (1, "SWAP", 5))
    assert engine.to_act(state) == (5,) and options_of(state, 5) == {KEEP, ("SWAP", 0)}


def test_sc9_king_behind_a_horse_blocks() -> None:
    state = deal(table(5), "3d Cc Rs 5b 6s").state
    assert options_of(state, 1) == {KEEP}


def test_sc9_a_chain_may_end_on_the_dealer() -> None:
    state = deal(table(3), "3d Cc 5b").state
    assert options_of(state, 1) == {KEEP, ("SWAP", 0)}
    state = act(state, 1, "SWAP", 0).state
    assert state.phase is Phase.DEALER and seen(state, None) == ["3d", "5b", "Cc"]


def test_sc9_horse_on_the_dealer_means_no_swap() -> None:
    state = deal(table(3), "3d 5b Cc").state
    assert options_of(state, 1) == {KEEP, ("SWAP", 2)}
    state = act(state, 1, "KEEP").state
    assert options_of(state, 2) == {KEEP}  # the jump would pass the dealer
    state = deal(table(3), "3d Cs Cc").state
    assert options_of(state, 1) == {KEEP}


def test_sc9_dead_seats_are_skipped_when_finding_the_target() -> None:
    state = deal(with_lives(table(4), (3, 3, 0, 3)), "3d 5b 6s").state
    assert options_of(state, 1) == {KEEP, ("SWAP", 3)}


# -- SC-10 the dealer's turn --------------------------------------------------------------------------


def test_sc10_dealer_sees_everything_then_keeps() -> None:
    state = deal(table(3), "5c 6b 3d").state
    state = run(state, (1, "KEEP"), (2, "KEEP"))[0]
    assert state.phase is Phase.DEALER and options_of(state, 0) == {KEEP, ("DRAW", None)}
    assert seen(state, None) == ["3d", "5c", "6b"]
    state, events, _ = run(state, (0, "KEEP"))
    assert state.losers == (0,) and kinds(events)[-2:] == ["HAND_OVER", "NEXT_DEALER"]


def test_sc10_dealer_draws_once() -> None:
    state = deal(table(3), "5c 6b 3d 7s 2c").state
    state, events, _ = run(state, (1, "KEEP"), (2, "KEEP"), (0, "DRAW"))
    assert str(state.hand[0].card) == "7s" and state.losers == (1,)  # type: ignore[union-attr]
    assert [str(e.cards[0].card) for e in events if e.kind == "DRAW"] == ["7s"]
    assert state.phase is Phase.DEAL


def test_sc10_a_dealer_with_a_figure_takes_no_decision() -> None:
    state = deal(table(3), "5c 6b Rd").state
    state, events, _ = run(state, (1, "KEEP"), (2, "KEEP"))
    assert state.phase is Phase.DEAL and state.losers == (1,)
    assert "REVEAL" in kinds(events)


def test_sc10_napoletano_a_drawn_king_or_horse_is_his() -> None:
    state = deal(table(3), "5c 6b 3d Rb").state
    state = run(state, (1, "KEEP"), (2, "KEEP"), (0, "DRAW"))[0]
    assert str(state.hand[0].card) == "Rb" and state.losers == (1,)  # type: ignore[union-attr]
    state = deal(table(3), "5c 6b 3d Cb").state
    state = run(state, (1, "KEEP"), (2, "KEEP"), (0, "DRAW"))[0]
    assert str(state.hand[0].card) == "Cb" and state.losers == (1,)  # type: ignore[union-attr]


def test_sc10_drawn_king_keeps_own() -> None:
    state = deal(table(3, drawn_king_keeps_own=True), "5c 6b 3d Rb").state
    state, events, _ = run(state, (1, "KEEP"), (2, "KEEP"), (0, "DRAW"))
    assert str(state.hand[0].card) == "3d" and state.losers == (0,)  # type: ignore[union-attr]
    assert "DRAW_VOID" in kinds(events) and len(state.stock) == 36


def test_sc10_drawn_horse_draws_again() -> None:
    state = deal(table(3, drawn_horse_draws_again=True), "5c 6b 3d Cb Cs 2s").state
    state, events, _ = run(state, (1, "KEEP"), (2, "KEEP"), (0, "DRAW"))
    assert [str(e.cards[0].card) for e in events if e.kind == "DRAW"] == ["Cb", "Cs", "2s"]
    again = [e for e in events if e.kind == "DRAW_AGAIN"]
    assert [(e.seat, str(e.cards[0].card), e.cards[0].seen_by) for e in again] == [(0, "Cb", PUBLIC), (0, "Cs", PUBLIC)]
    assert str(state.hand[0].card) == "2s" and state.losers == (0,)  # type: ignore[union-attr]
    assert [str(tc.card) for tc in engine.view(state, None).discards] == ["Cb", "Cs", "3d"]  # his own card last


def test_sc10_cucu_horse_then_king_keeps_own() -> None:
    state = deal(table(3, preset="CUCU"), "5c 6b 3d Cb Rs").state
    state, events, _ = run(state, (1, "KEEP"), (2, "KEEP"), (0, "DRAW"))
    assert [k for k in kinds(events) if k.startswith("DRAW")] == ["DRAW", "DRAW_AGAIN", "DRAW", "DRAW_VOID"]
    assert str(state.hand[0].card) == "3d" and state.losers == (0,)  # type: ignore[union-attr]


# -- SC-11 lowest rank -------------------------------------------------------------------------------


def test_sc11_every_seat_with_the_lowest_rank_loses_a_life() -> None:
    state = deal(table(5, coin=2), "2d 7c 2s Fb 2c").state
    state, events, transfers = run(state, (1, "KEEP"), (2, "KEEP"), (3, "KEEP"), (4, "KEEP"), (0, "KEEP"))
    assert state.losers == (0, 1, 3)
    assert transfers == [Transfer(s, POT, 2, "life") for s in (0, 1, 3)]
    assert state.lives == (2, 2, 3, 2, 3) and state.pot == 6
    assert [e.seat for e in events if e.kind == "LIFE_LOST"] == [0, 1, 3]
    assert engine.view(state, None).losers == (0, 1, 3)
    state = deal(state, "Rd Rc Rs Rb 5d").state  # the losers are shown until the next deal
    assert engine.view(state, None).losers == ()


# -- SC-12 dead seats and all-dead hands ----------------------------------------------------------------


def test_sc12_a_dead_seat_gets_no_card() -> None:
    state = with_lives(table(4), (1, 3, 3, 3))
    state = deal(state, "5c 6b 7s Ad").state
    state, events, _ = run(state, (1, "KEEP"), (2, "KEEP"), (3, "KEEP"), (0, "KEEP"))
    assert state.lives == (0, 3, 3, 3) and "DEAD" in kinds(events)
    out = deal(state, "5c 6b 7s")
    assert [e.seat for e in out.events if e.kind == "CARD_DEALT"] == [2, 3, 1]
    assert out.state.hand[0] is None and engine.view(out.state, 0).alive == (False, True, True, True)


def test_sc12_all_dead_hand_replays() -> None:
    state = with_lives(table(3), (1, 1, 0))
    state = deal(state, "5c 5d").state
    state, events, transfers = run(state, (1, "KEEP"), (0, "KEEP"))
    assert kinds(events)[-2:] == ["REPLAY", "HAND_OVER"] and transfers == []
    assert state.lives == (1, 1, 0) and state.dealer == 0 and state.phase is Phase.DEAL
    assert engine.to_act(state) == (0, 2)  # the same dealer deals again; the dead may still revive
    out = deal(state, "Rc Rd")  # two re: no decision at all, and the hand is replayed again
    assert kinds(out.events)[-2:] == ["REPLAY", "HAND_OVER"] and out.state.hands == 2
    assert out.state.lives == (1, 1, 0) and out.state.dealer == 0 and out.state.phase is Phase.DEAL


def test_sc12_a_replayed_hand_after_the_dealers_draw_keeps_the_cards_shown_and_the_stock_drawn() -> None:
    state = with_lives(table(3), (1, 1, 0))
    state = deal(state, "5c 3d 5s").state
    state, events, transfers = run(state, (1, "KEEP"), (0, "DRAW"))
    replay = [(e.kind, e.seat, e.points) for e in events if e.kind in ("REPLAY", "HAND_OVER")]
    assert replay == [("REPLAY", 0, 5), ("HAND_OVER", 0, 5)] and transfers == []
    assert state.turn == -1 and state.losers == () and state.phase is Phase.DEAL
    view = engine.view(state, 2)
    assert view.turn is None and view.losers == () and view.stock_size == 37
    assert [None if tc is None else (str(tc.card), tc.seen_by.everyone) for tc in view.cards] == [
        ("5s", True),
        ("5c", True),
        None,
    ]
    assert [str(tc.card) for tc in view.discards] == ["3d"]


def test_sc12_all_dead_hand_splits_the_pot() -> None:
    state = with_lives(table(3, all_dead_hand="SPLIT_POT"), (1, 1, 0))
    assert state.pot == 7
    state = deal(state, "5c 5d").state
    state, events, transfers = run(state, (1, "KEEP"), (0, "KEEP"))
    assert state.phase is Phase.OVER and state.lives == (0, 0, 0) and state.winners == (0, 1)
    # 9 chips: 4 each and the odd chip to the first sharer after the dealer (seat 1)
    assert transfers[-2:] == [Transfer(POT, 1, 5, "pot share"), Transfer(POT, 0, 4, "pot share")]
    assert state.chips == (11, 12, 7) and state.pot == 0
    assert kinds(events)[-1] == "GAME_OVER" and engine.is_over(state) and engine.to_act(state) == ()


@pytest.mark.parametrize(
    ("lives", "deck", "winners", "shares"),
    [
        ((1, 1, 1, 0), "5c 5d 5s", (0, 1, 2), [(2, 5), (0, 5), (1, 4)]),  # after dealer 1: seats 2, 0, then 1
        ((0, 1, 1, 1), "5c 5d 5s", (1, 2, 3), [(2, 5), (3, 5), (1, 4)]),
    ],
)
def test_sc12_split_pot_odd_chips_go_in_play_order_after_a_dealer_other_than_seat_0(
    lives: tuple[int, ...], deck: str, winners: tuple[int, ...], shares: list[tuple[int, int]]
) -> None:
    state = with_lives(table(4, dealer=1, all_dead_hand="SPLIT_POT"), lives)
    dead = lives.index(0)  # two more chips in the pot, from the dead seat: 14 chips, two odd ones
    chips = tuple(c - 2 if s == dead else c for s, c in enumerate(state.chips))
    state = replace(state, chips=chips, pot=state.pot + 2)
    assert state.pot == 11 and state.dealer == 1
    state = deal(state, deck).state
    turns = [s for s in (2, 3, 0) if lives[s]]
    state, events, transfers = run(state, *((s, "KEEP") for s in turns), (1, "KEEP"))
    assert state.phase is Phase.OVER and state.winners == winners
    assert [(t.payee, t.amount) for t in transfers if t.reason == "pot share"] == shares
    assert [(e.seat, e.amount) for e in events if e.kind == "POT_SHARE"] == shares
    assert sum(state.chips) == 40 and state.pot == 0


@pytest.mark.parametrize(
    ("deck", "winners", "shares"),
    [
        ("5c 7b Ad", (0, 2), [(2, 4), (0, 3)]),  # the dealer (seat 1) holds the ace
        ("Ad 5c 7b", (0, 1), [(0, 4), (1, 3)]),  # seat 2 holds the ace: seat 0 is first after the dealer
    ],
)
def test_sc15_end_at_two_split_odd_chip_follows_the_dealer_not_seat_0(
    deck: str, winners: tuple[int, ...], shares: list[tuple[int, int]]
) -> None:
    state = with_lives(table(3, dealer=1, end_at_two_split=True), (1, 1, 1))
    state = deal(state, deck).state
    state, _, transfers = run(state, (2, "KEEP"), (0, "KEEP"), (1, "KEEP"))
    assert state.phase is Phase.OVER and state.winners == winners
    assert [(t.payee, t.amount) for t in transfers if t.reason == "pot share"] == shares


# -- SC-13 revival -----------------------------------------------------------------------------------


def _after_a_death() -> SaltacavalloState:
    state = with_lives(table(4), (1, 2, 1, 3), dealer=3)
    state = deal(state, "5c 6b Ad 7s").state  # seats 0, 1, 2, then the dealer 3
    state = run(state, (0, "KEEP"), (1, "KEEP"), (2, "KEEP"), (3, "KEEP"))[0]
    assert state.lives == (1, 2, 0, 3) and state.dealer == 0
    return state


def test_sc13_revival_by_the_givers_last_life() -> None:
    state = _after_a_death()
    assert engine.to_act(state) == (0, 2)
    assert options_of(state, 2) == {("REVIVE", 0), ("REVIVE", 1), ("REVIVE", 3)}
    out = act(state, 2, "REVIVE", 1)
    assert out.settlement == (Transfer(1, 2, 1, "revival"),)
    state = out.state
    assert state.lives == (1, 1, 1, 3) and state.chips[2] == state.chips[1] == 8
    out = act(_after_a_death(), 2, "REVIVE", 0)  # the giver's last life: the giver dies, and deals no more
    state = out.state
    assert state.lives == (0, 2, 1, 3) and kinds(out.events) == ["REVIVE", "DEAD", "NEXT_DEALER"]
    assert [(e.seat, e.target, e.amount) for e in out.events] == [(2, 0, 1), (0, None, 0), (1, None, 0)]
    assert state.dealer == 1
    assert options_of(state, 0) == {("REVIVE", 1), ("REVIVE", 3)}  # not the seat revived just now
    assert options_of(state, 2) == set()
    out = deal(state, "5c 6b Ad")
    assert [e.seat for e in out.events if e.kind == "CARD_DEALT"] == [2, 3, 1]
    assert out.state.revived == ()


def test_sc13_revival_dealer_exempt() -> None:
    state = replace(_after_a_death(), rules=replace(NAPOLETANO, revival_dealer_exempt=True))
    assert options_of(state, 2) == {("REVIVE", 1), ("REVIVE", 3)}


def test_sc13_no_revival_in_cucu_or_during_a_hand() -> None:
    state = replace(_after_a_death(), rules=CUCU)
    assert options_of(state, 2) == set() and engine.to_act(state) == (0,)
    state = deal(_after_a_death(), "5c 6b Ad").state
    assert options_of(state, 2) == set()


# -- SC-14 the deal passes ---------------------------------------------------------------------------


def test_sc14_the_deal_passes_to_the_next_living_seat() -> None:
    state = with_lives(table(4, dealer=1), (3, 3, 0, 3))
    out = deal(state, "5c 6b 7s")
    assert [e.seat for e in out.events if e.kind == "CUT"] == [0]
    state = run(out.state, (3, "KEEP"), (0, "KEEP"), (1, "KEEP"))[0]
    assert state.dealer == 3 and engine.to_act(state) == (2, 3)
    with pytest.raises(engine.Rejected) as err:
        act(state, 1, "DEAL")
    assert err.value.reason is engine.Reason.NOT_YOUR_TURN


# -- SC-15 the end -----------------------------------------------------------------------------------


def test_sc15_the_last_seat_takes_the_pot() -> None:
    state = with_lives(table(3), (1, 1, 1))
    state = deal(state, "Ad Ac Fd").state
    state, events, _ = run(state, (1, "KEEP"), (2, "KEEP"), (0, "KEEP"))
    assert state.lives == (1, 0, 0) and state.losers == (1, 2)
    assert state.phase is Phase.OVER and state.winners == (0,)
    assert kinds(events)[-3:] == ["HAND_OVER", "POT_WON", "GAME_OVER"]
    assert state.chips == (16, 7, 7) and state.pot == 0


def test_sc15_end_at_two_split() -> None:
    state = with_lives(table(3, end_at_two_split=True), (1, 1, 1))
    state = deal(state, "Ad 5c 7b").state
    state, events, transfers = run(state, (1, "KEEP"), (2, "KEEP"), (0, "KEEP"))
    assert state.phase is Phase.OVER and state.winners == (0, 2)
    # 7 chips: the odd chip to seat 2, the first of the two after the dealer
    assert transfers[-2:] == [Transfer(POT, 2, 4, "pot share"), Transfer(POT, 0, 3, "pot share")]
    assert state.chips == (11, 7, 12) and kinds(events)[-1] == "GAME_OVER"


def test_sc15_without_split_two_seats_play_on() -> None:
    state = with_lives(table(3), (1, 1, 1))
    state = deal(state, "Ad 5c 7b").state
    state = run(state, (1, "KEEP"), (2, "KEEP"), (0, "KEEP"))[0]
    assert state.phase is Phase.DEAL and state.dealer == 2


def test_sc15_no_action_after_the_end() -> None:
    state = with_lives(table(3), (1, 1, 1))
    state = run(deal(state, "Ad Ac Fd").state, (1, "KEEP"), (2, "KEEP"), (0, "KEEP"))[0]
    with pytest.raises(engine.Rejected) as err:
        act(state, 0, "DEAL")
    assert err.value.reason is engine.Reason.GAME_OVER


# -- views and the whole game -------------------------------------------------------------------------


def test_view_holds_public_facts_only() -> None:
    state = deal(table(4), "3d Cc 5b 6s").state
    view = engine.view(state, 1)
    names = set(field_names(type(view)))
    assert not names & {"seed", "stock", "draws"}
    assert view.stock_size == 36 and view.turn == 1 and view.dealer == 0 and view.phase is Phase.PLAY
    assert view.lives == (3, 3, 3, 3) and view.alive == (True,) * 4
    assert [None if tc is None else tc.card for tc in view.cards][1:3] == [Card.parse("3d"), Card.parse("Cc")]


def test_a_whole_game_ends_with_one_winner_and_conserves_chips() -> None:
    import random

    from tests.helpers import random_step

    state = engine.new_table("saltacavallo", [Seat(f"p{i}", 10) for i in range(6)], seed=b"whole").state
    rng = random.Random(7)
    while not engine.is_over(state):
        state = engine.apply(state, random_step(state, rng)).state
    assert sum(state.chips) == 60 and state.pot == 0
    assert len(state.winners) == 1 and state.chips[state.winners[0]] > 10 - 3


def test_sc7_the_view_names_seat_0_in_turn() -> None:
    state = deal(table(3, dealer=2), "5c 6b 7s").state
    assert state.turn == 0 and engine.view(state, 1).turn == 0 and engine.view(state, None).turn == 0


def test_sc2_sc3_sc4_a_table_refused_says_why() -> None:
    def refused(seats: list[Seat], **options: Any) -> str:
        with pytest.raises(engine.Rejected) as err:
            engine.new_table("saltacavallo", seats, seed=b"s", options=options)
        return err.value.message

    assert refused([Seat("a", 9), Seat("b", 9)]) == "saltacavallo starts with 3..20 seats, not 2"
    assert (
        refused([Seat("a", 9), Seat("b", 9), Seat("c", 8)], coin=3) == "seat 2 ('c') has 8 chips; 3 lives of 3 need 9"
    )
    assert (
        refused([Seat("a", 9)] * 3, first_dealer="SEAT", first_dealer_seat=3)
        == "first_dealer_seat 3 is not at this 3-seat table"
    )


@pytest.mark.parametrize(
    ("method", "deck", "draws"),
    [
        ("SECOND_DENARI", "5d 2d", 2),
        ("DUE_DI_DENARI", "2d", 2),
        ("RE_DI_DENARI", "Rd", 2),
        ("RANDOM", "", 1),
        ("SEAT", "", 0),
    ],
)
def test_sc4_each_way_of_choosing_the_dealer_uses_its_draws(method: str, deck: str, draws: int) -> None:
    with stacked(deck):
        state = engine.new_table(
            "saltacavallo", [Seat(f"p{i}", 9) for i in range(3)], seed=b"s", options={"first_dealer": method}
        ).state
    assert state.draws == draws


def test_sc10_at_the_dealers_turn_only_the_dealer_acts_and_the_view_names_nobody_in_turn() -> None:
    state = deal(table(3), "5c 6b 3d").state
    state = run(state, (1, "KEEP"), (2, "KEEP"))[0]
    assert state.phase is Phase.DEALER and engine.to_act(state) == (0,)
    assert engine.legal_actions(state, 1) == () and engine.legal_actions(state, 2) == ()
    assert engine.view(state, 1).turn is None and engine.view(state, None).turn is None


def test_sc12_a_split_pot_ends_the_game_with_no_single_winner() -> None:
    state = with_lives(table(3, all_dead_hand="SPLIT_POT"), (1, 1, 0))
    state = deal(state, "5c 5d").state
    events = run(state, (1, "KEEP"), (0, "KEEP"))[1]
    over = [e for e in events if e.kind == "GAME_OVER"]
    assert [(e.seat, e.amount) for e in over] == [(None, 9)]


def test_sc6_sc10_with_every_player_safe_the_dealer_draws_from_the_stock_left_by_the_deal() -> None:
    out = deal(table(3), "Cc Rb 3d 6s")  # seats 1 and 2 are safe at once: the dealer's turn comes straight away
    state = out.state
    assert state.phase is Phase.DEALER and engine.view(state, None).stock_size == 37
    state, events, _ = run(state, (0, "DRAW"))
    assert [str(e.cards[0].card) for e in events if e.kind == "DRAW"] == ["6s"]
