"""Saltacavallo for learning agents: numbered actions, one seat at a time, and the vector of a seat's view.

Actions (``N`` seats): 0 ``DEAL``, 1 ``KEEP``, 2 ``SWAP`` (with the seat the rules give, SC-8/SC-9: the engine
names it), 3 ``DRAW`` (the dealer), 4 ``PASS``, then ``5 + g`` ``REVIVE`` with seat ``g`` as the giver (SC-13).

Between hands the engine lets the dealer deal and every dead seat ask for a life at once; an agent environment moves
one seat at a time, so the dead seats that may be revived move first (in seat order), each choosing a giver or
``PASS`` (which lets the revival go until the next deal), then the dealer deals.

>>> from mazziere import engine
>>> state = engine.new_table("saltacavallo", [engine.Seat(n, 3) for n in "abc"], seed=b"demo").state
>>> adapter = SaltacavalloAdapter(3, state.rules)
>>> seat = adapter.pick(state, frozenset())
>>> state = engine.apply(state, adapter.legal(state, seat, frozenset())[0]).state
>>> seat = adapter.pick(state, frozenset())
>>> [adapter.names[i] for i in adapter.legal(state, seat, frozenset())]
['KEEP', 'SWAP']
>>> adapter.names
('DEAL', 'KEEP', 'SWAP', 'DRAW', 'PASS', 'REVIVE_FROM_0', 'REVIVE_FROM_1', 'REVIVE_FROM_2')
"""

from __future__ import annotations

from typing import ClassVar

from mazziere import engine
from mazziere.engine.cards import ITALIAN_40
from mazziere.engine.games.saltacavallo.state import Phase, SaltacavalloState, SaltacavalloView
from mazziere.engine.rl.adapter import Adapter, Legal
from mazziere.engine.rl.encoding import Layout, Vector, card_places, enum_hot, one_hot, pack_index, seat_places
from mazziere.engine.table import Action

PHASES = tuple(Phase)
INDEX = pack_index(ITALIAN_40)
DISCARD_ROOM = 40
_FIXED = {"DEAL": 0, "KEEP": 1, "SWAP": 2, "DRAW": 3}
PASS = 4
REVIVE = 5


class SaltacavalloAdapter(Adapter):
    game_id: ClassVar[str] = "saltacavallo"
    default_chips: ClassVar[int] = 3
    passes: ClassVar[bool] = True

    def action_names(self) -> tuple[str, ...]:
        return (*_FIXED, "PASS", *(f"REVIVE_FROM_{g}" for g in range(self.seats)))

    def lay_out(self, layout: Layout) -> None:
        n = self.seats
        self.at_me = layout.add("me", n, "one-hot: the observing seat")
        self.at_phase = layout.add("phase", len(PHASES), "one-hot: " + ", ".join(p.value for p in PHASES))
        self.at_dealer = layout.add("dealer", n, "one-hot: the dealer (between hands, the next one)")
        self.at_turn = layout.add("turn", n, "one-hot: the seat to keep or swap (zeros outside PLAY)")
        self.at_chips = layout.number("chips", n, "each seat's chips (its coins included)")
        self.at_pot = layout.number("pot", 1, "chips in the pot")
        self.at_lives = layout.number("lives", n, "each seat's lives")
        self.at_alive = layout.add("alive", n, "1 for each seat with a life")
        self.at_cards = layout.add("cards", n * 40, "per seat, one-hot of its card this hand where the viewer sees it")
        self.at_hidden = layout.add("hidden", n, "1 for each seat holding a card the viewer cannot see")
        self.at_stock = layout.number("stock_size", 1, "cards left in the stock")
        self.at_discards = layout.add(
            "discards", 40, "per card: its 1-based place among the dealer's discards this hand", DISCARD_ROOM
        )
        self.at_losers = layout.add("losers", n, "per seat: its 1-based place among the last hand's losers", n)
        self.at_revived = layout.add("revived", n, "per seat: its 1-based place among the seats revived", n)
        self.at_winners = layout.add("winners", n, "per seat: its 1-based place among the winners", n)
        self.at_hands = layout.number("hands", 1, "hands dealt so far")

    def write(self, out: Vector, view: SaltacavalloView, seat: int) -> None:
        out[self.at_me + seat] = 1.0
        enum_hot(out, self.at_phase, PHASES, view.phase)
        one_hot(out, self.at_dealer, view.dealer)
        one_hot(out, self.at_turn, view.turn)
        n = self.seats
        out[self.at_chips : self.at_chips + n] = view.chips
        out[self.at_pot] = view.pot
        out[self.at_lives : self.at_lives + n] = view.lives
        out[self.at_alive : self.at_alive + n] = view.alive
        for s, held in enumerate(view.cards):
            if held is not None:
                card_places(out, self.at_cards + 40 * s, INDEX, (held,), 1, self.at_hidden + s)
        out[self.at_stock] = view.stock_size
        card_places(out, self.at_discards, INDEX, view.discards, DISCARD_ROOM)
        seat_places(out, self.at_losers, view.losers)
        seat_places(out, self.at_revived, view.revived)
        seat_places(out, self.at_winners, view.winners)
        out[self.at_hands] = view.hands

    def legal(self, state: SaltacavalloState, seat: int, passed: frozenset[int]) -> Legal:
        if seat in passed:
            return {}
        out: dict[int, Action | None] = {}
        for entry in engine.legal_actions(state, seat):
            if entry.kind == "REVIVE":
                out[REVIVE + entry.target] = Action(seat, "REVIVE", target=entry.target)  # type: ignore[operator]
                out[PASS] = None
            else:
                out[_FIXED[entry.kind]] = Action(seat, entry.kind, target=entry.target)
        return out

    def pick(self, state: SaltacavalloState, passed: frozenset[int]) -> int:
        seats = engine.to_act(state)
        if len(seats) == 1 or state.phase is not Phase.DEAL:
            return seats[0]
        waiting = [s for s in seats if s != state.dealer and s not in passed]
        return waiting[0] if waiting else state.dealer
