"""Sitting out (option ``sit_out``, docs/rules/sette-e-mezzo.md "Sitting out"): the bank sits a player out of the
next hands between hands, or back in; he is not dealt in, pays and is paid nothing, keeps his chips."""

from __future__ import annotations

import msgspec
import pytest

from mazziere import engine
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.table import Action, Seat
from tests.helpers import refused_at, replace, stacked
from tests.sette_e_mezzo.table import Run


def between_hands(seats: int = 3, chips: int = 20, **options: object) -> Run:
    """A table before its first deal, seat 0 the bank, sitting out allowed."""
    people = [Seat(f"p{i}", chips) for i in range(seats)]
    opts = {"first_bank": "SEAT", "sit_out": True, **options}
    return Run(engine.new_table("sette_e_mezzo", people, seed=b"sit", options=opts).state)


def sit(run: Run, kind: str, target: int) -> Run:
    out = engine.apply(run.state, Action(run.state.bank, kind, target=target))
    run.state = out.state
    run.events.extend(out.events)
    return run


def entries(run: Run, seat: int) -> set[tuple[str, int | None]]:
    return {(e.kind, e.target) for e in engine.legal_actions(run.state, seat)}


def test_sm_sit_out_is_offered_to_the_bank_only_between_hands_and_only_with_the_option() -> None:
    run = between_hands()
    assert entries(run, 0) == {("DEAL", None), ("SIT_OUT", 1), ("SIT_OUT", 2)}
    assert engine.to_act(run.state) == (0,)  # the bank alone acts between hands
    people = [Seat(f"p{i}", 20) for i in range(3)]
    plain = engine.new_table("sette_e_mezzo", people, seed=b"sit", options={"first_bank": "SEAT"}).state
    assert {e.kind for e in engine.legal_actions(plain, 0)} == {"DEAL"}


def test_sm_sit_out_not_dealt_in_pays_nothing_and_keeps_his_chips() -> None:
    run = sit(between_hands(), "SIT_OUT", 1)
    assert run.state.sitting_out == (1,)
    assert [(e.kind, e.seat, e.target) for e in run.events] == [("SAT_OUT", 1, 0)]
    assert entries(run, 0) == {("DEAL", None), ("SIT_OUT", 2), ("SIT_IN", 1)}
    with stacked("5d 6c"):  # seat 2, then the bank
        run.do("0 DEAL")
    hands = run.state.hands
    assert not hands[1].cards and hands[1].status.value == "OUT"
    assert len(hands[2].cards) == 1 and len(hands[0].cards) == 1
    assert run.state.turn == 2
    run.do("2 STAKE 5", "2 STAND", "0 STAND")
    assert run.state.chips[1] == 20  # the seat sitting out neither paid nor was paid
    assert sum(run.state.chips) == 60
    assert engine.view(run.state, None).sitting_out == (1,)


def test_sm_sit_in_is_dealt_into_the_next_hand() -> None:
    run = sit(sit(between_hands(), "SIT_OUT", 1), "SIT_IN", 1)
    assert run.state.sitting_out == ()
    with stacked("5d 6c 7b"):
        run.do("0 DEAL")
    assert all(h.cards for h in run.state.hands)


def test_sm_sit_out_every_player_out_the_bank_may_not_deal_but_may_sit_one_in() -> None:
    run = sit(sit(between_hands(), "SIT_OUT", 1), "SIT_OUT", 2)
    assert entries(run, 0) == {("SIT_IN", 1), ("SIT_IN", 2)}
    assert not engine.is_over(run.state) and engine.to_act(run.state) == (0,)
    before = run.state
    with pytest.raises(Rejected) as refused:
        engine.apply(before, Action(0, "DEAL"))
    assert refused.value.reason is Reason.ILLEGAL_ACTION
    assert run.state == before


@pytest.mark.parametrize(
    ("seat", "action", "reason"),
    [
        (0, Action(0, "SIT_OUT", target=0), Reason.ILLEGAL_ACTION),  # the bank never sits out
        (0, Action(0, "SIT_IN", target=2), Reason.ILLEGAL_ACTION),  # seat 2 does not sit out
        (0, Action(0, "SIT_OUT", target=1), Reason.ILLEGAL_ACTION),  # seat 1 sits out already
        (1, Action(1, "SIT_IN", target=1), Reason.NOT_YOUR_TURN),  # a player does not sit himself in
        (2, Action(2, "SIT_OUT", target=2), Reason.NOT_YOUR_TURN),
    ],
)
def test_sm_sit_out_illegal_moves_are_refused_and_the_state_untouched(
    seat: int, action: Action, reason: Reason
) -> None:
    state = sit(between_hands(), "SIT_OUT", 1).state
    raw = engine.state_to_bytes(state)
    with pytest.raises(Rejected) as refused:
        engine.apply(state, action)
    assert refused.value.reason is reason
    assert engine.state_to_bytes(state) == raw


def test_sm_sit_out_not_during_a_hand() -> None:
    run = between_hands()
    with stacked("5d 6c 7b"):
        run.do("0 DEAL")
    assert {e.kind for e in engine.legal_actions(run.state, run.state.turn)} <= {"STAKE", "BURN"}
    with pytest.raises(Rejected) as refused:
        engine.apply(run.state, Action(1, "SIT_OUT", target=2))
    assert refused.value.reason is Reason.ILLEGAL_ACTION


def test_sm_sit_out_the_bank_passes_over_a_player_sitting_out() -> None:
    run = sit(between_hands(4, bank_passes_when="EVERY_HAND", bank_passes_on_reale=False), "SIT_OUT", 1)
    with stacked("5d 6c 4b"):  # seats 2, 3, then the bank
        run.do("0 DEAL")
    run.do("2 STAKE 1", "2 STAND", "3 STAKE 1", "3 STAND", "0 STAND")
    assert run.state.bank == 2  # seat 1 sits out: the bank skips it
    assert run.state.sitting_out == (1,)


def test_sm_sit_out_codec_round_trip_and_a_token_without_the_field_still_decodes() -> None:
    state = sit(between_hands(), "SIT_OUT", 2).state
    raw = engine.state_to_bytes(state)
    assert engine.state_from_bytes(raw) == state
    fmt, game, rules, body = msgspec.msgpack.decode(engine.state_to_bytes(between_hands().state))
    assert body[-1] == []  # the new field is written last
    older = msgspec.msgpack.encode([fmt, game, rules, body[:-1]])  # as the build before it wrote a state
    decoded = engine.state_from_bytes(older)
    assert decoded == between_hands().state and decoded.sitting_out == ()


def test_sm_sit_out_states_legal_play_never_reaches_are_refused() -> None:
    state = between_hands().state
    refused_at(replace(state, sitting_out=(0,)), "state.sitting_out")  # the bank
    refused_at(replace(state, sitting_out=(2, 1)), "state.sitting_out")  # not ascending
    refused_at(replace(state, sitting_out=(3,)), "state.sitting_out")  # no such seat
    plain = replace(state, rules=replace(state.rules, sit_out=False))
    refused_at(replace(plain, sitting_out=(1,)), "state.sitting_out")  # the rules do not allow it
    run = between_hands()
    with stacked("5d 6c 7b"):
        run.do("0 DEAL")
    refused_at(replace(run.state, sitting_out=(1,)), "state.hands[1]")  # dealt in while sitting out
