"""Trentuno's play-outs on plain integers (engine/bots/trentuno) against the same play-outs through
``engine.apply``: every chip result and outcome, and the advice and ``best`` choices they make, identical.

The reference here is written from the engine alone: the determinization of the seat's view, then the action and
the ``cautious`` policy applied by ``engine.apply`` until the deal's HAND_OVER, cut after a number of moves."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest

from mazziere import engine
from mazziere.engine import chance
from mazziere.engine.bots import choose, sampled, trentuno
from mazziere.engine.bots.advise import actions_of
from mazziere.engine.bots.cautious import cautious
from mazziere.engine.bots.hidden import Hidden, determinize
from mazziere.engine.bots.outcomes import CLASSIFY
from mazziere.engine.table import Action, Seat, TableState

TABLES: list[tuple[str, int, Mapping[str, Any], tuple[int, ...]]] = [
    ("CLASSICO", 3, {}, (100,)),
    ("CLASSICO", 5, {}, (1, 2, 3, 100)),  # seats run out of chips: the game ends and the pot left goes to its heir
    ("CLASSICO", 9, {"ante": 2}, (2, 3, 5, 100)),
    ("VITE", 4, {"lives": 1}, (100,)),  # the first lives lost end the game
    ("VITE", 7, {}, (100,)),
    ("LETTERALE", 6, {"max_rounds": 1}, (100,)),  # TR-14 after one round
    ("LETTERALE", 9, {"max_rounds": 2}, (100,)),
]


def _decisions(preset: str, seats: int, options: Mapping[str, Any], chips: tuple[int, ...], count: int) -> list[
    tuple[TableState, int]
]:  # fmt: skip
    """``count`` decisions with a choice in a deal in play, from random legal play (seeded)."""
    rng = random.Random(f"{preset}/{seats}/{sorted(options.items())}/{chips}")
    out: list[tuple[TableState, int]] = []
    table = 0
    while len(out) < count:
        people = [Seat(f"s{s}", rng.choice(chips)) for s in range(seats)]
        seed = b"%d" % table + b"playout"
        state = engine.new_table("trentuno", people, seed=seed, preset=preset, options=options).state
        table += 1
        while not engine.is_over(state) and len(out) < count:
            seat = sampled.next_actor(state)
            entries = engine.legal_actions(state, seat)
            if entries[0].kind != "DEAL" and rng.random() < 0.4:
                out.append((state, seat))
            entry = rng.choice(entries)
            state = engine.apply(state, Action(seat, entry.kind, entry.min_amount, entry.target, entry.cards)).state
    return out


def _reference(state: TableState, seat: int, action: Action, moves: int) -> tuple[int, int]:
    """``action``, then the cautious policy through ``engine.apply`` until the deal ends or ``moves`` moves."""
    before = state.chips[seat]
    out = engine.apply(state, action)
    events = list(out.events)
    made = 0
    while not any(e.kind == "HAND_OVER" for e in events) and made < moves:
        actor = sampled.next_actor(out.state)
        out = engine.apply(out.state, cautious(out.state, actor))
        events.extend(out.events)
        made += 1
    delta = out.state.chips[seat] - before
    return delta, CLASSIFY["trentuno"](seat, delta, events)[0]


@pytest.mark.parametrize(("preset", "seats", "options", "chips"), TABLES)
def test_tr9_to_tr14_playouts_equal_the_engines(
    preset: str, seats: int, options: Mapping[str, Any], chips: tuple[int, ...]
) -> None:
    """Every action of every decision on two orderings of the unseen cards: the same chips and outcome."""
    for state, seat in _decisions(preset, seats, options, chips, 6):
        hidden = Hidden(state, seat)
        start = trentuno.start(state, seat, hidden.owned, sampled.MAX_STEPS)
        assert start is not None
        for salt in range(2):
            order = chance.shuffled(hidden.cards, b"order", salt)
            dealt = start.deal(order)
            det = determinize(state, seat, order, state.seed)
            for action in actions_of(engine.legal_actions(state, seat), seat):
                assert start.play(dealt, action) == _reference(det, seat, action, sampled.MAX_STEPS)


def test_a_playout_cut_after_so_many_moves_equals_the_engines() -> None:
    """The guard on a play-out's length: cut after 0 to 5 moves, nobody has won and no chip has moved."""
    for state, seat in _decisions("CLASSICO", 7, {}, (100,), 3):
        hidden = Hidden(state, seat)
        order = chance.shuffled(hidden.cards, b"cut", 0)
        det = determinize(state, seat, order, state.seed)
        for moves in range(6):
            start = trentuno.start(state, seat, hidden.owned, moves)
            assert start is not None
            dealt = start.deal(order)
            for action in actions_of(engine.legal_actions(state, seat), seat):
                assert start.play(dealt, action) == _reference(det, seat, action, moves)


def _through_engine(state: TableState, seat: int) -> Action:
    """The cautious policy under another name: sampled advice then plays out through ``engine.apply``."""
    return cautious(state, seat)


@pytest.mark.parametrize(("preset", "seats", "options", "chips"), TABLES[:5])
def test_sampled_advice_and_best_are_the_engines(
    preset: str, seats: int, options: Mapping[str, Any], chips: tuple[int, ...]
) -> None:
    """The advice (every figure, to the last bit) and the raced choice of ``best`` are those of play-outs through
    ``engine.apply``: the same determinizations, the same results, in the same order."""
    classify = CLASSIFY["trentuno"]
    for state, seat in _decisions(preset, seats, options, chips, 3):
        actions = actions_of(engine.legal_actions(state, seat), seat)
        for samples, race in ((24, False), (16, True)):
            fast = sampled.evaluate(state, seat, actions, cautious, classify, samples, race=race)
            slow = sampled.evaluate(state, seat, actions, _through_engine, classify, samples, race=race)
            assert fast == slow


def test_no_fast_playout_outside_a_deal_in_play() -> None:
    """Before the deal (a DEAL shuffles) and for a seat whose turn it is not, play-outs go through the engine."""
    state = engine.new_table("trentuno", [Seat(f"s{s}", 100) for s in range(3)], seed=b"wait").state
    dealer = engine.to_act(state)[0]
    assert trentuno.start(state, dealer, Hidden(state, dealer).owned, sampled.MAX_STEPS) is None
    state = engine.apply(state, choose("cautious", state, dealer)).state
    if engine.to_act(state):
        other = (engine.to_act(state)[0] + 1) % 3
        assert trentuno.start(state, other, Hidden(state, other).owned, sampled.MAX_STEPS) is None
