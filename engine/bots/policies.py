"""Bot policies, ``(state, seat) -> Action`` by name: ``random``, ``cautious`` and ``best``.

Every policy is a pure function of the state: ``random`` draws from a keyed hash of the table's seed, its ``seq``
and the seat (never the process-wide ``random``), the others use no chance at all (``best``'s sampled advice is
seeded by the seat's view).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from mazziere.engine import chance, get_game, legal_actions
from mazziere.engine.bots.advise import actions_of, advise_with, playing
from mazziere.engine.bots.cautious import cautious
from mazziere.engine.bots.stop import Stop
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.table import Action, TableState

BEST_SAMPLES = 48
"""Determinizations the ``best`` policy samples where a decision is not computed exactly (racing: an action that
clearly trails is dropped early, :func:`~mazziere.engine.bots.sampled.evaluate`)."""
BEST_EXACT_LIMIT = 200
"""The most play-outs the ``best`` policy spends on an exact enumeration before it samples instead."""


def random_policy(state: TableState, seat: int) -> Action:
    """A legal action drawn uniformly (an amount uniformly in its range), keyed by seed, seq and seat."""
    entries = legal_actions(state, seat)
    key = hashlib.sha256(b"mazziere/bots/random/v1" + state.seq.to_bytes(8, "big") + bytes([seat]) + state.seed)
    seed = key.digest()
    entry = entries[chance.randbelow(len(entries), seed, 0)]
    amount = entry.min_amount + chance.randbelow(entry.max_amount - entry.min_amount + 1, seed, 1)
    return Action(seat, entry.kind, amount, entry.target, entry.cards)


def best_policy(state: TableState, seat: int, stop: Stop | None = None) -> Action:
    """The action with the highest expected chip result (ties: the better win-minus-lose, then legal order).
    Once ``stop`` is True, sampled advice stops and the best action of the samples so far is taken
    (:class:`~mazziere.engine.bots.stop.Stopped` if there are none, or if an exact enumeration was cut)."""
    entries = playing(legal_actions(state, seat))  # it never sits a seat out or in by its own choice
    if not entries:
        return cautious(state, seat)  # only sitting a seat in is left: the first one sits in
    if len(entries) == 1 and entries[0].min_amount == entries[0].max_amount:
        return entries[0].example(seat)  # nothing to weigh
    advice = advise_with(state, seat, None, BEST_SAMPLES, BEST_EXACT_LIMIT, race=True, stop=stop, least=1)
    if not advice.actions:
        return actions_of(legal_actions(state, seat), seat)[0]
    best = max(advice.actions, key=lambda a: (round(a.expected, 9), round(a.win - a.lose, 9)))
    return best.action


POLICY: dict[str, Callable[[TableState, int, Stop | None], Action]] = {
    "random": lambda state, seat, _: random_policy(state, seat),
    "cautious": lambda state, seat, _: cautious(state, seat),
    "best": best_policy,
}
POLICIES: tuple[str, ...] = tuple(POLICY)


def choose(policy: str, state: TableState, seat: int, stop: Stop | None = None) -> Action:
    """The action ``policy`` takes for ``seat``, whose turn it must be (else the Rejected ``engine.apply`` gives).
    ``stop``: polled by ``best`` while it samples (:func:`best_policy`); the other policies take no time."""
    play = POLICY.get(policy)
    if play is None:
        raise Rejected(Reason.UNKNOWN_POLICY, f"unknown policy {policy!r}; policies are: {', '.join(POLICIES)}")
    game = get_game(state.game)
    if game.is_over(state):
        raise Rejected(Reason.GAME_OVER, "the game is over; no action is possible")
    if not 0 <= seat < state.seat_count:
        raise Rejected(Reason.INVALID_SEAT, f"seat {seat} is not at this {state.seat_count}-seat table")
    if not game.legal_actions(state, seat):
        waiting = ", ".join(map(str, game.to_act(state)))
        raise Rejected(Reason.NOT_YOUR_TURN, f"seat {seat} may not act now; waiting for seat {waiting}")
    return play(state, seat, stop)
