"""Small helpers for Trentuno rule tests: a table with a fixed first dealer and hand-picked deals."""

from __future__ import annotations

from typing import Any

from mazziere import engine
from mazziere.engine.cards import parse_cards
from mazziere.engine.games.trentuno.state import TrentunoState
from mazziere.engine.table import Action, Outcome, Seat
from tests.helpers import play_kinds, stacked


def new(
    n: int = 3, chips: int | list[int] = 100, dealer: int = 0, preset: str | None = None, **options: Any
) -> TrentunoState:
    """A table of ``n`` seats whose first dealer is ``dealer``, waiting for the first DEAL."""
    amounts = chips if isinstance(chips, list) else [chips] * n
    seats = [Seat(f"p{i}", amounts[i]) for i in range(n)]
    opts = {"first_dealer": "SEAT", "first_dealer_seat": dealer, **options}
    state: TrentunoState = engine.new_table("trentuno", seats, seed=b"test", preset=preset, options=opts).state
    return state


def deck(state: TrentunoState, hands: dict[int, str], widow: str) -> str:
    """The stacked pack that deals ``hands`` (seat -> three cards) and ``widow`` under TR-4."""
    dealer = state.dealer
    seats = sorted(hands)
    order = [s for s in seats if s > dealer] + [s for s in seats if s < dealer] + [dealer]
    mine = {s: parse_cards(t) for s, t in hands.items()}
    centre = parse_cards(widow)
    cards = []
    for r in range(3):
        cards += [str(mine[s][r]) for s in order]
        cards.append(str(centre[r]))
    return " ".join(cards)


def deal(state: TrentunoState, hands: dict[int, str], widow: str) -> Outcome:
    """The dealer sends DEAL with a stacked pack."""
    with stacked(deck(state, hands, widow)):
        return engine.apply(state, Action(state.dealer, "DEAL"))


def act(state: TrentunoState, seat: int, kind: str, cards: str = "") -> Outcome:
    return engine.apply(state, Action(seat, kind, cards=parse_cards(cards) if cards else ()))


def kinds(outcome: Outcome) -> list[str]:
    """The kinds of play's events (the fairness record left out)."""
    return play_kinds(outcome.events)


def hand_text(state: TrentunoState, seat: int) -> str:
    return " ".join(str(tc.card) for tc in state.hands[seat])


def widow_text(state: TrentunoState) -> str:
    return " ".join(str(tc.card) for tc in state.widow)
