"""Rule tests named after RULES.md §3 (TR-1..TR-14), each on a hand-picked deal."""

from __future__ import annotations

import pytest

from mazziere import engine
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.games.trentuno.hands import HandKind
from mazziere.engine.games.trentuno.rules import TrentunoRules
from mazziere.engine.games.trentuno.state import Closing, Ending, Phase
from mazziere.engine.ledger import POT, Transfer
from mazziere.engine.table import Action, Seat
from mazziere.engine.visibility import PUBLIC, only, redact
from tests.helpers import replace
from tests.trentuno.table import act, deal, hand_text, kinds, new, widow_text

LOW = {0: "7H 8D 9S", 1: "7D 8S 9C", 2: "7S 8C 9H"}  # no ace anywhere: nobody can reach Trentuno
LOW_WIDOW = "TH TD 8H"


def test_tr2_ten_players_refused() -> None:
    with pytest.raises(Rejected) as err:
        engine.new_table("trentuno", [Seat(f"p{i}", 10) for i in range(10)], seed=b"s")
    assert err.value.reason is Reason.INVALID_SEATS
    assert "33 cards" in err.value.message and "9 hands" in err.value.message


def test_tr2_fewer_than_three_refused() -> None:
    with pytest.raises(Rejected) as err:
        engine.new_table("trentuno", [Seat("a", 10), Seat("b", 10)], seed=b"s")
    assert err.value.reason is Reason.INVALID_SEATS
    assert "3 to 9" in err.value.message


def test_tr2_nine_players_deal_the_whole_pack() -> None:
    state = new(9)
    out = engine.apply(state, Action(0, "DEAL"))
    assert len(out.state.stock) == 32 - 30
    assert engine.view(out.state, 0).stock_size == 2


def test_tr3_antes_go_into_the_pot() -> None:
    state = new(4, ante=5)
    out = deal(state, {0: "7H 8D 9S", 1: "7D 8S 9C", 2: "7S 8C 9H", 3: "7C 8H 9D"}, LOW_WIDOW)
    assert set(out.settlement) == {Transfer(s, POT, 5, "ante") for s in range(4)}
    assert out.state.pot == 20 and out.state.chips == (95, 95, 95, 95)


def test_tr3_three_way_tie_odd_pot_remainder_stays() -> None:
    state = new(4)
    hands = {0: "KH QH 7C", 1: "KD QD 7S", 2: "KS QS 7H", 3: "8C 9D TH"}
    state = deal(state, hands, "7D 8H 9C").state
    assert state.pot == 4 and state.turn == 1
    state = act(state, 1, "STOP").state
    for seat in (2, 3):
        state = act(state, seat, "PASS").state
    out = act(state, 0, "PASS")
    assert "HAND_OVER" in kinds(out)
    assert out.state.result.ending is Ending.SHOWDOWN
    assert out.state.result.winners == (1, 2, 0)
    assert set(out.settlement) == {Transfer(POT, s, 1, "pot") for s in (0, 1, 2)}
    assert out.state.pot == 1 and out.state.result.carried == 1
    assert out.state.chips == (100, 100, 100, 99)
    again = engine.apply(out.state, Action(1, "DEAL")).state
    assert again.pot == 1 + 4  # the odd chip plays in the next deal


def test_tr4_deal_order_widow_and_visibility() -> None:
    state = new(3, dealer=1)
    out = deal(state, {0: "7H 8D 9S", 1: "7D 8S 9C", 2: "7S 8C 9H"}, LOW_WIDOW)
    s = out.state
    assert hand_text(s, 2) == "7S 8C 9H" and widow_text(s) == "TH TD 8H"
    assert all(tc.seen_by == only(seat) for seat in range(3) for tc in s.hands[seat])
    assert all(tc.seen_by == PUBLIC for tc in s.widow)
    assert len(s.stock) == 32 - 12 and s.turn == 2  # play starts on the dealer's left
    view = engine.view(s, 0)
    assert [tc.card for tc in view.hands[1]] == [None, None, None]
    assert [str(tc.card) for tc in view.hands[0]] == ["7H", "8D", "9S"]
    assert view.to_act == 2 and not view.last_round
    assert not hasattr(view, "stock") and not hasattr(view, "seed")
    spectator = engine.view(s, None)
    assert all(tc.card is None for hand in spectator.hands for tc in hand)
    hand_events = [e for e in out.events if e.kind == "HAND"]
    assert [e.seat for e in hand_events] == [2, 0, 1]  # dealt from the dealer's left, the dealer last
    seen_by_0 = [e for e in redact(out.events, 0) if e.kind == "HAND"]
    assert [tc.card is None for e in seen_by_0 for tc in e.cards] == [True] * 3 + [False] * 3 + [True] * 3


def test_tr6_widow_trentuno_goes_to_dealer() -> None:
    state = new(3, dealer=2)
    out = deal(state, {0: "AS KS QS", 1: "7D 8S 9C", 2: "7S 8C 9H"}, "AH JH TH")
    s = out.state
    assert kinds(out)[-1] == "DEALER"
    assert s.result.ending is Ending.WIDOW_TRENTUNO
    assert s.result.winners == (2,)  # the dealer, although seat 0 holds a better Trentuno
    assert Transfer(POT, 2, 3, "pot") in out.settlement
    assert s.chips == (99, 99, 102) and s.pot == 0
    assert hand_text(s, 2) == "AH JH TH" and widow_text(s) == "7S 8C 9H"
    assert s.phase is Phase.WAITING and s.dealer == 0  # TR-13
    assert all(tc.seen_by == PUBLIC for hand in s.hands for tc in hand)  # revealed


def test_tr7_dealt_trentuno_wins_at_once() -> None:
    out = deal(new(3), {0: "7H 8D 9S", 1: "AD QD TD", 2: "7S 8C 9H"}, LOW_WIDOW)
    assert out.state.result.ending is Ending.DEALT_TRENTUNO
    assert out.state.result.winners == (1,)
    assert out.state.chips == (99, 102, 99)


def test_tr7_two_dealt_trentuno_highest_wins() -> None:
    out = deal(new(3), {0: "AH KH JH", 1: "AD KD QD", 2: "7S 8C 9H"}, LOW_WIDOW)
    assert out.state.result.winners == (1,)
    assert out.state.chips == (99, 102, 99)


def test_tr7_two_identical_dealt_trentuno_split() -> None:
    out = deal(new(3), {0: "AH KH QH", 1: "AD KD QD", 2: "7S 8C 9H"}, LOW_WIDOW)
    assert out.state.result.winners == (1, 0)
    assert out.state.chips == (100, 100, 99) and out.state.pot == 1  # 3 chips: 1 each, 1 stays


def test_tr8_tris_beats_joker_tris_at_showdown() -> None:
    state = deal(new(3), {0: "9H 9D 9S", 1: "AH AD JC", 2: "7S 8C 9C"}, LOW_WIDOW).state
    for seat, kind in ((1, "STOP"), (2, "PASS"), (0, "PASS")):
        out = act(state, seat, kind)
        state = out.state
    assert state.result.winners == (0,)
    assert state.result.points == (61, 61, 34)  # 8-9 of clubs: 17


@pytest.mark.parametrize(("tris_by_points", "winner"), [(False, 1), (True, 0)])
def test_tr8_tris_by_points(tris_by_points: bool, winner: int) -> None:
    state = new(3, tris_by_points=tris_by_points)
    state = deal(state, {0: "KH QD JS", 1: "AC KC 9C", 2: "7S 8C 9H"}, "7H 8D 8S").state
    for seat, kind in ((1, "STOP"), (2, "PASS"), (0, "PASS")):
        state = act(state, seat, kind).state
    assert state.result.winners == (winner,)
    assert state.chips[winner] == 102


def test_tr9_exchange_take_all_and_stop() -> None:
    state = deal(new(3), LOW, LOW_WIDOW).state
    legal = engine.legal_actions(state, 1)
    assert {e.kind for e in legal} == {"EXCHANGE", "TAKE_ALL", "STOP"}
    assert sum(e.kind == "EXCHANGE" for e in legal) == 9
    assert engine.legal_actions(state, 0) == () and engine.to_act(state) == (1,)
    out = act(state, 1, "EXCHANGE", "8S TD")
    s = out.state
    assert hand_text(s, 1) == "7D TD 9C" and widow_text(s) == "TH 8S 8H"
    assert s.hands[1][1].seen_by == only(1) and s.widow[1].seen_by == PUBLIC
    assert [str(tc.card) for tc in out.events[0].cards] == ["8S", "TD"]
    out = act(s, 2, "TAKE_ALL")
    s = out.state
    assert hand_text(s, 2) == "TH 8S 8H" and widow_text(s) == "7S 8C 9H"
    assert s.closing is Closing.TAKE_ALL and s.stopper == 2 and s.last_left == (0, 1)
    with pytest.raises(Rejected) as err:
        act(s, 0, "STOP")
    assert err.value.reason is Reason.ILLEGAL_ACTION
    with pytest.raises(Rejected):
        act(s, 0, "EXCHANGE", "7H AS")  # not a widow card


def test_tr9_exchange_cards_not_held_refused() -> None:
    state = deal(new(3), LOW, LOW_WIDOW).state
    with pytest.raises(Rejected) as err:
        act(state, 1, "EXCHANGE", "7H TD")  # seat 0's card
    assert err.value.reason is Reason.ILLEGAL_ACTION


def test_tr10_trentuno_by_exchange_wins_at_once() -> None:
    state = deal(new(3), {0: "7H 8D 9S", 1: "AD KD 9C", 2: "7S 8C 9H"}, "QD TH 8H").state
    out = act(state, 1, "EXCHANGE", "9C QD")
    assert out.state.result.ending is Ending.TRENTUNO and out.state.result.winners == (1,)
    assert out.state.chips == (99, 102, 99) and out.state.phase is Phase.WAITING
    assert "HAND_OVER" in kinds(out)


def test_tr10_trentuno_by_take_all() -> None:
    state = deal(new(3), {0: "7H 8D 9S", 1: "7D QC 9C", 2: "7S 8C 9H"}, "AC KC 9D").state
    state = act(state, 1, "EXCHANGE", "QC 9D").state  # the widow is now A-K-Q of clubs
    out = act(state, 2, "TAKE_ALL")
    assert out.state.result.ending is Ending.TRENTUNO and out.state.result.winners == (2,)
    assert hand_text(out.state, 2) == "AC KC QC" and out.state.chips == (99, 99, 102)


def test_tr6_widow_trentuno_for_a_dealer_between_other_seats() -> None:
    state = new(3, dealer=1)
    out = deal(state, {0: "7D 8S 9C", 1: "7S 8C 9H", 2: "7C 8H 9D"}, "AH JH TH")
    s = out.state
    taken = [e for e in out.events if e.kind == "WIDOW_TRENTUNO"]
    assert [(e.seat, " ".join(str(tc.card) for tc in e.cards)) for e in taken] == [(1, "AH JH TH")]
    assert all(tc.seen_by == PUBLIC for tc in taken[0].cards)
    assert len(s.hands) == 3 and [hand_text(s, seat) for seat in range(3)] == ["7D 8S 9C", "AH JH TH", "7C 8H 9D"]
    view = engine.view(s, None)
    assert [str(tc.card) for tc in view.widow] == ["7S", "8C", "9H"] and all(tc.is_face_up for tc in view.widow)
    assert s.result.winners == (1,) and s.chips == (99, 102, 99)


def test_tr10_trentuno_reached_in_the_last_round() -> None:
    state = deal(new(3), {0: "AH KH 9S", 1: "7D 8S 9C", 2: "7S 8C 9H"}, "QH TD 8H").state
    state = act(state, 1, "STOP").state
    state = act(state, 2, "PASS").state
    out = act(state, 0, "EXCHANGE", "9S QH")
    assert out.state.result.ending is Ending.TRENTUNO and out.state.result.winners == (0,)
    assert out.state.chips == (102, 99, 99)
    assert out.state.last_left == () and engine.view(out.state, None).last_left == ()  # nobody is owed a turn


def test_tr11_after_a_stop_every_other_player_once_more() -> None:
    state = deal(new(4), {0: "7H 8D 9S", 1: "7D 8S 9C", 2: "7S 8C 9H", 3: "7C 8H 9D"}, "TH TD TS").state
    state = act(state, 1, "EXCHANGE", "7D TH").state
    state = act(state, 2, "STOP").state
    assert state.stopper == 2 and state.last_left == (3, 0, 1)
    assert {e.kind for e in engine.legal_actions(state, 3)} == {"EXCHANGE", "TAKE_ALL", "PASS"}
    view = engine.view(state, None)
    assert view.last_round and view.stopper == 2 and view.closing is Closing.STOP
    state = act(state, 3, "PASS").state
    state = act(state, 0, "EXCHANGE", "7H TD").state
    out = act(state, 1, "PASS")
    assert out.state.phase is Phase.WAITING and out.state.result.ending is Ending.SHOWDOWN
    assert engine.to_act(out.state) == (1,)  # the next dealer


def test_tr11_take_all_in_last_round_does_not_start_another() -> None:
    state = deal(new(3), LOW, LOW_WIDOW).state
    state = act(state, 1, "STOP").state
    state = act(state, 2, "TAKE_ALL").state
    assert state.stopper == 1 and state.closing is Closing.STOP and state.last_left == (0,)
    assert hand_text(state, 2) == "TH TD 8H"
    out = act(state, 0, "PASS")
    assert out.state.result.ending is Ending.SHOWDOWN
    assert out.state.result.winners == (2,)  # T-8 of hearts... 10 + 8 = 18 beats the single cards
    assert out.state.chips == (99, 99, 102)


def test_tr12_showdown_equal_value_compares_cards() -> None:
    hands = {0: "AH 9H 7S", 1: "KD QD AS", 2: "7C 8C 9D"}  # 20 and 20: A-9 beat K-Q
    state = deal(new(3), hands, "7H 8D 8S").state
    for seat, kind in ((1, "STOP"), (2, "PASS"), (0, "PASS")):
        out = act(state, seat, kind)
        state = out.state
    assert state.result.winners == (0,)
    shows = [e for e in out.events if e.kind == "SHOW"]
    assert all(tc.seen_by == PUBLIC for e in shows for tc in e.cards) and len(shows) == 3


def test_tr13_dealer_passes_and_deal_waits() -> None:
    state = deal(new(3, dealer=2), LOW, LOW_WIDOW).state
    for seat, kind in ((0, "STOP"), (1, "PASS"), (2, "PASS")):
        state = act(state, seat, kind).state
    assert state.phase is Phase.WAITING and state.dealer == 0
    assert engine.to_act(state) == (0,)
    with pytest.raises(Rejected) as err:
        engine.apply(state, Action(1, "DEAL"))
    assert err.value.reason is Reason.NOT_YOUR_TURN
    assert engine.view(state, 1).result == state.result  # shown until the next deal
    nxt = engine.apply(state, Action(0, "DEAL")).state
    assert nxt.result is None or nxt.result.ending in (Ending.WIDOW_TRENTUNO, Ending.DEALT_TRENTUNO)
    assert nxt.turn in (1, None)


def test_tr14_round_guard() -> None:
    state = deal(new(3, max_rounds=2), LOW, LOW_WIDOW).state
    for _ in range(2):
        for seat in (1, 2, 0):
            hand = state.hands[seat]
            before = state
            out = act(state, seat, "EXCHANGE", f"{hand[0].card} {state.widow[0].card}")
            state = out.state
    assert [(e.seat, e.amount) for e in out.events if e.kind == "ROUND_LIMIT"] == [(0, 2)]
    assert state.hands[0][0].card == before.widow[0].card and state.widow[0].card == before.hands[0][0].card
    assert state.closing is Closing.ROUND_LIMIT and state.stopper == 0 and state.rounds == 2
    assert state.last_left == (1, 2)
    state = act(state, 1, "PASS").state
    out = act(state, 2, "PASS")
    assert out.state.result.ending is Ending.SHOWDOWN and "HAND_OVER" in kinds(out)


def test_seats_that_cannot_pay_the_ante_sit_out() -> None:
    state = new(4, chips=[10, 0, 10, 10])
    assert state.dealer == 0
    out = deal(state, {0: "7H 8D 9S", 2: "7S 8C 9H", 3: "7C 8H 9D"}, LOW_WIDOW)
    assert out.state.in_deal == (0, 2, 3) and out.state.hands[1] == ()
    assert out.state.turn == 2 and out.state.pot == 3


def test_pot_game_over_when_fewer_than_three_can_pay() -> None:
    state = new(3, chips=1)
    state = deal(state, {0: "7H 8D 9S", 1: "7D 8S 9C", 2: "7S 8H 9H"}, LOW_WIDOW).state
    for seat, kind in ((1, "STOP"), (2, "PASS"), (0, "PASS")):
        out = act(state, seat, kind)
        state = out.state
    assert state.phase is Phase.OVER and engine.is_over(state)
    assert kinds(out)[-2:] == ["HAND_OVER", "GAME_OVER"]
    assert sum(state.chips) == 3 and state.pot == 0
    with pytest.raises(Rejected) as err:
        engine.apply(state, Action(1, "DEAL"))
    assert err.value.reason is Reason.GAME_OVER


def test_pot_remainder_goes_to_last_winner_at_game_over() -> None:
    state = new(3, chips=1)
    out = deal(state, {0: "AH KH QH", 1: "AD KD QD", 2: "7S 8C 9H"}, LOW_WIDOW)
    assert out.state.phase is Phase.OVER
    assert out.state.chips == (1, 2, 0) and out.state.pot == 0  # split 1-1, the odd chip to seat 1


def test_start_refused_when_fewer_than_three_can_pay() -> None:
    with pytest.raises(Rejected) as err:
        new(4, chips=[5, 0, 0, 5])
    assert err.value.reason is Reason.INVALID_SEATS


# -- LIVES scoring ---------------------------------------------------------------------------------


def test_lives_lowest_hand_loses_a_life() -> None:
    state = new(3, preset="VITE")
    assert state.lives == (3, 3, 3)
    state = deal(state, {0: "AH KH 9S", 1: "7D 8S 9C", 2: "QS JS 9H"}, "7H 8D 8C").state
    for seat, kind in ((1, "STOP"), (2, "PASS"), (0, "PASS")):
        out = act(state, seat, kind)
        state = out.state
    assert state.lives == (3, 2, 3) and state.result.losers == (1,)
    assert state.pot == 3 and state.chips == (99, 99, 99)  # the antes stay for the last survivor
    assert "LIFE_LOST" in kinds(out) and engine.view(state, 2).lives == (3, 2, 3)


def test_lives_ties_for_lowest_all_lose() -> None:
    state = new(3, preset="VITE")
    state = deal(state, {0: "AH KH 9S", 1: "7D 8S 9C", 2: "7S 8C 9H"}, "7H 8D TC").state
    for seat, kind in ((1, "STOP"), (2, "PASS"), (0, "PASS")):
        state = act(state, seat, kind).state
    assert state.lives == (3, 2, 2) and state.result.losers == (1, 2)


def test_lives_last_survivor_wins_the_pot() -> None:
    state = new(3, preset="VITE", lives=1, ante=2)
    state = deal(state, {0: "AH KH 9S", 1: "7D 8S 9C", 2: "QS JS 9H"}, "7H 8D 8C").state
    for seat, kind in ((1, "STOP"), (2, "PASS"), (0, "PASS")):
        state = act(state, seat, kind).state
    assert state.lives == (1, 0, 1) and state.dealer == 2
    state = deal(state, {0: "7S 8C 9H", 2: "QS JS 9D"}, "7H 8D 8S").state
    assert state.in_deal == (0, 2) and state.pot == 10  # 6 from the first deal, 4 from this one
    state = act(state, 0, "STOP").state
    out = act(state, 2, "PASS")
    s = out.state
    assert s.phase is Phase.OVER and s.lives == (0, 0, 1)
    assert Transfer(POT, 2, 10, "pot") in out.settlement
    assert s.chips == (96, 98, 106) and s.pot == 0
    over = [e for e in out.events if e.kind == "GAME_OVER"]
    assert over[0].seat == 2 and over[0].amount == 10


def test_lives_a_deal_that_would_eliminate_everyone_costs_nobody() -> None:
    state = new(3, preset="VITE", lives=1)
    state = deal(state, {0: "KH QH 7C", 1: "KD QD 7S", 2: "KS QS 7H"}, "8C 9D 8H").state
    for seat, kind in ((1, "STOP"), (2, "PASS"), (0, "PASS")):
        state = act(state, seat, kind).state
    assert state.lives == (1, 1, 1) and state.result.losers == ()
    assert state.phase is Phase.WAITING


def test_lives_seat_without_chips_plays_on() -> None:
    state = new(3, chips=[0, 5, 5], preset="VITE")
    out = deal(state, LOW, LOW_WIDOW)
    assert out.state.in_deal == (0, 1, 2) and out.state.pot == 2


# -- the profile -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [{"ante": 0}, {"max_rounds": 0}, {"lives": 0}, {"scoring": "BOTH"}, {"first_dealer": "OLDEST"}, {"ante": -1}],
)
def test_invalid_options_refused(options: dict[str, object]) -> None:
    with pytest.raises(Rejected) as err:
        engine.new_table("trentuno", [Seat(f"p{i}", 10) for i in range(3)], seed=b"s", options=options)
    assert err.value.reason is Reason.INVALID_OPTION


def test_first_dealer_seat_must_be_at_the_table() -> None:
    with pytest.raises(Rejected) as err:
        new(3, dealer=5)
    assert err.value.reason is Reason.INVALID_OPTION


def test_presets_and_random_first_dealer() -> None:
    game = engine.get_game("trentuno")
    assert next(iter(game.presets)) == "CLASSICO" and "VITE" in game.presets
    seats = [Seat(f"p{i}", 10) for i in range(5)]
    dealers = {engine.new_table("trentuno", seats, seed=bytes([i])).state.dealer for i in range(40)}
    assert dealers == set(range(5))
    assert engine.new_table("trentuno", seats, seed=b"x", options={"ante": 0, "scoring": "LIVES"}).state.lives


# -- what the view and the deal result tell ----------------------------------------------------------


def test_tr4_deals_are_counted_in_the_state_and_the_view() -> None:
    state = new(3)
    assert state.deals == 0 and engine.view(state, None).deals == 0
    state = deal(state, LOW, LOW_WIDOW).state
    assert state.deals == 1 and engine.view(state, 1).deals == 1
    for seat, kind in ((1, "STOP"), (2, "PASS"), (0, "PASS")):
        state = act(state, seat, kind).state
    assert state.deals == 1 and state.dealer == 1
    state = deal(state, LOW, LOW_WIDOW).state
    assert state.deals == 2 and engine.view(state, None).deals == 2


def test_tr8_tr12_deal_result_names_each_seats_hand_kind() -> None:
    state = new(4, chips=[10, 10, 10, 0])  # seat 3 cannot pay the ante: not dealt in
    hands = {0: "7H 7D 7S", 1: "8H 8D JC", 2: "AH 9S 8S"}
    state = deal(state, hands, "TH TD 9H").state
    for seat, kind in ((1, "STOP"), (2, "PASS"), (0, "PASS")):
        state = act(state, seat, kind).state
    result = state.result
    assert result.ending is Ending.SHOWDOWN and result.winners == (0,)
    assert result.kinds == (HandKind.TRIS, HandKind.JOKER_TRIS, HandKind.SUIT_SUM, HandKind.NONE)
    assert result.points == (61, 61, 34, 0)
    assert engine.view(state, None).result == result


def test_tr13_the_views_to_act_is_the_dealer_between_deals_and_nobody_after_the_game() -> None:
    state = new(3, chips=[1, 1, 2])
    assert engine.view(state, 2).to_act == 0 == state.dealer and engine.to_act(state) == (0,)
    state = deal(state, LOW, LOW_WIDOW).state
    assert engine.view(state, None).to_act == 1 == state.turn
    for seat, kind in ((1, "STOP"), (2, "PASS"), (0, "PASS")):
        state = act(state, seat, kind).state
    assert state.phase is Phase.WAITING and state.dealer == 1 and state.chips == (1, 1, 2)  # a three-way split
    assert engine.view(state, 2).to_act == 1 and engine.view(state, None).to_act == 1
    assert engine.to_act(state) == (1,) and not engine.view(state, 2).last_round
    state = deal(state, {0: "7H 8D 9S", 1: "7D 8S 9C", 2: "7S 8H 9H"}, LOW_WIDOW).state
    for seat, kind in ((2, "STOP"), (0, "PASS"), (1, "PASS")):
        state = act(state, seat, kind).state
    assert state.phase is Phase.OVER and state.chips == (0, 0, 4)
    assert engine.view(state, 0).to_act is None and engine.view(state, None).to_act is None
    assert engine.to_act(state) == ()


def test_tr13_a_first_dealer_who_cannot_pay_passes_the_deal_round_to_seat_0() -> None:
    state = new(4, chips=[10, 10, 10, 0], dealer=3)
    assert state.dealer == 0 and engine.to_act(state) == (0,)


def test_lives_the_last_survivor_takes_the_pot_even_when_tied_with_the_seat_that_died() -> None:
    """Two seats left tie for the lowest hand: both lose a life; the one that had two lives survives and takes
    the pot, although the tie listed the other first."""
    state = new(3, preset="VITE")
    state = replace(state, lives=(2, 1, 0))
    out = deal(state, {0: "7H 8D 9S", 1: "7D 8S 9C"}, LOW_WIDOW)
    state = act(out.state, 1, "STOP").state
    out = act(state, 0, "PASS")
    state = out.state
    assert state.result.winners == (1, 0) and state.lives == (1, 0, 0) and state.phase is Phase.OVER
    over = [e for e in out.events if e.kind == "GAME_OVER"]
    assert [(e.seat, e.amount) for e in over] == [(0, 2)] and state.chips == (101, 99, 100) and state.pot == 0


@pytest.mark.parametrize(
    "options",
    [
        {"ante": 1_000_000},
        {"max_rounds": 1},
        {"max_rounds": 1000},
        {"scoring": "LIVES", "ante": 0, "lives": 1},
        {"scoring": "LIVES", "lives": 99},
        {"first_dealer": "SEAT", "first_dealer_seat": 8},
    ],
    ids=str,
)
def test_options_accepted_at_their_bounds(options: dict[str, object]) -> None:
    rules = engine.rules.with_options(engine.get_game("trentuno").presets["CLASSICO"], options)
    for name, value in options.items():
        assert engine.codec.to_data(getattr(rules, name)) == value


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"ante": 1_000_001}, "ante must be an integer in [0, 1000000], not 1000001"),
        ({"max_rounds": 0}, "max_rounds must be an integer in [1, 1000], not 0"),
        ({"max_rounds": 1001}, "max_rounds must be an integer in [1, 1000], not 1001"),
        ({"lives": 0}, "lives must be an integer in [1, 99], not 0"),
        ({"lives": 100}, "lives must be an integer in [1, 99], not 100"),
        ({"first_dealer_seat": 9}, "first_dealer_seat must be an integer in [0, 8], not 9"),
        ({"ante": 0}, "POT scoring needs an ante of at least 1: the deal is played for it"),
    ],
    ids=str,
)
def test_options_refused_outside_their_bounds_with_the_reason(options: dict[str, object], message: str) -> None:
    with pytest.raises(Rejected) as err:
        engine.rules.with_options(engine.get_game("trentuno").presets["CLASSICO"], options)
    assert err.value.reason is Reason.INVALID_OPTION and err.value.message == message


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"tris_by_points": "yes"}, "tris_by_points must be true or false"),
        ({"scoring": "POT"}, "scoring must be one of POT, LIVES"),
        ({"first_dealer": "SEAT"}, "first_dealer must be one of RANDOM, SEAT"),
        ({"ante": True}, "ante must be an integer in [0, 1000000], not True"),
    ],
    ids=str,
)
def test_a_profile_built_by_hand_is_checked_too(changes: dict[str, object], message: str) -> None:
    """validate() also guards profiles made without with_options (plain values where enums belong)."""
    with pytest.raises(Rejected) as err:
        replace(TrentunoRules(), **changes).validate()
    assert err.value.reason is Reason.INVALID_OPTION and err.value.message == message


def test_tr2_tr3_a_table_refused_says_why() -> None:
    with pytest.raises(Rejected) as err:
        engine.new_table("trentuno", [Seat("a", 5), Seat("b", 0), Seat("c", 5)], seed=b"s")
    assert err.value.reason is Reason.INVALID_SEATS
    assert err.value.message == "only 2 seat(s) can pay the ante of 1; a deal needs 3"
    with pytest.raises(Rejected) as err:
        new(3, dealer=3)
    assert err.value.reason is Reason.INVALID_OPTION
    assert err.value.message == "first_dealer_seat 3 is not at this 3-seat table"
    assert new(3, dealer=2).dealer == 2
