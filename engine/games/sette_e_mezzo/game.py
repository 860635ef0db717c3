"""Sette e mezzo (RULES.md §1) as a :class:`~engine.game.Game`: the table, what a seat may do, one action handed
to its step (:mod:`.deal`, :mod:`.turns`, :mod:`.showdown`), the view."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar

from mazziere.engine.dealing import Dealing
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.events import GAME_OVER
from mazziere.engine.game import Game
from mazziere.engine.games.sette_e_mezzo import events, validate
from mazziere.engine.games.sette_e_mezzo.deal import choose_bank, deal, sit
from mazziere.engine.games.sette_e_mezzo.points import scoring
from mazziere.engine.games.sette_e_mezzo.rules import PRESETS, BurnWhen, SetteEMezzoRules
from mazziere.engine.games.sette_e_mezzo.state import (
    Phase,
    SeatHand,
    SeatView,
    SetteEMezzoState,
    SetteEMezzoView,
)
from mazziere.engine.games.sette_e_mezzo.turns import bank_hit, bank_stands, burn, hit, stake, stand
from mazziere.engine.sitting import SIT_IN, SIT_KINDS, SIT_OUT, sit_entries
from mazziere.engine.step import Step
from mazziere.engine.table import Action, Event, LegalAction, Outcome, Seat
from mazziere.engine.visibility import Viewer

DEAL, STAKE, HIT, HIT_HIDDEN, STAND, BURN = "DEAL", "STAKE", "HIT", "HIT_HIDDEN", "STAND", "BURN"
_DEAL = (LegalAction(DEAL),)
_BANK_HIT_STAND = (LegalAction(HIT), LegalAction(STAND))
_STAND = (LegalAction(STAND),)
_BURN = LegalAction(BURN)


class SetteEMezzo(Game[SetteEMezzoState, SetteEMezzoRules]):
    id = "sette_e_mezzo"
    title = "Sette e mezzo"
    state_type = SetteEMezzoState
    rules_type = SetteEMezzoRules
    presets: ClassVar[dict[str, SetteEMezzoRules]] = PRESETS
    action_kinds = (DEAL, STAKE, HIT, HIT_HIDDEN, STAND, BURN, SIT_OUT, SIT_IN)

    # -- a new table -------------------------------------------------------------------------------

    def start(self, rules: SetteEMezzoRules, seats: Sequence[Seat], seed: bytes, table_id: str) -> Outcome:
        n = len(seats)
        if not rules.min_seats <= n <= rules.max_seats:
            raise Rejected(
                Reason.INVALID_SEATS,
                f"sette e mezzo under these rules seats {rules.min_seats}..{rules.max_seats}, bank included; got {n}",
            )
        told: list[Event] = []
        dealing = Dealing.opening(seed, told)
        bank = choose_bank(rules, n, dealing)
        told.append(Event(events.FIRST_BANK, seat=bank))
        chips = tuple(s.chips for s in seats)
        over = not any(c >= rules.min_stake for s, c in enumerate(chips) if s != bank)
        state = SetteEMezzoState.opening(
            self.id,
            table_id,
            rules,
            seats,
            dealing,
            phase=Phase.OVER if over else Phase.WAIT_DEAL,
            bank=bank,
            turn=-1 if over else bank,
            hands=tuple(SeatHand() for _ in seats),
            stock=(),
            discards=(),
            fresh=True,
            exhausted=False,
            matta_shown=False,
            hand_number=0,
            results=(),
            bank_points=None,
        )
        if over:
            told.append(Event(GAME_OVER))
        return Outcome(state, tuple(told))

    # -- what a seat may do ------------------------------------------------------------------------

    def legal_actions(self, state: SetteEMezzoState, seat: int) -> tuple[LegalAction, ...]:
        if seat != state.turn:
            return ()
        phase = state.phase
        if phase is Phase.DECIDE:
            return _decide(state, seat)
        if phase is Phase.STAKE:
            rules = state.rules
            high = min(rules.max_stake, state.chips[seat])
            return _stakes(rules.min_stake, high, _can_burn(state, state.hands[seat]))
        if phase is Phase.WAIT_DEAL:
            return _between_hands(state) if state.rules.sit_out else _DEAL
        if phase is Phase.BANK:
            return _BANK_HIT_STAND if state.stock or state.discards else _STAND
        return ()

    def check_state(self, state: SetteEMezzoState) -> None:
        validate.check_state(state)

    def to_act(self, state: SetteEMezzoState) -> tuple[int, ...]:
        return () if state.phase is Phase.OVER else (state.turn,)

    def house_seats(self, state: SetteEMezzoState) -> frozenset[int]:
        return frozenset((state.bank,)) if state.rules.house_bank else frozenset()

    def is_over(self, state: SetteEMezzoState) -> bool:
        return state.phase is Phase.OVER

    # -- one action --------------------------------------------------------------------------------

    def play(self, state: SetteEMezzoState, action: Action) -> Outcome:
        kind, seat = action.kind, action.seat
        step = Step(state)
        if state.phase is Phase.BANK:
            return bank_hit(step) if kind == HIT else bank_stands(step)
        if kind in (HIT, HIT_HIDDEN):
            return hit(step, seat, action.amount, hidden=kind == HIT_HIDDEN)
        if kind == STAND:
            return stand(step, seat, action.amount)
        if kind == STAKE:
            return stake(step, seat, action.amount)
        if kind == BURN:
            return burn(step, seat)
        if kind in SIT_KINDS:
            return sit(step, action.target, out=kind == SIT_OUT)  # type: ignore[arg-type]  # entries name one
        return deal(step)

    # -- what a seat may see -----------------------------------------------------------------------

    def view(self, state: SetteEMezzoState, viewer: Viewer) -> SetteEMezzoView:
        seats = []
        for s, h in enumerate(state.hands):
            known = h.cards and (s == viewer or all(tc.seen_by.everyone for tc in h.cards))
            seats.append(
                SeatView(
                    state.names[s], state.chips[s], h.stake, h.status, h.cards, h.points if known else None, h.burned
                )
            )
        return SetteEMezzoView(
            state.phase,
            state.bank,
            None if state.phase is Phase.OVER else state.turn,
            state.hand_number,
            tuple(seats),
            len(state.stock),
            len(state.discards),
            state.results,
            state.bank_points,
            state.sitting_out,
        )


def _between_hands(state: SetteEMezzoState) -> tuple[LegalAction, ...]:
    """Option ``sit_out``: the bank deals while a player is dealt in, sits out a player who would be dealt in, or
    sits in one who sits out (the bank itself never sits out: it deals)."""
    rules, bank, sitting_out = state.rules, state.bank, state.sitting_out
    players = tuple(s for s, c in enumerate(state.chips) if s != bank and c >= rules.min_stake and s not in sitting_out)
    return sit_entries(_DEAL if players else (), players, sitting_out)


def _decide(state: SetteEMezzoState, seat: int) -> tuple[LegalAction, ...]:
    """SM-8, SM-9, SM-20, CASINO forced draws: a player's choices after his stake."""
    rules, h = state.rules, state.hands[seat]
    can = bool(state.stock or state.discards)
    top = min(rules.max_stake, state.chips[seat]) - h.stake if rules.raise_on_decision else 0
    must_draw = can and rules.forced_draws and _must_draw(state, h)
    return _decisions(can, can and rules.hidden_card_choice, not must_draw, _can_burn(state, h), top)


@lru_cache(maxsize=4096)
def _decisions(hit: bool, hit_hidden: bool, stand: bool, burn: bool, top: int) -> tuple[LegalAction, ...]:
    """The legal entries of a decision, built once per shape (the hot path allocates none)."""
    out = [LegalAction(HIT, 0, top)] if hit else []
    if hit_hidden:
        out.append(LegalAction(HIT_HIDDEN, 0, top))
    if stand:
        out.append(LegalAction(STAND, 0, top))
    if burn:
        out.append(_BURN)
    return tuple(out)


@lru_cache(maxsize=4096)
def _stakes(low: int, high: int, burn: bool) -> tuple[LegalAction, ...]:
    stake = LegalAction(STAKE, low, high)
    return (stake, _BURN) if burn else (stake,)


def _must_draw(state: SetteEMezzoState, h: SeatHand) -> bool:
    """CASINO: below the bank's up card, or a lone matta, the player must draw."""
    sc = scoring(state.rules)
    if len(h.cards) == 1 and h.cards[0].card == sc.matta:
        return True
    up = state.hands[state.bank].cards[0].card
    return h.points < (sc.matta_low if up == sc.matta else sc.points((up,)))  # type: ignore[arg-type]


def _can_burn(state: SetteEMezzoState, h: SeatHand) -> bool:
    """SM-20: the last card received is of a burn rank, within the limit, and a replacement exists."""
    rules = state.rules
    if not rules.burn_ranks or not (state.stock or state.discards):
        return False
    if rules.burn_limit and len(h.burned) >= rules.burn_limit:
        return False
    if rules.burn_when is BurnWhen.FIRST_CARD and len(h.cards) != 1:
        return False
    return scoring(rules).burnable(h.cards[-1].card)  # type: ignore[arg-type]
