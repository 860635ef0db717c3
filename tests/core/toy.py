"""A tiny high-card game used to test the engine core on its own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

from mazziere.engine.cards import FRENCH_32, ITALIAN_40, Card
from mazziere.engine.dealing import Dealing
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.game import Game
from mazziere.engine.ledger import POT, Transfer, settle
from mazziere.engine.rules import option
from mazziere.engine.table import Action, Event, EventKind, LegalAction, Outcome, Seat, TableState
from mazziere.engine.values import Value, replace
from mazziere.engine.visibility import TableCard, Viewer, face_down, face_up


class Pack(Enum):
    ITALIAN = "ITALIAN"
    FRENCH = "FRENCH"


@dataclass(frozen=True, slots=True)
class ToyRules:
    rules_version: int = 1
    max_bet: int = option(5, "Largest bet.")
    pack: Pack = option(Pack.ITALIAN, "Which pack.")
    lucky_card: Card | None = option(None, "A card that always wins.")
    banned_ranks: frozenset[int] = option(frozenset(), "Ranks removed from the pack.")

    def validate(self) -> None:
        if self.max_bet < 1:
            raise Rejected(Reason.INVALID_OPTION, "max_bet must be at least 1")


class ToyState(TableState, frozen=True):
    rules: ToyRules
    turn: int
    hands: tuple[TableCard, ...]
    stock: tuple[Card, ...]
    over: bool


class ToyView(Value, frozen=True):
    turn: int | None
    hands: tuple[TableCard, ...]
    pot: int
    stock_size: int


class Toy(Game[ToyState, ToyRules]):
    id = "toy"
    title = "Toy high card"
    state_type = ToyState
    rules_type = ToyRules
    presets: ClassVar[dict[str, ToyRules]] = {"PLAIN": ToyRules(), "BIG": ToyRules(max_bet=50)}
    action_kinds = ("BET",)

    def start(self, rules: ToyRules, seats: Sequence[Seat], seed: bytes, table_id: str) -> Outcome:
        if len(seats) < 2:
            raise Rejected(Reason.INVALID_SEATS, "toy needs two seats")
        pack = ITALIAN_40 if rules.pack is Pack.ITALIAN else FRENCH_32
        events: list[Event] = []
        dealing = Dealing.opening(seed, events)  # the core's own dealing, as a game deals at its start
        deck = dealing.shuffle(c for c in pack if c.rank not in rules.banned_ranks)
        dealing.took(deck, len(seats))
        hands = tuple(face_down(deck[i], i) for i in range(len(seats)))
        for i, h in enumerate(hands):
            dealing.tell(Event(EventKind.DEALT, seat=i, cards=(h,)))
        state = ToyState(
            "toy", table_id, rules, tuple(s.name for s in seats), tuple(s.chips for s in seats), 0, seed,
            dealing.draws, 0, dealing.entropy, dealing.packs, dealing.commitment, 0, hands, deck[len(seats):], False,
        )  # fmt: skip
        return Outcome(state, tuple(events))

    def legal_actions(self, state: ToyState, seat: int) -> tuple[LegalAction, ...]:
        if state.over or seat != state.turn:
            return ()
        return (LegalAction("BET", 1, min(state.rules.max_bet, state.chips[seat])),)

    def play(self, state: ToyState, action: Action) -> Outcome:
        bet = Transfer(action.seat, POT, action.amount)
        chips, pot = settle(state.chips, state.pot, [bet])
        if action.seat + 1 < state.seat_count:
            return Outcome(replace(state, chips=chips, pot=pot, turn=action.seat + 1), (), (bet,))
        winner = max(range(state.seat_count), key=lambda s: state.hands[s].card.rank)  # type: ignore[union-attr]
        win = Transfer(POT, winner, pot)
        chips, pot = settle(chips, pot, [win])
        shown = tuple(face_up(h.card) for h in state.hands if h.card)
        new = replace(state, chips=chips, pot=pot, hands=shown, over=True)
        events = (
            *(Event(EventKind.SHOW, seat=s, cards=(c,)) for s, c in enumerate(shown)),
            Event(EventKind.GAME_OVER, seat=winner),
        )
        return Outcome(new, events, (bet, win))

    def view(self, state: ToyState, viewer: Viewer) -> ToyView:
        return ToyView(None if state.over else state.turn, state.hands, state.pot, len(state.stock))

    def is_over(self, state: ToyState) -> bool:
        return state.over
