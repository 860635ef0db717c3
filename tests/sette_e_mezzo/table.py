"""Helpers for hand-picked Sette e mezzo deals: seat 0 banks unless a test says otherwise."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mazziere import engine
from mazziere.engine.games.sette_e_mezzo.state import SetteEMezzoState
from mazziere.engine.ledger import Transfer
from mazziere.engine.table import Action, Event, Seat
from tests.helpers import stacked


@dataclass
class Run:
    """A table and everything that happened on it since the helper started."""

    state: SetteEMezzoState
    events: list[Event] = field(default_factory=list)
    transfers: list[Transfer] = field(default_factory=list)

    def do(self, *moves: str) -> Run:
        """Play moves written "SEAT KIND [AMOUNT]", e.g. ``do("1 STAKE 5", "1 HIT", "1 STAND")``."""
        for move in moves:
            parts = move.split()
            amount = int(parts[2]) if len(parts) > 2 else 0
            out = engine.apply(self.state, Action(int(parts[0]), parts[1], amount))
            self.state = out.state
            self.events.extend(out.events)
            self.transfers.extend(out.settlement)
        return self

    def kinds(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]

    def legal(self, seat: int) -> dict[str, tuple[int, int]]:
        return {e.kind: (e.min_amount, e.max_amount) for e in engine.legal_actions(self.state, seat)}

    @property
    def chips(self) -> tuple[int, ...]:
        return self.state.chips

    def points(self, seat: int) -> int:
        return self.state.hands[seat].points


def table(
    deck: str = "", seats: int = 3, chips: int | list[int] = 100, preset: str | None = None, **options: Any
) -> Run:
    """A new table, dealt at once from ``deck`` (the cards on top of the pack, dealt in order)."""
    options.setdefault("first_bank", "SEAT")
    purse = chips if isinstance(chips, list) else [chips] * seats
    people = [Seat(f"p{i}", purse[i]) for i in range(seats)]
    state = engine.new_table("sette_e_mezzo", people, seed=b"test", preset=preset, options=options).state
    run = Run(state)
    if not engine.is_over(state):
        with stacked(deck):
            run.do(f"{state.bank} DEAL")
    return run


def deal(run: Run, deck: str) -> Run:
    """The next hand, from a stacked pack (the next shuffle must happen at this deal)."""
    with stacked(deck):
        return run.do(f"{run.state.bank} DEAL")
