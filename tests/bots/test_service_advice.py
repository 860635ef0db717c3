"""The service's Advise and auto-play around the bots: each action's basis and error bound in the answer, and a
stop that has turned True answered with DEADLINE_EXCEEDED."""

from __future__ import annotations

import grpc
import pytest

from mazziere import engine
from mazziere.engine.bots import sette_e_mezzo as sm
from mazziere.engine.bots.sette_e_mezzo import bank_advice
from mazziere.engine.table import Action, Seat
from mazziere.services.core.call import Call
from mazziere.services.errors import ServiceError
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.table.sealing import Keyring
from mazziere.services.table.service import TableService

CORE = TableService(Keyring([("k", bytes(32))]), trusted_mode=True)


def _bank_to_decide() -> engine.TableState:
    """Two players stood with a face-down card each; the bank (seat 0) is to decide."""
    seats = [Seat("bank", 100), Seat("p1", 100), Seat("p2", 100)]
    options = {"first_bank": "SEAT", "first_bank_seat": 0}
    state = engine.new_table("sette_e_mezzo", seats, seed=b"basis", options=options, table_id="t").state
    state = engine.apply(state, Action(0, "DEAL")).state
    while state.phase.value != "BANK":
        seat = state.turn
        kind = "STAKE" if state.phase.value == "STAKE" else "STAND"
        state = engine.apply(state, Action(seat, kind, 1 if kind == "STAKE" else 0)).state
    return state


def _advise(state: engine.TableState, seat: int, call: Call | None = None, samples: int = 0) -> svc.AdviseResponse:
    request = svc.AdviseRequest(table_id="t", state=engine.state_to_bytes(state), seat=seat, samples=samples)
    return CORE.advise(request, call or Call())


def test_advise_says_how_each_action_was_found(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _bank_to_decide()
    exact = _advise(state, 0)
    assert {(a.basis, a.error_bound) for a in exact.actions} == {(svc.ADVICE_BASIS_EXACT, 0.0)}
    sampled = _advise(state, 0, samples=4)
    assert {a.basis for a in sampled.actions} == {svc.ADVICE_BASIS_SAMPLED}
    monkeypatch.setattr(bank_advice, "BANK_EXACT_ASSIGNMENTS", 0)
    sm.MEMO.clear()
    approximate = _advise(state, 0)
    assert exact.method == approximate.method == svc.ADVICE_METHOD_EXACT
    assert {(a.basis, a.error_bound) for a in approximate.actions} == {
        (svc.ADVICE_BASIS_APPROXIMATE, sm.BANK_APPROX_ERROR * 2)
    }
    sm.MEMO.clear()


def test_advise_and_auto_play_stopped_are_deadline_exceeded() -> None:
    state = engine.new_table("sette_e_mezzo", [Seat("b", 100), Seat("p", 100)], seed=b"late", table_id="t").state
    state = engine.apply(state, Action(state.bank, "DEAL")).state
    seat = state.turn
    late = Call(stop=lambda: True)
    sm.MEMO.clear()
    with pytest.raises(ServiceError) as advised:
        _advise(state, seat, late)
    act = svc.ActRequest(table_id="t", state=engine.state_to_bytes(state), auto_play="best", expected_seq=state.seq)
    act.auto_seat = seat
    sm.MEMO.clear()
    with pytest.raises(ServiceError) as played:
        CORE.act(act, late)
    for err in (advised.value, played.value):
        assert err.code == grpc.StatusCode.DEADLINE_EXCEEDED
