"""Advice by playing each action out on determinizations: every arrangement of the unseen cards when they are few
enough (EXACT), otherwise ``samples`` orderings drawn from the view (SAMPLED). After the action, every seat (the
adviced one too) plays on by the ``cautious`` policy until the hand (deal) ends.

EXACT enumerates lazily: the face-down cards of other seats are fixed first, then only as many cards from the top
of the stock as the hand actually drew, each ordering weighted by its probability. It gives up (and samples) beyond
:data:`EXACT_LIMIT` playouts or when a playout shuffles (a new chance draw from the seed).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from mazziere.engine import apply, chance, is_over, legal_actions, to_act
from mazziere.engine.bots import trentuno
from mazziere.engine.bots.cautious import cautious
from mazziere.engine.bots.hidden import Hidden, determinize, view_key
from mazziere.engine.bots.stop import Poll, Stop, Stopped
from mazziere.engine.bots.values import EXACT, SAMPLED, ActionAdvice, Advice, mean_se
from mazziere.engine.cards import Card
from mazziere.engine.table import Action, Event, TableState

DEFAULT_SAMPLES = 200
"""Sampled determinizations when the caller names none."""
EXACT_LIMIT = 800
"""The most playouts (all actions together) an exact enumeration may take."""
RACE_ROUND = 8
"""Racing (:func:`evaluate`): samples between two looks at which actions trail."""
RACE_Z = 2.5
"""Racing: how many standard errors behind the leader an action may be before it is dropped."""
MAX_STEPS = 2000
"""A playout longer than this many actions is cut (a guard; no hand of ours comes near it)."""

Policy = Callable[[TableState, int], Action]
Classify = Callable[[int, int, Sequence[Event]], tuple[int, bool]]
"""(seat, chip delta, events of the playout) -> (outcome class: 1 win, 0 push, -1 lose; busted)."""


class _Result:
    __slots__ = ("bust", "delta", "drawn", "outcome", "shuffled")

    def __init__(self, delta: int, outcome: int, bust: bool, drawn: int, shuffled: bool) -> None:
        self.delta, self.outcome, self.bust, self.drawn, self.shuffled = delta, outcome, bust, drawn, shuffled


class _TooBig(Exception):
    pass


class _Engine:
    """Play-outs through ``engine.apply`` on a determinization: any game, any policy."""

    __slots__ = ("classify", "det", "policy", "seat", "state")

    def __init__(self, state: TableState, seat: int, policy: Policy, classify: Classify) -> None:
        self.state, self.seat, self.policy, self.classify = state, seat, policy, classify
        self.det = state

    def deal(self, order: Sequence[Card], seed: bytes) -> None:
        self.det = determinize(self.state, self.seat, order, seed)

    def play(self, action: Action) -> _Result:
        return playout(self.det, self.seat, action, self.policy, self.classify)


class _Trentuno:
    """Play-outs of a Trentuno deal in play by the cautious policy, on plain integers
    (:mod:`mazziere.engine.bots.trentuno`): the figures :class:`_Engine` gives, without a state per step."""

    __slots__ = ("dealt", "start")

    def __init__(self, start: trentuno.DealStart) -> None:
        self.start = start
        self.dealt: trentuno.Deal = []

    def deal(self, order: Sequence[Card], seed: bytes) -> None:
        self.dealt = self.start.deal(order)

    def play(self, action: Action) -> _Result:
        delta, outcome = self.start.play(self.dealt, action)
        return _Result(delta, outcome, False, 0, False)


def _playouts(state: TableState, seat: int, hidden: Hidden, policy: Policy, classify: Classify) -> _Engine | _Trentuno:
    """The fastest play-outs that give the engine's figures for this decision."""
    if policy is cautious:
        start = trentuno.start(state, seat, hidden.owned, MAX_STEPS)
        if start is not None:
            return _Trentuno(start)
    return _Engine(state, seat, policy, classify)


def playout(state: TableState, seat: int, action: Action, policy: Policy, classify: Classify) -> _Result:
    """Play ``action`` then ``policy`` for every seat until the hand is over; the seat's chips and outcome."""
    before = state.chips[seat]
    out = apply(state, action)
    events = list(out.events)
    steps = 0
    while not _hand_over(out.events) and not is_over(out.state) and steps < MAX_STEPS:
        actor = next_actor(out.state)
        out = apply(out.state, policy(out.state, actor))
        events.extend(out.events)
        steps += 1
    final = out.state
    outcome, bust = classify(seat, final.chips[seat] - before, events)
    drawn = len(state.stock) - len(final.stock)  # type: ignore[attr-defined]
    return _Result(final.chips[seat] - before, outcome, bust, drawn, final.draws != state.draws)


def next_actor(state: TableState) -> int:
    """The seat a simulation lets act: the one who deals when several may act (revivals wait for no one)."""
    seats = to_act(state)
    if len(seats) > 1:
        for s in seats:
            if any(entry.kind == "DEAL" for entry in legal_actions(state, s)):
                return s
    return seats[0]


def _hand_over(events: Sequence[Event]) -> bool:
    return any(e.kind == "HAND_OVER" for e in events)


class _Tally:
    __slots__ = ("bust", "lose", "n", "push", "sq", "total", "win")

    def __init__(self) -> None:
        self.n = self.total = self.sq = self.win = self.push = self.lose = self.bust = 0.0

    def add(self, r: _Result, weight: float) -> None:
        self.n += weight
        self.total += weight * r.delta
        self.sq += weight * r.delta * r.delta
        self.win += weight * (r.outcome > 0)
        self.push += weight * (r.outcome == 0)
        self.lose += weight * (r.outcome < 0)
        self.bust += weight * r.bust

    def advice(self, action: Action, samples: int) -> ActionAdvice:
        n = self.n or 1.0
        mean = self.total / n
        stderr = 0.0
        if samples > 1:
            var = max(self.sq / n - mean * mean, 0.0) * samples / (samples - 1)
            stderr = math.sqrt(var / samples)
        basis = SAMPLED if samples else EXACT
        return ActionAdvice(action, mean, self.win / n, self.push / n, self.lose / n, self.bust / n, stderr, basis)


def evaluate(
    state: TableState,
    seat: int,
    actions: Sequence[Action],
    policy: Policy,
    classify: Classify,
    samples: int | None,
    fallback: int = DEFAULT_SAMPLES,
    exact_limit: int = EXACT_LIMIT,
    race: bool = False,
    stop: Stop | None = None,
    least: int = 2,
) -> Advice:
    """Advice for ``actions`` of ``seat``: exact when the unseen cards allow it (and ``samples`` is None).

    ``race`` (for a policy that only needs the best action): sampling goes in rounds of :data:`RACE_ROUND`, and
    an action that trails the leader by more than :data:`RACE_Z` standard errors of their paired difference (the
    same determinizations) is dropped and left out of the advice, so every action advised rests on ``samples``.

    ``stop`` is asked before every play-out: once it is True an exact enumeration raises :class:`Stopped`, and
    sampling answers with the samples every action completed (``samples`` says how many), or raises
    :class:`Stopped` if it stopped with fewer than ``least``."""
    hidden = Hidden(state, seat)
    key = view_key(state, seat)
    poll = Poll(stop)
    if samples is None and not any(a.kind == "DEAL" for a in actions):  # a deal shuffles: never exact
        try:
            return _exact(state, seat, hidden, key, actions, policy, classify, exact_limit, poll)
        except _TooBig:
            samples = fallback
    samples = max(1, samples if samples is not None else fallback)
    playouts = _playouts(state, seat, hidden, policy, classify)
    tallies = [_Tally() for _ in actions]
    deltas: list[list[int]] = [[] for _ in actions]  # per action, each sample's result: racing compares them
    live = list(range(len(actions)))
    done = 0
    while done < samples:
        seed = key + done.to_bytes(4, "big")
        order = chance.shuffled(hidden.cards, seed, 0)
        playouts.deal(order, seed)
        results = []
        for a in live:
            if poll.due():
                break
            results.append(playouts.play(actions[a]))
        if len(results) < len(live):
            break  # stopped inside this sample: it is left out, so every action rests on the same samples
        for a, result in zip(live, results, strict=True):
            tallies[a].add(result, 1.0)
            if race:
                deltas[a].append(result.delta)
        done += 1
        if race and done % RACE_ROUND == 0 and len(live) > 1:
            live = _survivors(live, deltas)
    if done < samples and done < least:
        raise Stopped
    out = tuple(tallies[a].advice(actions[a], done) for a in live)
    return Advice(seat, SAMPLED, done, out)


def _survivors(live: list[int], deltas: list[list[int]]) -> list[int]:
    """The actions not trailing the leader by more than RACE_Z standard errors of the paired difference."""
    leader = max(live, key=lambda a: sum(deltas[a]))
    lead = deltas[leader]
    keep: list[int] = []
    for a in live:
        mean, se = mean_se([x - y for x, y in zip(deltas[a], lead, strict=True)])
        if a == leader or mean + RACE_Z * se >= 0:
            keep.append(a)
    return keep


def _exact(
    state: TableState,
    seat: int,
    hidden: Hidden,
    key: bytes,
    actions: Sequence[Action],
    policy: Policy,
    classify: Classify,
    limit: int,
    poll: Poll,
) -> Advice:
    cards = hidden.cards
    fixed = hidden.owned
    if math.perm(len(cards), fixed) * len(actions) > limit:
        raise _TooBig
    budget = [limit]
    tallies = []
    for action in actions:
        tally = _Tally()
        _enumerate(state, seat, hidden, key, action, policy, classify, (), cards, 1.0, fixed, tally, budget, poll)
        tallies.append(tally)
    return Advice(seat, EXACT, 0, tuple(t.advice(a, 0) for t, a in zip(tallies, actions, strict=True)))


def _enumerate(
    state: TableState,
    seat: int,
    hidden: Hidden,
    key: bytes,
    action: Action,
    policy: Policy,
    classify: Classify,
    prefix: tuple[Card, ...],
    rest: tuple[Card, ...],
    weight: float,
    fixed: int,
    tally: _Tally,
    budget: list[int],
    poll: Poll,
) -> None:
    """Every ordering of the unseen cards, as deep as the playouts look into it (``fixed``: at least this deep)."""
    if len(prefix) < fixed:
        for i, card in enumerate(rest):
            _enumerate(
                state, seat, hidden, key, action, policy, classify, (*prefix, card), (*rest[:i], *rest[i + 1 :]),
                weight / len(rest), fixed, tally, budget, poll,
            )  # fmt: skip
        return
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooBig
    poll.check()
    det = determinize(state, seat, (*prefix, *rest), key)
    result: Any = playout(det, seat, action, policy, classify)
    if result.shuffled:
        raise _TooBig
    if hidden.owned + result.drawn <= len(prefix) or not rest:
        tally.add(result, weight)
        return
    _enumerate(
        state, seat, hidden, key, action, policy, classify, prefix, rest, weight, len(prefix) + 1, tally, budget, poll
    )
