"""Small builders for Saltacavallo rule tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mazziere import engine
from mazziere.engine.games.saltacavallo import SaltacavalloState
from mazziere.engine.table import Action, Event, Outcome, Seat
from tests.helpers import play_kinds, replace, stacked

GAME = "saltacavallo"


def table(
    n: int = 4,
    *,
    dealer: int = 0,
    chips: int = 10,
    preset: str | None = None,
    seed: bytes = b"rules",
    **options: Any,
) -> SaltacavalloState:
    """A new table whose first dealer is ``dealer`` (first_dealer SEAT unless an option says otherwise)."""
    opts: dict[str, Any] = {"first_dealer": "SEAT", "first_dealer_seat": dealer, **options}
    if n == 2:
        opts.setdefault("min_seats", 2)
    seats = [Seat(f"p{i}", chips) for i in range(n)]
    state: SaltacavalloState = engine.new_table(GAME, seats, seed=seed, preset=preset, options=opts).state
    return state


def with_lives(state: SaltacavalloState, lives: Sequence[int], dealer: int | None = None) -> SaltacavalloState:
    """``state`` as if the lives lost so far had been paid into the pot (lives at most the starting ones)."""
    start, coin = state.rules.lives, state.rules.coin
    chips = tuple(c - (start - life) * coin for c, life in zip(state.chips, lives, strict=True))
    pot = state.pot + sum(state.chips) - sum(chips)
    return replace(state, lives=tuple(lives), chips=chips, pot=pot, dealer=state.dealer if dealer is None else dealer)


def deal(state: SaltacavalloState, deck: str) -> Outcome:
    """The dealer deals from a stacked pack (cards in deal order: seat after the dealer first, dealer last)."""
    with stacked(deck):
        return engine.apply(state, Action(state.dealer, "DEAL"))


def act(state: SaltacavalloState, seat: int, kind: str, target: int | None = None) -> Outcome:
    return engine.apply(state, Action(seat, kind, target=target))


def run(
    state: SaltacavalloState, *moves: tuple[int, str] | tuple[int, str, int]
) -> tuple[SaltacavalloState, list[Event], list[Any]]:
    """Play ``moves`` (seat, kind[, target]); the final state, every event and every transfer."""
    events: list[Event] = []
    transfers: list[Any] = []
    for move in moves:
        out = act(state, *move)
        state = out.state
        events += out.events
        transfers += out.settlement
    return state, events, transfers


def kinds(events: Sequence[Event]) -> list[str]:
    """The kinds of play's events (the fairness record left out)."""
    return play_kinds(events)


def seen(state: SaltacavalloState, viewer: int | None) -> list[str | None]:
    """The cards ``viewer`` sees on the table, by seat (None: face down or no card)."""
    view = engine.view(state, viewer)
    return [None if tc is None or tc.card is None else str(tc.card) for tc in view.cards]


def options_of(state: SaltacavalloState, seat: int) -> set[tuple[str, int | None]]:
    return {(e.kind, e.target) for e in engine.legal_actions(state, seat)}
