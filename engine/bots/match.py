"""Bots playing each other: ``play_match`` plays hands until ``hands`` are over, table after table, and keeps every
seat's chip result of every hand. Pure (the caller draws any progress bar from the ``progress`` callback)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mazziere import engine
from mazziere.engine.bots.policies import choose
from mazziere.engine.bots.sampled import next_actor
from mazziere.engine.bots.values import mean_se
from mazziere.engine.table import Seat

START_CHIPS = 1000


@dataclass
class Match:
    """Every hand's chip result per seat (``results[h][s]``) and each seat's policy."""

    bots: tuple[str, ...]
    results: list[tuple[int, ...]] = field(default_factory=list)
    staked: list[int] = field(default_factory=list)
    """Per hand, the chips seat 1 staked (Sette e mezzo; the unit of a return to player)."""

    def summary(self, seat: int) -> tuple[float, float, int]:
        """(mean chip result per hand, its standard error, total) of ``seat``."""
        xs = [r[seat] for r in self.results]
        return (*mean_se(xs), sum(xs))


def play_match(
    game: str,
    bots: Sequence[str],
    hands: int,
    *,
    preset: str | None = None,
    options: Mapping[str, Any] | None = None,
    seed: bytes = b"mazziere simulate",
    chips: int = START_CHIPS,
    progress: Callable[[int], None] | None = None,
) -> Match:
    """Play ``hands`` hands with one seat per bot (``bots[s]`` names seat ``s``'s policy); a table whose game
    ends is followed by a fresh one (chips as at the start)."""
    match = Match(tuple(bots))
    table = 0
    while len(match.results) < hands:
        table_seed = hashlib.sha256(seed + table.to_bytes(4, "big")).digest()
        seats = [Seat(f"{name}-{s}", chips) for s, name in enumerate(bots)]
        state = engine.new_table(game, seats, seed=table_seed, preset=preset, options=options).state
        table += 1
        start = state.chips
        staked = 0
        while not engine.is_over(state) and len(match.results) < hands:
            seat = next_actor(state)
            action = choose(bots[seat], state, seat)
            out = engine.apply(state, action)
            if game == "sette_e_mezzo" and action.kind in ("STAKE", "HIT", "STAND") and seat == 1:
                staked += action.amount
            state = out.state
            if any(e.kind == "HAND_OVER" for e in out.events):
                match.results.append(tuple(a - b for a, b in zip(state.chips, start, strict=True)))
                match.staked.append(staked)
                start, staked = state.chips, 0
                if progress:
                    progress(len(match.results))
    return match


CHECK_STAKE = 2
"""The stake of :func:`casino_returns`: even, so that a 3:2 payment is exact (3:2 of 1 chip rounds down to 1, and
would measure another game than the exact return's)."""


def casino_returns(
    options: Mapping[str, Any],
    hands: int,
    *,
    seed: bytes = b"mazziere rtp",
    progress: Callable[[int], None] | None = None,
    stake: int = CHECK_STAKE,
) -> tuple[float, float]:
    """Sette e mezzo CASINO heads-up through ``engine.apply``: the player stakes ``stake`` every hand and then
    plays the ``best`` policy; (mean result per chip staked, its standard error): the Monte Carlo return to player
    minus 1."""
    results: list[float] = []
    table = 0
    while len(results) < hands:
        table_seed = hashlib.sha256(seed + table.to_bytes(4, "big")).digest()
        table += 1
        seats = [Seat("house", 10**9), Seat("player", 10**9)]
        state = engine.new_table("sette_e_mezzo", seats, seed=table_seed, preset="CASINO", options=options).state
        start = state.chips[1]
        while not engine.is_over(state) and len(results) < hands:
            seat = next_actor(state)
            is_stake = any(e.kind == "STAKE" for e in engine.legal_actions(state, seat))
            action = engine.Action(seat, "STAKE", stake) if is_stake else choose("best", state, seat)
            out = engine.apply(state, action)
            state = out.state
            if any(e.kind == "HAND_OVER" for e in out.events):
                results.append((state.chips[1] - start) / stake)
                start = state.chips[1]
                if progress:
                    progress(len(results))
    return mean_se(results)
