"""Trentuno for learning agents: numbered actions, exchanges as (hand place, widow place), and a seat's view.

Actions: 0 ``DEAL``; ``1 + 3 h + w`` ``EXCHANGE`` of the card at place ``h`` (0..2) of the seat's hand for the
card at place ``w`` (0..2) of the widow (TR-9); 10 ``TAKE_ALL``; 11 ``STOP``; 12 ``PASS`` (the last round, TR-11).

>>> from mazziere import engine
>>> state = engine.new_table("trentuno", [engine.Seat(n, 10) for n in "abc"], seed=b"demo").state
>>> state = engine.apply(state, engine.Action(state.dealer, "DEAL")).state
>>> adapter = TrentunoAdapter(3, state.rules)
>>> seat = adapter.pick(state, frozenset())
>>> [adapter.names[i] for i in adapter.legal(state, seat, frozenset())][-4:]
['EXCHANGE_2_1', 'EXCHANGE_2_2', 'TAKE_ALL', 'STOP']
"""

from __future__ import annotations

from typing import ClassVar

from mazziere import engine
from mazziere.engine.cards import FRENCH_32
from mazziere.engine.games.trentuno.hands import KINDS
from mazziere.engine.games.trentuno.rules import Scoring
from mazziere.engine.games.trentuno.state import Closing, Ending, Phase, TrentunoState, TrentunoView
from mazziere.engine.rl.adapter import Adapter, Legal
from mazziere.engine.rl.encoding import Layout, Vector, card_places, enum_hot, one_hot, pack_index, seat_places
from mazziere.engine.table import Action

INDEX = pack_index(FRENCH_32)
PHASES = tuple(Phase)
SCORINGS = tuple(Scoring)
CLOSINGS = tuple(Closing)
ENDINGS = tuple(Ending)
_FIXED = {"DEAL": 0, "TAKE_ALL": 10, "STOP": 11, "PASS": 12}


def _hot(members: tuple[object, ...]) -> str:
    return "one-hot: " + ", ".join(getattr(m, "value", str(m)) for m in members)


class TrentunoAdapter(Adapter):
    game_id: ClassVar[str] = "trentuno"
    default_chips: ClassVar[int] = 10

    def action_names(self) -> tuple[str, ...]:
        exchanges = [f"EXCHANGE_{h}_{w}" for h in range(3) for w in range(3)]
        return ("DEAL", *exchanges, "TAKE_ALL", "STOP", "PASS")

    def lay_out(self, layout: Layout) -> None:
        n = self.seats
        self.at_me = layout.add("me", n, "one-hot: the observing seat")
        self.at_scoring = layout.add("scoring", len(SCORINGS), _hot(SCORINGS))
        self.at_phase = layout.add("phase", len(PHASES), _hot(PHASES))
        self.at_dealer = layout.add("dealer", n, "one-hot: the dealer")
        self.at_to_act = layout.add("to_act", n, "one-hot: the seat to act (zeros once the game is over)")
        self.at_chips = layout.number("chips", n, "each seat's chips")
        self.at_pot = layout.number("pot", 1, "chips in the pot")
        self.at_lives = layout.number("lives", n, "LIVES scoring: each seat's lives (zeros in POT scoring)")
        self.at_deals = layout.number("deals", 1, "deals dealt so far")
        self.at_in_deal = layout.add("in_deal", n, "per seat: its 1-based place among the seats dealt in", n)
        self.at_hands = layout.add(
            "hands",
            n * 32,
            "per seat, per card of the 32-card pack: its 1-based place in the seat's hand, seen by the viewer",
            3,
        )
        self.at_hidden = layout.add("hidden", n * 3, "per seat, per place 0..2: 1 for a card the viewer cannot see")
        self.at_widow = layout.add("widow", 32, "per card: its 1-based place in the widow", 3)
        self.at_stock = layout.number("stock_size", 1, "cards left in the stock")
        self.at_rounds = layout.number("rounds", 1, "full rounds completed in this deal (TR-14)")
        self.at_stopper = layout.add("stopper", n, "one-hot: the seat whose stop or take-all opened the last round")
        self.at_closing = layout.add("closing", len(CLOSINGS), _hot(CLOSINGS))
        self.at_last_round = layout.add("last_round", 1, "1 in the last round")
        self.at_last_left = layout.add("last_left", n, "per seat: its 1-based place among those owed a last turn", n)
        self.at_result = layout.add("result", 1, "1 while the last deal's result is shown")
        self.at_ending = layout.add("ending", len(ENDINGS), _hot(ENDINGS))
        self.at_winners = layout.add("winners", n, "per seat: its 1-based place among the deal's winners", n)
        self.at_share = layout.number("share", 2, "the result: chips each winner took, chips carried to the next deal")
        self.at_losers = layout.add("losers", n, "per seat: its 1-based place among the seats that lost a life", n)
        self.at_kinds = layout.add("kinds", n * len(KINDS), "per seat, the result's hand kind, " + _hot(KINDS))
        self.at_points = layout.number("points", n, "per seat, the result's hand value in half points")

    def write(self, out: Vector, view: TrentunoView, seat: int) -> None:
        n = self.seats
        out[self.at_me + seat] = 1.0
        enum_hot(out, self.at_scoring, SCORINGS, view.scoring)
        enum_hot(out, self.at_phase, PHASES, view.phase)
        one_hot(out, self.at_dealer, view.dealer)
        one_hot(out, self.at_to_act, view.to_act)
        out[self.at_chips : self.at_chips + n] = view.chips
        out[self.at_pot] = view.pot
        if view.lives:
            out[self.at_lives : self.at_lives + n] = view.lives
        out[self.at_deals] = view.deals
        seat_places(out, self.at_in_deal, view.in_deal)
        for s, hand in enumerate(view.hands):
            card_places(out, self.at_hands + 32 * s, INDEX, hand, 3, self.at_hidden + 3 * s)
        card_places(out, self.at_widow, INDEX, view.widow, 3)
        out[self.at_stock] = view.stock_size
        out[self.at_rounds] = view.rounds
        one_hot(out, self.at_stopper, view.stopper)
        enum_hot(out, self.at_closing, CLOSINGS, view.closing)
        out[self.at_last_round] = float(view.last_round)
        seat_places(out, self.at_last_left, view.last_left)
        result = view.result
        if result is not None:
            out[self.at_result] = 1.0
            enum_hot(out, self.at_ending, ENDINGS, result.ending)
            seat_places(out, self.at_winners, result.winners)
            out[self.at_share : self.at_share + 2] = (result.share, result.carried)
            seat_places(out, self.at_losers, result.losers)
            for s, kind in enumerate(result.kinds):
                enum_hot(out, self.at_kinds + len(KINDS) * s, KINDS, kind)
            out[self.at_points : self.at_points + n] = result.points

    def legal(self, state: TrentunoState, seat: int, passed: frozenset[int]) -> Legal:
        out: dict[int, Action | None] = {}
        entries = engine.legal_actions(state, seat)
        if not entries:
            return out
        hand = [tc.card for tc in state.hands[seat]]
        widow = [tc.card for tc in state.widow]
        for entry in entries:
            if entry.kind == "EXCHANGE":
                given, taken = entry.cards
                out[1 + 3 * hand.index(given) + widow.index(taken)] = Action(seat, "EXCHANGE", cards=entry.cards)
            else:
                out[_FIXED[entry.kind]] = Action(seat, entry.kind)
        return out
