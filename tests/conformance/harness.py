"""Random-simulation conformance, after OpenSpiel's RandomSimTest: one harness for every game.

:func:`check_random_play` plays a table with random legal actions and checks, after every action, the engine's
invariants: chips conserved, events carrying only their kind's fields, codec round trip with canonical bytes, legal
actions non-empty until the game is over, unique and stably ordered, and offered to exactly the seats
``engine.to_act`` names; every view names the same seat in turn as ``engine.to_act``; on a sample of states (every
``every_action_stride``-th) **every** legal action of every acting seat applies, at the least and the greatest
amount, without touching the state; illegal ones are rejected with the state untouched; redaction invariance;
indifference to the process-wide ``random`` module; determinism (a replay gives the same bytes); and, every fourth
action, the service's fast update for every viewer against a plain reference.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest

from mazziere import engine
from mazziere.engine import registry
from mazziere.engine.cards import Card
from mazziere.engine.events import check_payload
from mazziere.engine.ledger import total
from mazziere.engine.table import Action, Outcome, Seat, TableState
from mazziere.engine.values import field_names, is_value
from mazziere.engine.visibility import TableCard, Viewer, redact
from tests.conformance.updates import check_updates
from tests.helpers import random_step, replace


def check_random_play(
    game_id: str,
    seat_count: int,
    *,
    preset: str | None = None,
    options: Mapping[str, Any] | None = None,
    chips: int = 100,
    seed: int = 0,
    max_actions: int = 400,
    hand_limit: int = 150,
    every_action_stride: int = 3,
) -> list[Action]:
    """Play ``max_actions`` random legal actions (or to the end); check every invariant. Returns the actions."""
    rng = random.Random(seed)
    seats = [Seat(f"p{i}", chips) for i in range(seat_count)]
    table_seed = seed.to_bytes(8, "big")
    first = engine.new_table(game_id, seats, seed=table_seed, preset=preset, options=options, table_id="t")
    state = first.state
    chips_total = total(state.chips, state.pot)
    actions: list[Action] = []
    outcomes: list[Outcome] = [first]
    for event in first.events:
        check_payload(event)
    since_hand = 0
    while not engine.is_over(state) and len(actions) < max_actions:
        check_state(state, chips_total)
        check_legal_actions(state)
        check_view_turns(state)
        if len(actions) % every_action_stride == 0:
            check_every_action(state, chips_total)
        check_rejections(state, rng)
        check_redaction(state, rng)
        random.seed(rng.random())  # the process-wide generator must not matter
        action = random_step(state, rng)
        outcome = engine.apply(state, action)
        for event in outcome.events:
            check_payload(event)  # an event carries only the fields its kind names
        check_events_redaction(state, action, outcome, rng)
        if len(actions) % 4 == 0:
            check_updates(outcome.state, outcome.events)
        actions.append(action)
        outcomes.append(outcome)
        state = outcome.state
        since_hand = 0 if any(e.kind in ("HAND_OVER", "GAME_OVER") for e in outcome.events) else since_hand + 1
        assert since_hand <= hand_limit, f"a hand of {game_id} lasted more than {hand_limit} actions"
    check_state(state, chips_total)
    check_view_turns(state)
    check_replay(game_id, seats, table_seed, preset, options, actions, outcomes)
    return actions


def check_state(state: TableState, chips_total: int) -> None:
    assert total(state.chips, state.pot) == chips_total, "chips not conserved"
    registry.check_state(state)  # every state legal play reaches is a consistent one
    raw = engine.state_to_bytes(state)
    assert engine.state_from_bytes(raw) == state, "codec round trip changed the state"
    assert engine.state_to_bytes(engine.state_from_bytes(raw)) == raw, "the byte form is not canonical"
    if not engine.is_over(state):
        assert engine.to_act(state), "nobody may act but the game is not over"
    else:
        assert not engine.to_act(state)
    for viewer in [None, *range(state.seat_count)]:
        engine.view(state, viewer)  # every view can be built


def check_legal_actions(state: TableState) -> None:
    """Legal actions are unique, in a stable order (the same on a decoded copy of the state), and offered to
    exactly the seats that ``engine.to_act`` names, which it lists once each in ascending order."""
    acting = engine.to_act(state)
    assert list(acting) == sorted(set(acting)), f"to_act {acting} is not ascending and unique"
    copy = engine.state_from_bytes(engine.state_to_bytes(state))
    for seat in range(state.seat_count):
        entries = engine.legal_actions(state, seat)
        assert len(set(entries)) == len(entries), f"seat {seat} is offered the same action twice: {entries}"
        assert engine.legal_actions(state, seat) == entries == engine.legal_actions(copy, seat), "unstable order"
        assert bool(entries) == (seat in acting), f"seat {seat}: legal actions {entries} but to_act {acting}"


def check_every_action(state: TableState, chips_total: int) -> None:
    """Every legal action of every acting seat applies, at its least and greatest amount; each gives a new
    state numbered one more, with the chips conserved, and leaves ``state`` as it was."""
    before = engine.state_to_bytes(state)
    for seat in engine.to_act(state):
        for entry in engine.legal_actions(state, seat):
            for amount in dict.fromkeys((entry.min_amount, entry.max_amount)):
                action = Action(seat, entry.kind, amount, entry.target, entry.cards)
                outcome = engine.apply(state, action)
                after = outcome.state
                assert after is not state and after.seq == state.seq + 1, f"{action} did not number a new state"
                assert total(after.chips, after.pot) == chips_total, f"{action} did not conserve the chips"
                moved = [0] * (state.seat_count + 1)
                for t in outcome.settlement:
                    moved[t.payer] -= t.amount
                    moved[t.payee] += t.amount
                expected = tuple(c + d for c, d in zip(state.chips, moved, strict=False))
                assert after.chips == expected, f"{action}: the settlement does not explain the chips"
    assert engine.state_to_bytes(state) == before, "applying an action changed the state it was applied to"


def view_turn(view: Any) -> int | None:
    """The seat a view names as the one to act: its ``to_act``, or its ``turn``."""
    named: int | None = view.to_act if hasattr(view, "to_act") else view.turn
    return named


def check_view_turns(state: TableState) -> None:
    """Every viewer's view names the same seat in turn, and ``engine.to_act`` agrees: nobody once the game is
    over; the named seat alone otherwise. A view that names nobody while the game goes on (Saltacavallo between
    hands and at the dealer's turn) leaves the move to its dealer, and to dead seats that may be revived."""
    acting = engine.to_act(state)
    named = {view_turn(engine.view(state, viewer)) for viewer in [None, *range(state.seat_count)]}
    assert len(named) == 1, f"views disagree on whose turn it is: {named}"
    seat = named.pop()
    if engine.is_over(state):
        assert seat is None and acting == (), f"the game is over but the view names {seat}, to_act {acting}"
    elif seat is not None:
        assert acting == (seat,), f"the view names seat {seat} in turn, engine.to_act says {acting}"
    else:
        view = engine.view(state, None)
        assert view.dealer in acting, f"the view names nobody and the dealer {view.dealer} may not act: {acting}"
        assert all(s == view.dealer or not view.alive[s] for s in acting), f"{acting}: not the dealer or dead"


def check_rejections(state: TableState, rng: random.Random) -> None:
    """Actions the rules forbid are refused with a reason, and the state is untouched."""
    before = engine.state_to_bytes(state)
    acting = set(engine.to_act(state))
    probes = [Action(state.seat_count, "STAND"), Action(rng.randrange(state.seat_count), "NO_SUCH_MOVE")]
    idle = [s for s in range(state.seat_count) if s not in acting]
    if idle:
        probes.append(Action(rng.choice(idle), "STAND"))
    seat = rng.choice(sorted(acting))
    for entry in engine.legal_actions(state, seat):
        probes.append(Action(seat, entry.kind, entry.max_amount + 1, entry.target, entry.cards))
        if entry.min_amount > 0:
            probes.append(Action(seat, entry.kind, entry.min_amount - 1, entry.target, entry.cards))
    for probe in probes:
        with pytest.raises(engine.Rejected):
            engine.apply(state, probe)
        assert engine.state_to_bytes(state) == before, f"{probe} changed the state"


def check_redaction(state: TableState, rng: random.Random) -> None:
    """A seat's view does not change when cards hidden from it, and the stock order, change."""
    for viewer in [None, *range(state.seat_count)]:
        other = scramble_hidden(state, viewer, rng)
        assert engine.view(other, viewer) == engine.view(state, viewer), f"view of {viewer} leaks hidden cards"


def check_events_redaction(state: TableState, action: Action, outcome: Outcome, rng: random.Random) -> None:
    """Events tell a seat no more than its view: if hidden cards change and the view after the
    action is the same, the seat's events are the same too."""
    for viewer in [None, *range(state.seat_count)]:
        other = scramble_hidden(state, viewer, rng)
        try:
            alt = engine.apply(other, action)
        except engine.Rejected:
            continue  # the scramble changed what is legal (e.g. a hidden total); nothing to compare
        if engine.view(alt.state, viewer) == engine.view(outcome.state, viewer):
            assert redact(alt.events, viewer) == redact(outcome.events, viewer), f"events leak to {viewer}"


def check_replay(
    game_id: str,
    seats: list[Seat],
    seed: bytes,
    preset: str | None,
    options: Mapping[str, Any] | None,
    actions: list[Action],
    outcomes: list[Outcome],
) -> None:
    """Same seed and same actions give byte-identical states, events and settlements."""
    random.seed(12345)
    replayed = [engine.new_table(game_id, seats, seed=seed, preset=preset, options=options, table_id="t")]
    for action in actions:
        replayed.append(engine.apply(replayed[-1].state, action))
    for a, b in zip(outcomes, replayed, strict=True):
        assert engine.state_to_bytes(a.state) == engine.state_to_bytes(b.state)
        assert a.events == b.events and a.settlement == b.settlement


def scramble_hidden(state: TableState, viewer: Viewer, rng: random.Random) -> TableState:
    """``state`` with every card hidden from ``viewer`` (seat cards and the stock) shuffled among themselves."""
    hidden: list[Card] = []
    _walk(state, viewer, hidden.append)
    rng.shuffle(hidden)
    it = iter(hidden)
    return _walk(state, viewer, lambda _c: next(it))  # type: ignore[no-any-return]


def _walk(value: Any, viewer: Viewer, visit: Any, field: str = "") -> Any:
    if isinstance(value, TableCard):
        if value.card is not None and not value.seen_by.admits(viewer):
            return TableCard(visit(value.card) or value.card, value.seen_by)
        return value
    if isinstance(value, Card):
        return (visit(value) or value) if field == "stock" else value
    if isinstance(value, tuple):
        return tuple(_walk(v, viewer, visit, field) for v in value)
    if is_value(type(value)):
        changes = {
            name: _walk(v, viewer, visit, name)
            for name in field_names(type(value))
            if isinstance(v := getattr(value, name), tuple | TableCard) or is_value(type(v))
        }
        return replace(value, **changes) if changes else value
    return value
