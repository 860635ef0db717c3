"""Sette e mezzo for learning agents: numbered actions with discretized stakes, and the vector of a seat's view.

Actions (``K`` = ``stake_levels``, 10 by default): 0 ``DEAL``; ``1 .. K`` ``STAKE`` at level 0 .. K-1; then ``HIT``,
``HIT_HIDDEN`` and ``STAND`` at levels 0 .. K-1 (the raise of SM-8's ``raise_on_decision``: only level 0, no raise,
without it); last ``BURN``. A level picks an amount from the seat's legal range now (:func:`engine.rl.adapter.levels`):
level 0 the least, level K-1 the most, evenly between, a level that would repeat an amount masked out.

>>> from mazziere import engine
>>> state = engine.new_table("sette_e_mezzo", [engine.Seat(n, 20) for n in "ab"], seed=b"demo").state
>>> state = engine.apply(state, engine.Action(0, "DEAL")).state
>>> adapter = SetteEMezzoAdapter(2, state.rules)
>>> [(adapter.names[i], action.amount) for i, action in adapter.legal(state, 1, frozenset()).items() if action][:3]
[('STAKE_0', 1), ('STAKE_1', 2), ('STAKE_2', 3)]
"""

from __future__ import annotations

from typing import ClassVar

from mazziere import engine
from mazziere.engine.cards import FRENCH_40, ITALIAN_40
from mazziere.engine.games.sette_e_mezzo.rules import Pack, SetteEMezzoRules
from mazziere.engine.games.sette_e_mezzo.state import Phase, Result, SetteEMezzoState, SetteEMezzoView, Status
from mazziere.engine.rl.adapter import Adapter, Legal, levels
from mazziere.engine.rl.encoding import Layout, Vector, card_places, enum_hot, one_hot, pack_index
from mazziere.engine.table import Action

HAND_ROOM = 16
"""The most cards a seat can hold in one hand (twelve half-point figures and two aces bust at 14)."""
PHASES = tuple(Phase)
STATUSES = tuple(Status)
RESULTS = tuple(Result)
_AMOUNT_KINDS = ("STAKE", "HIT", "HIT_HIDDEN", "STAND")


def _hot(members: tuple[Phase, ...] | tuple[Status, ...] | tuple[Result, ...]) -> str:
    return "one-hot: " + ", ".join(m.value for m in members)


class SetteEMezzoAdapter(Adapter):
    game_id: ClassVar[str] = "sette_e_mezzo"
    default_chips: ClassVar[int] = 20

    def __init__(self, seats: int, rules: SetteEMezzoRules, stake_levels: int = 10) -> None:
        self.index = pack_index(ITALIAN_40 if rules.pack is Pack.ITALIAN else FRENCH_40)
        super().__init__(seats, rules, stake_levels)
        self.block = {kind: 1 + k * stake_levels for k, kind in enumerate(_AMOUNT_KINDS)}
        self.burn = len(self.names) - 1

    def action_names(self) -> tuple[str, ...]:
        amounts = [f"{kind}_{i}" for kind in _AMOUNT_KINDS for i in range(self.stake_levels)]
        return ("DEAL", *amounts, "BURN")

    def lay_out(self, layout: Layout) -> None:
        n, pack = self.seats, len(self.index)
        self.at_me = layout.add("me", n, "one-hot: the observing seat")
        self.at_phase = layout.add("phase", len(PHASES), _hot(PHASES))
        self.at_bank = layout.add("bank", n, "one-hot: the bank's seat")
        self.at_turn = layout.add("turn", n, "one-hot: the seat to act (zeros once the game is over)")
        self.at_hand_number = layout.number("hand_number", 1, "hands dealt so far")
        self.at_stock = layout.number("stock_size", 1, "cards left in the stock")
        self.at_discards = layout.number("discard_size", 1, "cards discarded since the last shuffle")
        self.at_bank_points = layout.number("bank_points", 2, "the bank's total shown in the last hand: known, halves")
        self.at_chips = layout.number("chips", n, "each seat's chips (the bank's may be negative, SM-8)")
        self.at_stake = layout.number("stake", n, "each seat's stake")
        self.at_status = layout.add("status", n * len(STATUSES), "per seat, " + _hot(STATUSES))
        self.at_points = layout.number("points", 2 * n, "per seat, its total if the viewer knows it: known, halves")
        what = f"per seat, per card of the {pack}-card pack: its 1-based place in the seat's hand, seen by the viewer"
        self.at_cards = layout.add("cards", n * pack, what, HAND_ROOM)
        what = f"per seat, per place 0..{HAND_ROOM - 1} of its hand: 1 for a card the viewer cannot see"
        self.at_hidden = layout.add("hidden", n * HAND_ROOM, what)
        what = "per seat, per card of the pack: its 1-based place among the seat's burned cards (SM-20)"
        self.at_burned = layout.add("burned", n * pack, what, pack)
        what = f"per seat, the last hand: given, {_hot(RESULTS)}, amount the bank paid, total known, total, reale"
        self.at_results = layout.number("results", 9 * n, what)

    def write(self, out: Vector, view: SetteEMezzoView, seat: int) -> None:
        pack, index = len(self.index), self.index
        out[self.at_me + seat] = 1.0
        enum_hot(out, self.at_phase, PHASES, view.phase)
        one_hot(out, self.at_bank, view.bank)
        one_hot(out, self.at_turn, view.turn)
        out[self.at_hand_number] = view.hand_number
        out[self.at_stock] = view.stock_size
        out[self.at_discards] = view.discard_size
        if view.bank_points is not None:
            out[self.at_bank_points : self.at_bank_points + 2] = (1.0, view.bank_points)
        for s, sv in enumerate(view.seats):
            out[self.at_chips + s] = sv.chips
            out[self.at_stake + s] = sv.stake
            enum_hot(out, self.at_status + s * len(STATUSES), STATUSES, sv.status)
            if sv.points is not None:
                out[self.at_points + 2 * s : self.at_points + 2 * s + 2] = (1.0, sv.points)
            card_places(out, self.at_cards + s * pack, index, sv.cards, HAND_ROOM, self.at_hidden + s * HAND_ROOM)
            card_places(out, self.at_burned + s * pack, index, sv.burned, pack)
        for r in view.results:
            at = self.at_results + 9 * r.seat
            out[at] = 1.0
            enum_hot(out, at + 1, RESULTS, r.result)
            out[at + 5] = r.amount
            if r.points is not None:
                out[at + 6 : at + 8] = (1.0, r.points)
            out[at + 8] = float(r.reale)

    def legal(self, state: SetteEMezzoState, seat: int, passed: frozenset[int]) -> Legal:
        out: dict[int, Action | None] = {}
        for entry in engine.legal_actions(state, seat):
            kind = entry.kind
            if kind == "DEAL":
                out[0] = Action(seat, kind)
            elif kind == "BURN":
                out[self.burn] = Action(seat, kind)
            else:
                base = self.block[kind]
                for i, amount in levels(entry.min_amount, entry.max_amount, self.stake_levels):
                    out[base + i] = Action(seat, kind, amount)
        return out
