"""SM-1..SM-14: pack, values, matta, seats, first bank, deal, stakes, hits, busts, the bank's turn."""

from __future__ import annotations

import pytest

from mazziere import engine
from mazziere.engine.cards import parse_cards
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.games.sette_e_mezzo.points import scoring
from mazziere.engine.games.sette_e_mezzo.rules import CLASSICO, MattaValues, Pack, SetteEMezzoRules
from mazziere.engine.games.sette_e_mezzo.state import Phase, Status
from mazziere.engine.table import Action, Seat
from mazziere.engine.values import field_names
from mazziere.engine.visibility import PUBLIC, only
from tests.helpers import play_kinds, stacked
from tests.sette_e_mezzo.table import table


def pts(text: str, **options: object) -> int:
    return scoring(SetteEMezzoRules(**options)).points(parse_cards(text))  # type: ignore[arg-type]


def test_sm1_italian_pack_by_default_french_on_request():
    run = table("5d 6c 7s")
    assert [str(tc.card) for h in run.state.hands for tc in h.cards] == ["7s", "5d", "6c"]
    french = table("5D 6H QS", pack="FRENCH")
    assert french.points(0) == 1 and french.points(1) == 10
    with pytest.raises(AssertionError, match="not in this pack"), stacked("5d"):
        table("5d", pack="FRENCH")


def test_sm1_italian_matta_reads_as_its_french_counterpart():
    assert scoring(SetteEMezzoRules(pack=Pack.FRENCH)).matta == parse_cards("KD")[0]
    assert pts("KD 3H", pack=Pack.FRENCH) == 14
    assert pts("KH 3H", pack=Pack.FRENCH) == 7


def test_sm2_values_in_halves():
    assert pts("Ac") == 2 and pts("7c") == 14 and pts("Fc") == pts("Cc") == pts("Rc") == 1
    assert pts("Ac 2c 3c") == 12 and pts("Fc Cs Rb") == 3 and pts("7c Fb") == 15


def test_sm3_matta_takes_the_best_value():
    assert pts("Rd 3c") == 14  # the matta is a 4
    assert pts("Rd Fc") == 15  # 7
    assert pts("Rd 7c") == 15  # ½
    assert pts("Rd 6c Ac") == 15  # ½
    assert pts("Rd 5c Fc") == 15  # 2
    assert pts("Rd 7c Ac") == 17  # over 7½ whatever it is worth: the least bust
    assert pts("Rd") == 1  # alone: ½ (gap)


def test_sm3_matta_whole_only_and_no_matta():
    assert pts("Rd 7c", matta_values=MattaValues.WHOLE_ONLY) == 16  # 7 + 1: a bust
    assert pts("Rd 6c", matta_values=MattaValues.WHOLE_ONLY) == 14
    assert pts("Rd", matta_values=MattaValues.WHOLE_ONLY) == 2
    assert pts("Rd 3c", matta_card=None) == 7
    assert pts("7d 3c", matta_card=parse_cards("7d")[0]) == 14


def test_sm3_engine_values_the_matta_in_play():
    run = table("Rd 6c 5s 3b").do("1 STAKE 2", "1 HIT")
    assert run.points(1) == 14
    assert engine.view(run.state, 1).seats[1].points == 14
    assert engine.view(run.state, 2).seats[1].points is None


@pytest.mark.parametrize(("n", "preset"), [(1, None), (13, None), (2, "DELLARTI")])
def test_sm4_seat_count_out_of_range_is_refused(n, preset):
    with pytest.raises(Rejected) as err:
        engine.new_table("sette_e_mezzo", [Seat(f"p{i}", 10) for i in range(n)], seed=b"x", preset=preset)
    assert err.value.reason is Reason.INVALID_SEATS


def test_sm5_sm7_deal_starts_after_the_bank_bank_last_face_down():
    run = table("5d 6c 7s", first_bank_seat=1)
    dealt = run.kinds("DEALT")
    assert [e.seat for e in dealt] == [2, 0, 1]
    assert [e.cards[0].seen_by for e in dealt] == [only(2), only(0), only(1)]
    assert run.state.turn == 2 and run.state.phase is Phase.STAKE
    view = engine.view(run.state, 0)
    assert view.seats[0].cards[0].card is not None and view.seats[2].cards[0].card is None
    assert engine.legal_actions(run.state, 0) == ()


def test_sm6_first_bank_random_uses_the_seed():
    people = [Seat(f"p{i}", 10) for i in range(5)]
    banks = {engine.new_table("sette_e_mezzo", people, seed=bytes([i])).state.bank for i in range(40)}
    assert len(banks) > 1
    state = engine.new_table("sette_e_mezzo", people, seed=b"a").state
    assert state.draws == 1 and state.phase is Phase.WAIT_DEAL and engine.to_act(state) == (state.bank,)


def test_sm6_first_bank_highest_card_king_highest_ties_redraw():
    people = [Seat(f"p{i}", 10) for i in range(3)]
    with stacked("Rd 2c Rs 3d 5c"):
        out = engine.new_table("sette_e_mezzo", people, seed=b"x", options={"first_bank": "HIGHEST_CARD"})
    drew = [(e.seat, str(e.cards[0].card)) for e in out.events if e.kind == "DREW"]
    assert drew == [(0, "Rd"), (1, "2c"), (2, "Rs"), (0, "3d"), (2, "5c")]
    assert all(e.cards[0].seen_by == PUBLIC for e in out.events if e.kind == "DREW")
    assert out.state.bank == 2


def test_sm6_highest_card_ties_through_the_whole_pack_draw_from_a_fresh_shuffle():
    """Twenty ties in a row use up the pack; the draw goes on from a new shuffle (the next draw counter)."""
    from mazziere.engine import chance
    from mazziere.engine.cards import ITALIAN_40, cards_text

    ties = " ".join(f"{r}{a} {r}{b}" for r in "A234567FCR" for a, b in (("d", "c"), ("s", "b")))
    people = [Seat("a", 10), Seat("b", 10)]
    with stacked(ties):
        out = engine.new_table("sette_e_mezzo", people, seed=b"x", options={"first_bank": "HIGHEST_CARD"})
    drew = [str(e.cards[0].card) for e in out.events if e.kind == "DREW"]
    assert " ".join(drew[:40]) == ties and out.state.draws == 2
    fresh = chance.shuffled(sorted(ITALIAN_40, key=str), b"x", 1)  # a pack is shuffled from canonical order
    assert drew[40:42] == cards_text(fresh[:2]).split()
    assert len(drew) % 2 == 0 and out.state.bank == (
        0 if fresh[len(drew) - 42].rank > fresh[len(drew) - 41].rank else 1
    )


def test_sm6_first_bank_seat_named_by_the_caller():
    assert table(first_bank_seat=2).state.bank == 2
    with pytest.raises(Rejected) as err:
        table(seats=3, first_bank_seat=5)
    assert err.value.reason is Reason.INVALID_OPTION


def test_sm8_stake_within_bounds_and_chips():
    run = table("5d 6c 7s", chips=[100, 6, 100])
    assert run.legal(1) == {"STAKE": (1, 6)}
    with pytest.raises(Rejected) as err:
        run.do("1 STAKE 7")
    assert err.value.reason is Reason.STAKE_OUT_OF_RANGE
    run.do("1 STAKE 6")
    assert run.legal(1) == {"HIT": (0, 0), "STAND": (0, 0)}
    assert run.state.hands[1].stake == 6 and run.kinds("STAKED")[0].amount == 6


def test_sm8_player_below_min_stake_sits_out():
    run = table("5d 6c", chips=[100, 1, 100], min_stake=2)
    assert run.state.hands[1].status is Status.OUT and not run.state.hands[1].cards
    assert [e.seat for e in run.kinds("DEALT")] == [2, 0]
    assert run.state.turn == 2


def test_sm8_raise_on_decision_raises_never_lowers_never_above_max():
    run = table("2d 6c 7s 3b", raise_on_decision=True, max_stake=10)
    run.do("1 STAKE 4")
    assert run.legal(1) == {"HIT": (0, 6), "STAND": (0, 6)}
    run.do("1 HIT 3")
    assert run.state.hands[1].stake == 7 and run.kinds("HIT")[0].amount == 3
    assert run.legal(1)["STAND"] == (0, 3)
    assert run.state.hands[1].status is Status.PLAYING and engine.view(run.state, 2).seats[1].burned == ()
    run.do("1 STAND 3", "2 STAKE 1", "2 STAND", "0 STAND")
    assert run.kinds("STOOD")[0].amount == 3
    assert run.transfers[-2].amount == 10  # 5 < 7: the raised stake of 10 goes to the bank


def test_sm8_bank_pays_below_zero():
    run = table("6d 5c 4s", chips=[3, 100, 100]).do("1 STAKE 10", "1 STAND", "2 STAKE 10", "2 STAND", "0 STAND")
    assert run.chips == (-17, 110, 110)


def test_sm9_cards_after_the_first_are_face_up():
    run = table("2d 6c 7s 3b").do("1 STAKE 1", "1 HIT")
    hit = run.kinds("HIT")[0]
    assert hit.cards[0].seen_by == PUBLIC and str(hit.cards[0].card) == "3b"
    assert [tc.seen_by for tc in run.state.hands[1].cards] == [only(1), PUBLIC]


def test_sm9_hidden_card_choice_turns_the_hidden_card_up():
    run = table("2d 6c 7s 3b Ac", hidden_card_choice=True).do("1 STAKE 1")
    assert set(run.legal(1)) == {"HIT", "HIT_HIDDEN", "STAND"}
    run.do("1 HIT_HIDDEN")
    revealed, hit = run.kinds("REVEALED")[0], run.kinds("HIT_HIDDEN")[0]
    assert str(revealed.cards[0].card) == "2d" and revealed.cards[0].seen_by == PUBLIC
    assert hit.cards[0].seen_by == only(1)
    run.do("1 HIT_HIDDEN")
    hidden = [tc for tc in run.state.hands[1].cards if not tc.seen_by.everyone]
    assert len(hidden) == 1 and str(hidden[0].card) == "Ac"
    assert run.points(1) == 12


def test_sm10_bust_pays_at_once_without_showing_the_hidden_card():
    run = table("6d 6c 7s 3b").do("1 STAKE 4", "1 HIT")
    assert run.transfers == [engine.ledger.Transfer(1, 0, 4, "bust")]
    assert run.state.hands[1].status is Status.BUST and run.chips == (104, 96, 100)
    assert not run.kinds("REVEALED") and run.kinds("BUST")[0].points == 0
    assert run.state.turn == 2


def test_sm10_reveal_hidden_on_bust():
    run = table("6d 6c 7s 3b", reveal_hidden_on_bust=True).do("1 STAKE 4", "1 HIT")
    assert str(run.kinds("REVEALED")[0].cards[0].card) == "6d"
    assert run.kinds("BUST")[0].points == 18
    assert engine.view(run.state, None).seats[1].points == 18


def test_sm11_sette_e_mezzo_with_many_cards_reveals_and_stops():
    run = table("3d 6c 7s 4b Fc").do("1 STAKE 4", "1 HIT", "1 HIT")
    assert run.points(1) == 15 and run.state.hands[1].status is Status.SETTE_E_MEZZO
    assert run.kinds("REVEALED")[0].cards[0] == engine.visibility.face_up(parse_cards("3d")[0])
    assert run.state.turn == 2


def test_sm12_bank_does_not_play_when_every_player_busted():
    run = table("6d 6c 7s 3b 2s").do("1 STAKE 4", "1 HIT", "2 STAKE 3", "2 HIT")
    assert run.kinds("HAND_OVER") and run.state.phase is Phase.WAIT_DEAL
    assert not run.kinds("REVEALED") and run.state.hands[0].cards[0].seen_by == only(0)
    assert run.chips == (107, 96, 97)


def test_sm12_bank_turns_up_and_plays():
    run = table("5d 6c 4s 2b").do("1 STAKE 4", "1 STAND", "2 STAKE 3", "2 STAND")
    assert run.state.phase is Phase.BANK and run.state.turn == 0
    assert str(run.kinds("REVEALED")[-1].cards[0].card) == "4s"
    assert run.legal(0) == {"HIT": (0, 0), "STAND": (0, 0)}
    run.do("0 HIT", "0 STAND")
    assert run.points(0) == 12


def test_sm13_ties_go_to_the_bank_higher_player_paid_even_money():
    run = table("5d 6c 6s").do("1 STAKE 4", "1 STAND", "2 STAKE 3", "2 STAND", "0 STAND")
    assert run.chips == (107, 96, 97)
    assert [r.result.value for r in run.state.results] == ["LOST", "LOST"]
    run = table("Cd 6c 5s Ac 5b").do("1 STAKE 4", "1 HIT", "1 HIT", "1 STAND", "2 STAKE 3", "2 STAND", "0 STAND")
    assert run.points(1) == 13 and run.points(0) == 10
    assert [(r.result.value, r.amount) for r in run.state.results] == [("WON", 4), ("WON", 3)]
    assert run.chips == (93, 104, 103)
    assert run.state.bank_points == 10 and engine.view(run.state, None).seats[1].points == 13


def test_sm14_bank_bust_pays_standing_players_not_the_busted_ones():
    run = table("5d 6c 7s 3b 2d").do("1 STAKE 4", "1 STAND", "2 STAKE 3", "2 HIT", "0 HIT")
    assert run.state.hands[0].status is Status.BUST
    assert run.chips == (100 + 3 - 4, 104, 97)
    assert [(r.seat, r.result.value, r.amount) for r in run.state.results] == [(1, "WON", 4), (2, "BUST", -3)]


def test_game_over_when_no_player_can_stake():
    run = table("5d 6s", seats=2, chips=[100, 3]).do("1 STAKE 3", "1 STAND", "0 STAND")
    assert run.kinds("GAME_OVER") and engine.is_over(run.state) and engine.to_act(run.state) == ()
    with pytest.raises(Rejected) as err:
        engine.apply(run.state, Action(0, "DEAL"))
    assert err.value.reason is Reason.GAME_OVER


def test_game_over_at_once_when_nobody_can_stake():
    out = engine.new_table("sette_e_mezzo", [Seat("a", 50), Seat("b", 0)], seed=b"x", options={"first_bank": "SEAT"})
    assert engine.is_over(out.state) and play_kinds(out.events) == ["FIRST_BANK", "GAME_OVER"]


def test_view_never_holds_seed_stock_or_draws():
    run = table("5d 6c 7s")
    view = engine.view(run.state, None)
    assert not {"seed", "stock", "draws"} & set(field_names(type(view)))
    assert view.stock_size == 37 and all(tc.card is None for s in view.seats for tc in s.cards)
    assert CLASSICO.rules_version == 1


def test_hands_are_numbered_from_one_in_the_view_and_in_hand_over():
    run = table("5d 6c 5s")
    assert engine.view(run.state, None).hand_number == 1 and run.state.hand_number == 1
    run.do("1 STAKE 1", "1 STAND", "2 STAKE 1", "2 STAND", "0 STAND")
    assert [e.amount for e in run.kinds("HAND_OVER")] == [1]
    run.do("0 DEAL", "1 STAKE 1", "1 STAND", "2 STAKE 1", "2 STAND", "0 STAND")
    assert [e.amount for e in run.kinds("HAND_OVER")] == [1, 2] and engine.view(run.state, 1).hand_number == 2
    fresh = engine.new_table("sette_e_mezzo", [Seat("a", 9), Seat("b", 9)], seed=b"n").state
    assert fresh.hand_number == 0 and engine.view(fresh, 0).hand_number == 0


def test_sm1_sm3_sm20_sm21_sm22_a_profile_compiles_to_its_scoring():
    """Scoring(rules) built afresh (scoring() caches it per profile) carries every option it reads."""
    from mazziere.engine.cards import FRENCH_40, ITALIAN_40
    from mazziere.engine.games.sette_e_mezzo.points import Scoring

    plain = Scoring(SetteEMezzoRules())
    assert plain.pack == ITALIAN_40 and plain.matta == parse_cards("Rd")[0] and plain.matta_low == 1
    assert not plain.whole_only and not plain.ace_half and not plain.triple and plain.burn_ranks == frozenset()
    french = Scoring(SetteEMezzoRules(pack=Pack.FRENCH, matta_card=parse_cards("7c")[0]))
    assert french.pack == FRENCH_40 and french.matta == parse_cards("7H")[0]
    assert Scoring(SetteEMezzoRules(matta_card=None)).matta is None
    whole = Scoring(SetteEMezzoRules(matta_values=MattaValues.WHOLE_ONLY))
    assert whole.whole_only and whole.matta_low == 2 and whole.points(parse_cards("Rd")) == 2
    rich = Scoring(
        SetteEMezzoRules(ace_half_first=True, triple=True, triple_two_sevens=True, burn_ranks=frozenset({3}))
    )
    assert rich.ace_half and rich.points(parse_cards("Ad 7c")) == 15
    assert rich.is_triple(parse_cards("7d 7c")) and rich.burnable(parse_cards("3c")[0])
    assert not rich.burnable(parse_cards("4c")[0])


def test_sm7_sm8_the_turn_skips_a_seat_that_sits_the_hand_out():
    run = table("5d 6c 5s", seats=4, chips=[100, 100, 0, 100]).do("1 STAKE 1", "1 STAND")
    assert run.state.hands[2].status is Status.OUT and run.state.turn == 3
    run.do("3 STAKE 1", "3 STAND")
    assert run.state.turn == 0 and run.state.phase is Phase.BANK


def test_sm10_a_last_player_busting_all_in_ends_the_game_in_the_same_action():
    run = table("5d 6c 7s", seats=2, chips=[100, 3]).do("1 STAKE 3", "1 HIT")
    assert run.state.hands[1].status is Status.BUST and run.chips == (103, 0)
    assert run.state.phase is Phase.OVER and play_kinds(run.events)[-2:] == ["HAND_OVER", "GAME_OVER"]


def test_sm10_a_bust_shown_keeps_its_total_in_the_results():
    run = table("5d 6c 5s 4c", reveal_hidden_on_bust=True).do("1 STAKE 1", "1 HIT", "2 STAKE 1", "2 STAND", "0 STAND")
    first = run.state.results[0]
    assert (first.seat, first.result.value, first.points) == (1, "BUST", 18)
    hidden = table("5d 6c 5s 4c").do("1 STAKE 1", "1 HIT", "2 STAKE 1", "2 STAND", "0 STAND")
    assert hidden.state.results[0].points is None


def test_sm21_an_ace_first_counts_half_to_avoid_a_bust_or_keeps_its_one():
    assert pts("Ad 6c Fb", ace_half_first=True) == 15  # 1 + 6 + ½ is already 7½: the ace stays 1
    assert pts("Ad 6c Cb Fb", ace_half_first=True) == 15  # 8 would bust: the ace counts ½
    assert pts("Ad Rd 6c Fb", ace_half_first=True) == 15  # with the matta too: ½ + 6 + ½ + matta ½
    assert pts("Ad Rd 6c Fb") == 16


def test_sm22_a_triple_with_the_matta_first_or_second():
    sc = scoring(SetteEMezzoRules(triple=True))
    assert sc.is_triple(parse_cards("Rd 7c")) and sc.is_triple(parse_cards("7c Rd"))
    assert not sc.is_triple(parse_cards("Rd Fc")) and not sc.is_triple(parse_cards("Fc Rd"))
    assert not sc.is_triple(parse_cards("Rd 6c")) and not sc.is_triple(parse_cards("7c 7d"))


def test_sm4_seat_counts_at_and_past_the_profiles_bounds():
    assert table(seats=12).state.seat_count == 12
    with pytest.raises(Rejected) as err:
        engine.new_table("sette_e_mezzo", [Seat(f"p{i}", 9) for i in range(13)], seed=b"x")
    assert err.value.reason is Reason.INVALID_SEATS
    assert err.value.message == "sette e mezzo under these rules seats 2..12, bank included; got 13"
    with pytest.raises(Rejected) as err:
        engine.new_table("sette_e_mezzo", [Seat("a", 9), Seat("b", 9)], seed=b"x", preset="DELLARTI")
    assert err.value.message == "sette e mezzo under these rules seats 3..12, bank included; got 2"


def test_sm6_first_bank_seat_must_be_at_the_table():
    assert table(seats=3, first_bank_seat=2).state.bank == 2
    with pytest.raises(Rejected) as err:
        table(seats=3, first_bank_seat=3)
    assert err.value.reason is Reason.INVALID_OPTION and err.value.message == "first_bank_seat 3 is not at this table"


def test_sm8_sm20_a_raise_keeps_the_cards_burned_before_it():
    run = table("2d 6c 7s 4c Ac", burn_ranks=[4], burn_when="ANY_CARD", raise_on_decision=True)
    run.do("1 STAKE 2", "1 HIT", "1 BURN", "1 HIT 3")
    hand = run.state.hands[1]
    assert [str(tc.card) for tc in hand.burned] == ["4c"] and hand.stake == 5 and hand.status is Status.PLAYING
