"""Saltacavallo / Asso che fugge (RULES.md §2) as a :class:`~engine.game.Game`: the table, what a seat may do,
one action handed to its step (:mod:`.deal`, :mod:`.turns`, :mod:`.lives`), the view.

Seats are numbered in play order (anticlockwise): seat ``i + 1`` is "the seat on my right" of S000.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from mazziere.engine.dealing import Dealing
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.game import Game
from mazziere.engine.games.saltacavallo import events, validate
from mazziere.engine.games.saltacavallo.deal import choose_dealer, deal
from mazziere.engine.games.saltacavallo.lives import revive, sit
from mazziere.engine.games.saltacavallo.rules import MAX_SEATS, PRESETS, FirstDealer, SaltacavalloRules
from mazziere.engine.games.saltacavallo.state import Phase, SaltacavalloState, SaltacavalloView
from mazziere.engine.games.saltacavallo.turns import draw, keep, living_round, next_turn, swap, swap_target
from mazziere.engine.sitting import SIT_IN, SIT_KINDS, SIT_OUT, sit_entries
from mazziere.engine.step import Step
from mazziere.engine.table import Action, Event, LegalAction, Outcome, Seat
from mazziere.engine.visibility import Viewer

DEAL = "DEAL"
KEEP = "KEEP"
SWAP = "SWAP"
DRAW = "DRAW"
REVIVE = "REVIVE"

# Precomputed legal-action tuples (the hot path allocates none of them).
_NONE: tuple[LegalAction, ...] = ()
_DEAL_ONLY = (LegalAction(DEAL),)
_KEEP_ONLY = (LegalAction(KEEP),)
_KEEP_DRAW = (LegalAction(KEEP), LegalAction(DRAW))
_KEEP_SWAP = tuple((LegalAction(KEEP), LegalAction(SWAP, target=t)) for t in range(MAX_SEATS))
_REVIVE = tuple(LegalAction(REVIVE, target=t) for t in range(MAX_SEATS))

_next_turn = next_turn
_round = living_round
"""The walks of :mod:`.turns` under the names tests/saltacavallo/test_validate.py imports them by."""


class Saltacavallo(Game[SaltacavalloState, SaltacavalloRules]):
    id: ClassVar[str] = "saltacavallo"
    title: ClassVar[str] = "Saltacavallo (Asso che fugge)"
    state_type: ClassVar[type[SaltacavalloState]] = SaltacavalloState
    rules_type: ClassVar[type] = SaltacavalloRules
    presets = PRESETS
    action_kinds: ClassVar[tuple[str, ...]] = (DEAL, KEEP, SWAP, DRAW, REVIVE, SIT_OUT, SIT_IN)

    # -- a new table ------------------------------------------------------------------------------

    def start(self, rules: SaltacavalloRules, seats: Sequence[Seat], seed: bytes, table_id: str) -> Outcome:
        n = len(seats)
        if not rules.min_seats <= n <= MAX_SEATS:
            raise Rejected(
                Reason.INVALID_SEATS, f"saltacavallo starts with {rules.min_seats}..{MAX_SEATS} seats, not {n}"
            )
        need = rules.lives * rules.coin
        for i, seat in enumerate(seats):
            if seat.chips < need:
                raise Rejected(
                    Reason.INVALID_SEATS,
                    f"seat {i} ({seat.name!r}) has {seat.chips} chips; {rules.lives} lives of {rules.coin} need {need}",
                )
        if rules.first_dealer is FirstDealer.SEAT and rules.first_dealer_seat >= n:
            raise Rejected(
                Reason.INVALID_OPTION, f"first_dealer_seat {rules.first_dealer_seat} is not at this {n}-seat table"
            )
        told: list[Event] = []
        dealing = Dealing.opening(seed, told)
        dealer = choose_dealer(rules, n, dealing)
        told.append(Event(events.FIRST_DEALER, seat=dealer))
        state = SaltacavalloState.opening(
            self.id,
            table_id,
            rules,
            seats,
            dealing,
            lives=(rules.lives,) * n,
            dealer=dealer,
            phase=Phase.DEAL,
            turn=-1,
            hand=(None,) * n,
            stock=(),
            discards=(),
            losers=(),
            revived=(),
            winners=(),
            hands=0,
        )
        return Outcome(state, tuple(told))

    # -- what a seat may do -----------------------------------------------------------------------

    def legal_actions(self, state: SaltacavalloState, seat: int) -> tuple[LegalAction, ...]:
        phase = state.phase
        if phase is Phase.PLAY:
            if seat != state.turn:
                return _NONE
            target = swap_target(state, seat)
            return _KEEP_ONLY if target is None else _KEEP_SWAP[target]
        if phase is Phase.DEALER:
            return _KEEP_DRAW if seat == state.dealer else _NONE
        if phase is Phase.DEAL:
            return _between_hands(state, seat)
        return _NONE

    def check_state(self, state: SaltacavalloState) -> None:
        validate.check_state(state)

    def to_act(self, state: SaltacavalloState) -> tuple[int, ...]:
        phase = state.phase
        if phase is Phase.PLAY:
            return (state.turn,)
        if phase is Phase.DEALER:
            return (state.dealer,)
        if phase is Phase.DEAL:
            if not state.rules.revival or all(state.lives) or not _givers(state):
                return (state.dealer,)
            return tuple(s for s in range(len(state.lives)) if s == state.dealer or not state.lives[s])
        return ()

    def is_over(self, state: SaltacavalloState) -> bool:
        return state.phase is Phase.OVER

    # -- one action -------------------------------------------------------------------------------

    def play(self, state: SaltacavalloState, action: Action) -> Outcome:
        kind = action.kind
        step = Step(state)
        if kind == KEEP:
            return keep(step, action.seat)
        if kind == SWAP:
            return swap(step, action.seat, action.target)  # type: ignore[arg-type]
        if kind == DEAL:
            return deal(step)
        if kind == DRAW:
            return draw(step)
        if kind in SIT_KINDS:
            return sit(step, action.target, out=kind == SIT_OUT)  # type: ignore[arg-type]  # entries name one
        return revive(step, action.seat, action.target)  # type: ignore[arg-type]

    # -- what a seat may see ----------------------------------------------------------------------

    def view(self, state: SaltacavalloState, viewer: Viewer) -> SaltacavalloView:
        lives = state.lives
        return SaltacavalloView(
            names=state.names,
            chips=state.chips,
            pot=state.pot,
            lives=lives,
            alive=tuple(life > 0 for life in lives),
            dealer=state.dealer,
            phase=state.phase,
            turn=state.turn if state.turn >= 0 else None,
            cards=state.hand,
            stock_size=len(state.stock),
            discards=state.discards,
            losers=state.losers,
            revived=state.revived,
            winners=state.winners,
            hands=state.hands,
            sitting_out=state.sitting_out,
        )


def _between_hands(state: SaltacavalloState, seat: int) -> tuple[LegalAction, ...]:
    """SC-5: the dealer deals (option ``sit_out``: or sits a seat out or in); SC-13: a dead seat may ask a giver
    for a life."""
    if seat == state.dealer:
        return _dealers_choice(state) if state.rules.sit_out else _DEAL_ONLY
    if state.rules.revival and not state.lives[seat]:
        return tuple(_REVIVE[g] for g in _givers(state))
    return _NONE


def _dealers_choice(state: SaltacavalloState) -> tuple[LegalAction, ...]:
    """Option ``sit_out``: the dealer deals while another seat is dealt in, sits out a living seat that would be
    dealt in, or sits in one that sits out (the dealer himself never sits out)."""
    lives, dealer, sitting_out = state.lives, state.dealer, state.sitting_out
    players = tuple(s for s, left in enumerate(lives) if left and s != dealer and s not in sitting_out)
    return sit_entries(_DEAL_ONLY if players else _NONE, players, sitting_out)


def _givers(state: SaltacavalloState) -> list[int]:
    """SC-13: the living seats a dead seat may name as giver now (never one sitting out: it is away)."""
    lives, revived, out = state.lives, state.revived, state.sitting_out
    exempt = state.dealer if state.rules.revival_dealer_exempt else -1
    return [s for s in range(len(lives)) if lives[s] and s != exempt and s not in revived and s not in out]
