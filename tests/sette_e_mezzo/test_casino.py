"""The CASINO preset: the house banks on a fixed rule, its first card face up, forced draws, even money."""

from __future__ import annotations

import pytest

from mazziere import engine
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.games.sette_e_mezzo.state import Phase
from mazziere.engine.visibility import PUBLIC
from tests.sette_e_mezzo.table import deal, table


def casino(deck: str, **options: object):
    return table(deck, seats=2, preset="CASINO", **options)


def test_casino_bank_first_card_up_and_forced_draws_below_it():
    run = casino("5d 6c Fc Ac").do("1 STAKE 2")
    assert run.kinds("DEALT")[-1].cards[0].seen_by == PUBLIC
    assert run.legal(1) == {"HIT": (0, 0)}  # 5 is below the house's 6
    run.do("1 HIT")
    assert run.legal(1) == {"HIT": (0, 0)}  # 5½ still below
    run.do("1 HIT")
    assert set(run.legal(1)) == {"HIT", "STAND"}
    run.do("1 STAND")
    assert run.kinds("HAND_OVER") and run.state.phase is Phase.WAIT_DEAL
    assert run.chips == (98, 102) and run.state.bank == 0 and run.state.fresh


def test_casino_house_draws_below_five_stands_on_five():
    run = casino("7d 2c Ab Fc 2b").do("1 STAKE 3", "1 STAND")
    assert [str(e.cards[0].card) for e in run.kinds("HIT") if e.seat == 0] == ["Ab", "Fc", "2b"]
    assert run.points(0) == 11 and run.chips == (97, 103)


def test_casino_house_matta_first_takes_exactly_one_card():
    run = casino("7d Rd Ab").do("1 STAKE 3", "1 STAND")
    assert [str(e.cards[0].card) for e in run.kinds("HIT") if e.seat == 0] == ["Ab"]
    assert run.points(0) == 14 and run.state.results[0].result.value == "PUSH"
    assert run.chips == (100, 100) and run.transfers == []


def test_casino_lone_matta_must_draw():
    run = casino("Rd 5c Fc", reale_with_matta_pays="THREE_TO_TWO").do("1 STAKE 5")
    assert run.legal(1) == {"HIT": (0, 0)}
    run.do("1 HIT")
    assert run.chips == (93, 107)  # a matta reale at 3:2, rounded down


def test_casino_ties_push_five_tie_loses():
    assert casino("6d 6c").do("1 STAKE 4", "1 STAND").chips == (100, 100)
    assert casino("5d 5c").do("1 STAKE 4", "1 STAND").chips == (100, 100)
    assert casino("5d 5c", five_tie_loses=True).do("1 STAKE 4", "1 STAND").chips == (104, 96)


def test_casino_reale_pays_even_money_and_never_passes_the_bank():
    run = casino("7d 5c Fc").do("1 STAKE 4", "1 HIT")
    assert run.chips == (96, 104) and run.state.bank == 0 and not run.kinds("BANK_PASSED")
    assert run.state.results[0].reale


def test_casino_shuffles_every_hand():
    run = casino("7d 5c Fc").do("1 STAKE 4", "1 HIT")
    deal(run, "2d 3d")
    assert len(run.kinds("SHUFFLED")) == 2 and run.state.discards == ()


def test_casino_house_bank_never_passes():
    with pytest.raises(Rejected) as err:
        engine.new_table(
            "sette_e_mezzo", [engine.Seat("h", 0), engine.Seat("a", 9)], seed=b"x", preset="CASINO",
            options={"bank_passes_when": "EVERY_HAND"},
        )  # fmt: skip
    assert err.value.reason is Reason.INVALID_OPTION


def test_casino_house_plays_inside_the_last_players_action():
    run = table("6d 7c 4s 3b", seats=3, preset="CASINO").do("1 STAKE 1", "1 STAND", "2 STAKE 2")
    assert run.state.phase is Phase.DECIDE
    run.do("2 STAND")
    assert run.state.phase is Phase.WAIT_DEAL and run.state.turn == 0 and run.points(0) == 14
    assert [(x.result.value, x.amount) for x in run.state.results] == [("LOST", -1), ("PUSH", 0)]


def test_casino_house_showing_the_matta_forces_no_draw():
    run = casino("5d Rd Fc").do("1 STAKE 2")
    assert run.legal(1) == {"HIT": (0, 0), "STAND": (0, 0)}


def test_casino_a_reale_against_the_houses_reale_pushes():
    run = casino("7d Fb Fc 7c").do("1 STAKE 4", "1 HIT")
    assert run.points(0) == 15
    assert [(r.result.value, r.amount, r.reale) for r in run.state.results] == [("PUSH", 0, True)]
    assert run.chips == (100, 100)


def test_casino_three_to_two_only_for_a_reale_holding_the_matta():
    run = casino("7d 5c Fc", reale_with_matta_pays="THREE_TO_TWO").do("1 STAKE 4", "1 HIT")
    assert run.state.results[0].reale and run.chips == (96, 104)  # 7 + figure: even money


def test_casino_the_houses_reale_collects_even_money():
    run = casino("6d Fc 7c").do("1 STAKE 4", "1 STAND")
    assert run.points(0) == 15 and len(run.state.hands[0].cards) == 2
    assert [(r.result.value, r.amount) for r in run.state.results] == [("LOST", -4)] and run.chips == (104, 96)


def test_casino_a_lone_matta_must_draw_even_against_a_figure():
    run = casino("Rd Fc 5c").do("1 STAKE 2")
    assert run.legal(1) == {"HIT": (0, 0)}  # the matta alone (½) is not below the house's ½, yet must draw


@pytest.mark.parametrize(
    ("deck", "moves", "tie"),
    [
        ("5d 3c Fb Fc 2c", ["1 HIT", "1 STAND"], 11),  # 5½ each: the house 3, ½, 2
        ("6d 6c", ["1 STAND"], 12),
        ("6d 4c Fb Fc 2c", ["1 HIT", "1 STAND"], 13),  # 6½ each: the house 4, ½, 2
        ("7d 7c", ["1 STAND"], 14),
        ("7d Fb Fc 7c", ["1 HIT"], 15),  # two reales
    ],
)
def test_casino_five_tie_loses_only_a_tie_at_five(deck, moves, tie):
    run = casino(deck, five_tie_loses=True).do("1 STAKE 4", *moves)
    assert run.points(0) == run.points(1) == tie
    assert [(r.result.value, r.amount) for r in run.state.results] == [("PUSH", 0)] and run.chips == (100, 100)


def test_casino_house_draws_on_four_and_a_half():
    run = casino("5d 4c Fc 2c").do("1 STAKE 3", "1 STAND")
    assert [str(e.cards[0].card) for e in run.kinds("HIT") if e.seat == 0] == ["Fc", "2c"]
    assert run.points(0) == 13 and run.chips == (103, 97)
