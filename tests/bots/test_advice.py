"""Advice: exact Sette e mezzo against brute force through engine.apply, invariance under hidden cards, errors."""

from __future__ import annotations

import pytest

from mazziere import engine
from mazziere.engine import chance
from mazziere.engine.bots import POLICIES, ActionAdvice, Advice, advise, choose, sampled
from mazziere.engine.bots.cautious import cautious
from mazziere.engine.bots.hidden import Hidden, determinize
from mazziere.engine.bots.outcomes import CLASSIFY
from mazziere.engine.bots.stop import Poll
from mazziere.engine.errors import Reason
from mazziere.engine.registry import check_state
from mazziere.engine.table import Action, Seat


def _casino(seed: bytes, players: int = 1) -> engine.TableState:
    seats = [Seat("house", 1000)] + [Seat(f"p{i}", 100) for i in range(players)]
    state = engine.new_table("sette_e_mezzo", seats, seed=seed, preset="CASINO").state
    return engine.apply(state, Action(0, "DEAL")).state


def _at(state: engine.TableState, phase: str) -> engine.TableState:
    """Play cautiously until a player's ``phase`` (STAKE or DECIDE) comes."""
    while state.phase.value != phase:
        seat = engine.to_act(state)[0]
        state = engine.apply(state, cautious(state, seat)).state
    return state


def _check(advice: Advice) -> None:
    for a in advice.actions:
        assert a.win + a.push + a.lose == pytest.approx(1.0)
        assert 0.0 <= a.bust <= a.lose + 1e-12


def test_sm_stand_advice_equals_brute_force() -> None:
    """A stand's exact value equals every ordering of the stock played out by engine.apply (the house draws),
    on decisions where the house's up card leaves few orderings (it stands on 5, so from 4 it draws little)."""
    compared = 0
    for i in range(40):
        state = _at(engine.apply(_at(_casino(b"brute%d" % i), "STAKE"), Action(1, "STAKE", 1)).state, "DECIDE")
        advice = advise(state, 1)
        assert advice.method == "EXACT"
        _check(advice)
        stand = [a for a in advice.actions if a.action.kind == "STAND"]
        if not stand or state.hands[0].points < 8:
            continue
        try:
            brute = sampled._exact(
                state,
                1,
                Hidden(state, 1),
                b"k",
                [stand[0].action],
                cautious,
                CLASSIFY["sette_e_mezzo"],
                3000,
                Poll(None),
            ).actions[0]
        except sampled._TooBig:
            continue
        assert stand[0].expected == pytest.approx(brute.expected)
        assert (stand[0].win, stand[0].push, stand[0].lose) == pytest.approx((brute.win, brute.push, brute.lose))
        compared += 1
        if compared == 3:
            return
    assert compared >= 2


def test_sm_hit_is_the_mean_of_the_next_best_decision() -> None:
    """A hit's value is the mean over the next card of the better of standing and hitting again, by hand."""
    state = _at(engine.apply(_at(_casino(b"hit"), "STAKE"), Action(1, "STAKE", 1)).state, "DECIDE")
    advice = {a.action.kind: a for a in advise(state, 1).actions}
    hidden = Hidden(state, 1)
    total = 0.0
    for i, card in enumerate(hidden.cards):
        order = (card, *hidden.cards[:i], *hidden.cards[i + 1 :])
        after = engine.apply(determinize(state, 1, order, state.seed), Action(1, "HIT")).state
        if engine.legal_actions(after, 1):
            total += max(a.expected for a in advise(after, 1).actions)
        else:  # the hand ended for him: 7½ (stands) or a bust
            h = after.hands[1]
            total += -1.0 if h.status.value == "BUST" else _stood_value(state, card)
    assert advice["HIT"].expected == pytest.approx(total / len(hidden.cards))


def _stood_value(state: engine.TableState, card: engine.Card) -> float:
    from mazziere.engine.bots import sette_e_mezzo as sm

    t0 = sm.profile_of(state.rules)
    bank = t0.hand([state.hands[0].cards[0].card])
    t = sm.profile_of(state.rules, bank)
    own = t.hand([tc.card for tc in state.hands[1].cards] + [card])
    pool = list(Hidden(state, 1).cards)
    pool.remove(card)
    return sm.Turn(t, 0, 0, None, 0).stand(own, t.pool(pool), 1)[0]


def _permuted(state: engine.TableState, seat: int, salt: int) -> engine.TableState:
    """The same state with every card ``seat`` may not see dealt again in another order (seed unchanged)."""
    hidden = Hidden(state, seat)
    order = chance.shuffled(hidden.cards, b"permute", salt)
    new = determinize(state, seat, order, state.seed)
    check_state(new)
    return new


def _states(game: str, preset: str | None, seats: int, steps: int) -> list[engine.TableState]:
    state = engine.new_table(game, [Seat(f"s{i}", 100) for i in range(seats)], seed=b"inv", preset=preset).state
    out = []
    for _ in range(steps):
        if engine.is_over(state):
            break
        seat = sampled.next_actor(state)
        out.append(state)
        state = engine.apply(state, choose("random", state, seat)).state
    return out


@pytest.mark.parametrize(
    ("game", "preset", "seats", "samples"),
    [
        ("sette_e_mezzo", "CLASSICO", 4, None),
        ("sette_e_mezzo", "CASINO", 3, None),
        ("saltacavallo", None, 4, 6),
        ("trentuno", None, 3, 4),
    ],
)
def test_advice_depends_only_on_the_view(game: str, preset: str | None, seats: int, samples: int | None) -> None:
    """Change every card the seat cannot see (stock, other seats' face-down cards): the advice is the same."""
    checked = 0
    for state in _states(game, preset, seats, 14):
        seat = sampled.next_actor(state)
        if any(e.kind == "DEAL" for e in engine.legal_actions(state, seat)):
            continue
        before = advise(state, seat, samples=samples)
        for salt in range(2):
            other = _permuted(state, seat, salt)
            assert advise(other, seat, samples=samples) == before
        checked += 1
    assert checked >= 3


def test_advice_entries_follow_legal_actions_and_stake_range() -> None:
    state = _at(_casino(b"stake"), "STAKE")
    advice = advise(state, 1)
    assert [(a.action.kind, a.action.amount) for a in advice.actions] == [("STAKE", 1), ("STAKE", 10)]
    low, high = advice.actions
    assert high.expected == pytest.approx(10 * low.expected)
    assert isinstance(low, ActionAdvice)


def test_advice_for_a_seat_that_may_not_act_is_empty() -> None:
    state = _at(_casino(b"empty"), "STAKE")
    assert advise(state, 0).actions == ()


def test_sampled_advice_states_its_samples_and_errors() -> None:
    state = _states("trentuno", None, 3, 3)[-1]
    seat = sampled.next_actor(state)
    advice = advise(state, seat, samples=5)
    assert (advice.method, advice.samples) == ("SAMPLED", 5)
    _check(advice)
    assert any(a.stderr > 0 for a in advice.actions)


def test_unknown_policy_is_rejected() -> None:
    state = _casino(b"unknown")
    with pytest.raises(engine.Rejected) as err:
        choose("clever", state, 1)
    assert err.value.reason is Reason.UNKNOWN_POLICY


def test_choose_for_a_seat_not_to_act_is_not_your_turn() -> None:
    state = _at(_casino(b"turn"), "STAKE")
    with pytest.raises(engine.Rejected) as err:
        choose("best", state, 0)
    with pytest.raises(engine.Rejected) as applied:
        engine.apply(state, Action(0, "HIT"))
    assert err.value.reason is applied.value.reason is Reason.NOT_YOUR_TURN
    assert err.value.message == applied.value.message


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(
    ("game", "preset"), [("sette_e_mezzo", "CLASSICO"), ("saltacavallo", None), ("trentuno", None)]
)
def test_policies_are_deterministic_and_legal(policy: str, game: str, preset: str | None) -> None:
    for state in _states(game, preset, 3, 8):
        seat = sampled.next_actor(state)
        action = choose(policy, state, seat)
        assert choose(policy, state, seat) == action
        engine.apply(state, action)  # legal: raises otherwise


def test_racing_drops_only_an_action_that_clearly_trails() -> None:
    """Paired results: action 1 loses 2 chips more on every sample, action 2 differs by noise that averages 0,
    action 3 is the leader's twin; only action 1 is dropped."""
    lead = [(-1) ** i * 4 for i in range(16)]
    noise = [x + (3 if i % 4 < 2 else -3) for i, x in enumerate(lead)]
    deltas = [lead, [x - 2 for x in lead], noise, list(lead)]
    assert sampled._survivors([0, 1, 2, 3], deltas) == [0, 2, 3]


def test_raced_sampled_advice_keeps_only_full_counts() -> None:
    """A Trentuno decision sampled with and without racing: racing drops some actions and leaves them out; every
    action it keeps has the figures of all 48 samples (identical to the unraced ones), the leader among them."""
    state = engine.new_table("trentuno", [Seat(f"p{i}", 20) for i in range(3)], seed=b"race").state
    state = engine.apply(state, Action(engine.to_act(state)[0], "DEAL")).state
    seat = engine.to_act(state)[0]
    actions = tuple(e.example(seat) for e in engine.legal_actions(state, seat))
    args = (state, seat, actions, cautious, CLASSIFY["trentuno"], 48)
    full = sampled.evaluate(*args)
    raced = sampled.evaluate(*args, race=True)
    assert raced.samples == full.samples == 48
    assert 0 < len(raced.actions) < len(full.actions)
    assert set(raced.actions) <= set(full.actions)
    assert max(full.actions, key=lambda a: a.expected) in raced.actions
