"""Sitting out (option ``sit_out``, docs/rules/saltacavallo.md "Sitting out"): between hands the dealer sits a
living seat out of the next hands, or back in; it gets no card, cannot lose a life, keeps its lives and chips."""

from __future__ import annotations

import msgspec
import pytest

from mazziere import engine
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.table import Action
from tests.helpers import refused_at, replace
from tests.saltacavallo.support import act, deal, kinds, options_of, run, table, with_lives


def test_sc_sit_out_is_offered_to_the_dealer_only_between_hands_and_only_with_the_option() -> None:
    state = table(4, sit_out=True)
    assert options_of(state, 0) == {("DEAL", None), ("SIT_OUT", 1), ("SIT_OUT", 2), ("SIT_OUT", 3)}
    assert engine.to_act(state) == (0,)
    assert options_of(table(4), 0) == {("DEAL", None)}


def test_sc_sit_out_gets_no_card_is_skipped_and_loses_no_life() -> None:
    state, events, _ = run(table(4, sit_out=True), (0, "SIT_OUT", 1))
    assert state.sitting_out == (1,)
    assert [(e.kind, e.seat, e.target) for e in events] == [("SAT_OUT", 1, 0)]
    out = deal(state, "Ad 5c 6b")  # seats 2, 3, then the dealer 0; seat 1 gets nothing
    state = out.state
    assert state.hand[1] is None and state.turn == 2
    assert options_of(state, 2) == {("KEEP", None), ("SWAP", 3)}  # the next living seat dealt in, not seat 1
    state, events, _ = run(state, (2, "KEEP"), (3, "KEEP"), (0, "KEEP"))
    assert "LIFE_LOST" in kinds(events)
    assert state.lives == (3, 3, 2, 3)  # seat 2's asso lost; seat 1 kept its lives
    assert state.dealer == 2  # the deal passes over the seat sitting out (SC-14)
    assert engine.view(state, None).sitting_out == (1,)


def test_sc_sit_in_is_dealt_into_the_next_hand() -> None:
    state, _, _ = run(table(3, sit_out=True), (0, "SIT_OUT", 1), (0, "SIT_IN", 1))
    assert state.sitting_out == ()
    state = deal(state, "5c 6b 7d").state
    assert all(card is not None for card in state.hand)


def test_sc_sit_out_every_other_seat_out_the_dealer_may_not_deal_but_may_sit_one_in() -> None:
    state, _, _ = run(table(3, sit_out=True), (0, "SIT_OUT", 1), (0, "SIT_OUT", 2))
    assert options_of(state, 0) == {("SIT_IN", 1), ("SIT_IN", 2)}
    with pytest.raises(Rejected) as refused:
        act(state, 0, "DEAL")
    assert refused.value.reason is Reason.ILLEGAL_ACTION


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        (Action(0, "SIT_OUT", target=0), Reason.ILLEGAL_ACTION),  # the dealer never sits out
        (Action(0, "SIT_IN", target=2), Reason.ILLEGAL_ACTION),
        (Action(1, "SIT_IN", target=1), Reason.NOT_YOUR_TURN),
    ],
)
def test_sc_sit_out_illegal_moves_are_refused_and_the_state_untouched(action: Action, reason: Reason) -> None:
    state, _, _ = run(table(3, sit_out=True), (0, "SIT_OUT", 1))
    raw = engine.state_to_bytes(state)
    with pytest.raises(Rejected) as refused:
        engine.apply(state, action)
    assert refused.value.reason is reason
    assert engine.state_to_bytes(state) == raw


def test_sc_sit_out_a_dead_seat_cannot_sit_out_and_a_seat_sitting_out_gives_no_life() -> None:
    state = with_lives(table(4, sit_out=True), (3, 0, 2, 3))
    assert ("SIT_OUT", 1) not in options_of(state, 0)
    state, _, _ = run(state, (0, "SIT_OUT", 2))
    assert {target for kind, target in options_of(state, 1) if kind == "REVIVE"} == {0, 3}


def test_sc_sit_out_the_dealer_who_dies_beside_seats_sitting_out_passes_the_deal_to_one_who_sits_in() -> None:
    state = with_lives(table(4, sit_out=True, all_dead_hand="SPLIT_POT"), (1, 3, 3, 1))
    state, _, _ = run(state, (0, "SIT_OUT", 1), (0, "SIT_OUT", 2))
    state = deal(state, "Ad Ab").state  # seat 3, then the dealer 0: both lowest, both die
    state, events, _ = run(state, (3, "KEEP"), (0, "KEEP"))
    assert state.lives == (0, 3, 3, 0) and not engine.is_over(state)  # the seats sitting out live on
    assert state.dealer == 1 and state.sitting_out == (2,)
    assert ("SAT_IN", 1, 1) in [(e.kind, e.seat, e.target) for e in events]
    engine.registry.check_state(state)


def test_sc_sit_out_codec_round_trip_and_a_token_without_the_field_still_decodes() -> None:
    state, _, _ = run(table(4, sit_out=True), (0, "SIT_OUT", 3))
    assert engine.state_from_bytes(engine.state_to_bytes(state)) == state
    fmt, game, rules, body = msgspec.msgpack.decode(engine.state_to_bytes(table(4)))
    older = msgspec.msgpack.encode([fmt, game, rules, body[:-1]])  # as the build before it wrote a state
    assert engine.state_from_bytes(older) == table(4)


def test_sc_sit_out_states_legal_play_never_reaches_are_refused() -> None:
    state = table(4, sit_out=True)
    refused_at(replace(state, sitting_out=(0,)), "state.sitting_out")  # the dealer
    refused_at(with_lives(replace(state, sitting_out=(1,)), (3, 0, 3, 3)), "state.sitting_out")  # a dead seat
    refused_at(replace(table(4), sitting_out=(1,)), "state.sitting_out")  # the rules do not allow it
    dealt = deal(state, "5c 6b 7d Ad").state
    refused_at(replace(dealt, sitting_out=(2,)), "state.hand[2]")  # dealt in while sitting out
