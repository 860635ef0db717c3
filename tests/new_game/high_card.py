"""High card: the walk-through game of docs/engine.md ("Write a new game"), built from the documented helpers.

Every seat with the ante pays it and gets one card face down; in turn from the dealer's left each keeps it or
passes; the highest card kept takes the pot (the dealer, if nobody keeps). The deal passes left, and the game
ends after ``deals`` deals or when fewer than two seats can pay the ante.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

from mazziere.engine.cards import ITALIAN_40, Card
from mazziere.engine.dealing import Dealing
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.events import Event, EventKind
from mazziere.engine.game import Game
from mazziere.engine.rules import option
from mazziere.engine.seats import first_dealer, next_in_play, round_from
from mazziere.engine.step import POT, Step
from mazziere.engine.table import Action, LegalAction, Outcome, Seat, TableState
from mazziere.engine.values import Value
from mazziere.engine.visibility import PUBLIC, TableCard, Viewer, only

DEAL, KEEP, PASS = "DEAL", "KEEP", "PASS"


@dataclass(frozen=True, slots=True)
class HighCardRules:
    rules_version: int = 1
    ante: int = option(1, "Chips each seat pays into the pot to be dealt in.")
    deals: int = option(3, "Deals before the game ends.")

    def validate(self) -> None:
        if not 1 <= self.ante <= 1000 or not 1 <= self.deals <= 100:
            raise Rejected(Reason.INVALID_OPTION, "ante must be 1..1000 and deals 1..100")


class Phase(Enum):
    WAITING = "WAITING"
    PLAYING = "PLAYING"
    OVER = "OVER"


class HighCardState(TableState, frozen=True):
    rules: HighCardRules
    phase: Phase
    dealer: int
    hands: tuple[TableCard | None, ...]
    left: tuple[int, ...]
    """The seats still to keep or pass, in turn."""
    kept: tuple[int, ...]
    deals: int
    stock: tuple[Card, ...]


class HighCardView(Value, frozen=True):
    names: tuple[str, ...]
    chips: tuple[int, ...]
    pot: int
    phase: Phase
    dealer: int
    to_act: int | None
    hands: tuple[TableCard | None, ...]
    kept: tuple[int, ...]


class HighCard(Game[HighCardState, HighCardRules]):
    id = "high_card"
    title = "High card"
    state_type = HighCardState
    rules_type = HighCardRules
    presets: ClassVar[dict[str, HighCardRules]] = {"PLAIN": HighCardRules(), "LONG": HighCardRules(ante=2, deals=8)}
    action_kinds = (DEAL, KEEP, PASS)

    def start(self, rules: HighCardRules, seats: Sequence[Seat], seed: bytes, table_id: str) -> Outcome:
        if not 2 <= len(seats) <= 8:
            raise Rejected(Reason.INVALID_SEATS, f"high card seats 2 to 8 players, not {len(seats)}")
        events: list[Event] = []
        dealing = Dealing.opening(seed, events)
        dealer = first_dealer(len(seats), dealing, None)
        events.append(Event(EventKind.DEALER, seat=dealer))
        state = HighCardState.opening(
            self.id,
            table_id,
            rules,
            seats,
            dealing,
            phase=Phase.WAITING if _can_deal(rules, tuple(s.chips for s in seats)) else Phase.OVER,
            dealer=dealer,
            hands=(None,) * len(seats),
            left=(),
            kept=(),
            deals=0,
            stock=(),
        )
        return Outcome(state, tuple(events))

    def legal_actions(self, state: HighCardState, seat: int) -> tuple[LegalAction, ...]:
        if state.phase is Phase.WAITING and seat == state.dealer:
            return (LegalAction(DEAL),)
        if state.phase is Phase.PLAYING and state.left and seat == state.left[0]:
            return (LegalAction(KEEP), LegalAction(PASS))
        return ()

    def play(self, state: HighCardState, action: Action) -> Outcome:
        step = Step(state)
        if action.kind == DEAL:
            return _deal(step)
        step.event(EventKind[action.kind], seat=action.seat)
        kept = (*state.kept, action.seat) if action.kind == KEEP else state.kept
        step.change(left=state.left[1:], kept=kept)
        return step.outcome() if state.left[1:] else _showdown(step)

    def view(self, state: HighCardState, viewer: Viewer) -> HighCardView:
        turn = state.left[0] if state.phase is Phase.PLAYING else None if state.phase is Phase.OVER else state.dealer
        return HighCardView(
            state.names, state.chips, state.pot, state.phase, state.dealer, turn, state.hands, state.kept
        )

    def is_over(self, state: HighCardState) -> bool:
        return state.phase is Phase.OVER


def _can_deal(rules: HighCardRules, chips: tuple[int, ...]) -> bool:
    return sum(c >= rules.ante for c in chips) >= 2


def _deal(step: Step[HighCardState]) -> Outcome:
    state = step.state
    able = [c >= state.rules.ante for c in state.chips]
    players = tuple(s for s in round_from(able, state.dealer) if able[s])
    deck = step.dealing.shuffle(ITALIAN_40)
    step.dealing.reveal(keep_current=True)  # the last deal's pack is gathered
    step.dealing.took(deck, len(players))
    hands: list[TableCard | None] = [None] * state.seat_count
    for i, s in enumerate(players):
        step.pay(s, POT, state.rules.ante, "ante")
        hands[s] = TableCard(deck[i], only(s))
        step.event(EventKind.DEALT, seat=s, cards=(hands[s],))  # type: ignore[arg-type]
    return step.outcome(
        phase=Phase.PLAYING,
        hands=tuple(hands),
        left=players,
        kept=(),
        stock=deck[len(players) :],
    )


def _showdown(step: Step[HighCardState]) -> Outcome:
    state = step.state
    shown = {s: TableCard(state.hands[s].card, PUBLIC) for s in state.kept}  # type: ignore[union-attr]
    for s, card in shown.items():
        step.event(EventKind.SHOW, seat=s, cards=(card,))
    ranks = {s: card.card.rank for s, card in shown.items()}  # type: ignore[union-attr]
    winner = max(state.kept, key=lambda s: ranks[s]) if state.kept else state.dealer
    pot = step.pot
    step.pay(POT, winner, pot, "pot")
    step.event(EventKind.WIN, seat=winner, amount=pot)
    step.event(EventKind.HAND_OVER, seat=winner, amount=pot)
    hands = tuple(None if h is None else TableCard(h.card, PUBLIC) for h in state.hands)
    if state.deals + 1 >= state.rules.deals or not _can_deal(state.rules, step.chips):
        step.event(EventKind.GAME_OVER, seat=winner)
        return step.outcome(phase=Phase.OVER, hands=hands, deals=state.deals + 1)
    dealer = next_in_play((True,) * state.seat_count, state.dealer)
    step.event(EventKind.DEALER, seat=dealer)
    return step.outcome(phase=Phase.WAITING, hands=hands, deals=state.deals + 1, dealer=dealer)
