"""``stop``: a callback the bots poll (never a clock). Exact advice cut short raises Stopped; sampled advice answers
with the samples completed; a stop that stays False changes nothing."""

from __future__ import annotations

import msgspec
import pytest

from mazziere import engine
from mazziere.engine.bots import Advice, Stopped, advise, choose
from mazziere.engine.bots import sette_e_mezzo as sm
from mazziere.engine.bots.policies import BEST_SAMPLES
from mazziere.engine.table import Action, Seat
from tests.sette_e_mezzo.table import table


class AfterPolls:
    """A stop that turns True after ``k`` polls (and counts them)."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.polls = 0

    def __call__(self) -> bool:
        self.polls += 1
        return self.polls > self.k


def _never() -> bool:
    return False


def _bytes(advice: Advice) -> bytes:
    return msgspec.msgpack.encode(advice, enc_hook=str)  # cards as their names


def _sette_e_mezzo_decision() -> engine.TableState:
    """A player holding a 2 (staked 1) decides, a player after him: a long enumeration on a cold table."""
    return table("2c Fb 5d", seats=3).do("1 STAKE 1").state


def _trentuno_decision() -> engine.TableState:
    state = engine.new_table("trentuno", [Seat(f"p{i}", 20) for i in range(3)], seed=b"stop").state
    return engine.apply(state, Action(engine.to_act(state)[0], "DEAL")).state


def test_exact_advice_cut_short_raises_stopped() -> None:
    state = _sette_e_mezzo_decision()
    seat = engine.to_act(state)[0]
    sm.MEMO.clear()  # a cold table: the enumeration has work to do
    stop = AfterPolls(2)
    with pytest.raises(Stopped):
        advise(state, seat, stop=stop)
    assert stop.polls == 3  # it stopped at the first poll that said True
    sm.MEMO.clear()
    assert advise(state, seat).method == "EXACT"  # nothing partial was kept


def test_sampled_advice_stopped_answers_with_the_samples_played() -> None:
    """Stopped after 3 samples and one more play-out of a decision with n actions: the 3 samples every action
    completed, the same figures as asking for 3 samples."""
    state = _trentuno_decision()
    seat = engine.to_act(state)[0]
    n = len(advise(state, seat, samples=1).actions)
    cut = advise(state, seat, samples=50, stop=AfterPolls(3 * n + 1))
    assert (cut.method, cut.samples) == ("SAMPLED", 3)
    assert _bytes(cut) == _bytes(advise(state, seat, samples=3))


def test_sampled_advice_stopped_before_two_samples_raises() -> None:
    state = _trentuno_decision()
    seat = engine.to_act(state)[0]
    with pytest.raises(Stopped):
        advise(state, seat, samples=50, stop=AfterPolls(1))


def test_a_stop_that_stays_false_changes_no_answer() -> None:
    sm_state = _sette_e_mezzo_decision()
    tr_state = _trentuno_decision()
    for state, samples in ((sm_state, None), (sm_state, 6), (tr_state, 6), (tr_state, None)):
        seat = engine.to_act(state)[0]
        plain = advise(state, seat, samples=samples)
        sm.MEMO.clear()
        stopped = advise(state, seat, samples=samples, stop=_never)
        assert _bytes(stopped) == _bytes(plain)
        assert choose("best", state, seat, stop=_never) == choose("best", state, seat)


def test_best_stopped_while_sampling_plays_the_best_of_the_samples_so_far() -> None:
    state = _trentuno_decision()
    seat = engine.to_act(state)[0]
    legal = {(e.kind, e.cards) for e in engine.legal_actions(state, seat)}
    action = choose("best", state, seat, stop=AfterPolls(3 * BEST_SAMPLES))
    assert (action.kind, action.cards) in legal
    with pytest.raises(Stopped):
        choose("best", state, seat, stop=AfterPolls(0))
