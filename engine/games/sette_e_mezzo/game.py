"""Sette e mezzo as a :class:`~engine.game.Game`: the table, the legal moves, one action, the view."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar

from mazziere.engine.dealing import Dealing
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.game import Game
from mazziere.engine.games.sette_e_mezzo import validate
from mazziere.engine.games.sette_e_mezzo.flow import Hand
from mazziere.engine.games.sette_e_mezzo.points import scoring
from mazziere.engine.games.sette_e_mezzo.rules import PRESETS, BurnWhen, FirstBank, SetteEMezzoRules
from mazziere.engine.games.sette_e_mezzo.state import (
    Phase,
    SeatHand,
    SeatView,
    SetteEMezzoState,
    SetteEMezzoView,
    Status,
)
from mazziere.engine.seats import first_dealer
from mazziere.engine.table import Action, Event, EventKind, LegalAction, Outcome, Seat
from mazziere.engine.visibility import PUBLIC, TableCard, Viewer, face_up

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
    action_kinds = (DEAL, STAKE, HIT, HIT_HIDDEN, STAND, BURN)

    # -- a new table -------------------------------------------------------------------------------

    def start(self, rules: SetteEMezzoRules, seats: Sequence[Seat], seed: bytes, table_id: str) -> Outcome:
        n = len(seats)
        if not rules.min_seats <= n <= rules.max_seats:
            raise Rejected(
                Reason.INVALID_SEATS,
                f"sette e mezzo under these rules seats {rules.min_seats}..{rules.max_seats}, bank included; got {n}",
            )
        events: list[Event] = []
        dealing = Dealing.opening(seed, events)
        if rules.first_bank is FirstBank.HIGHEST_CARD:
            bank = _highest_card(rules, n, dealing)
        else:
            fixed = rules.first_bank_seat if rules.first_bank is FirstBank.SEAT else None
            if fixed is not None and fixed >= n:
                raise Rejected(Reason.INVALID_OPTION, f"first_bank_seat {fixed} is not at this table")
            bank = first_dealer(n, dealing, fixed)
        events.append(Event(EventKind.FIRST_BANK, seat=bank))
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
            events.append(Event(EventKind.GAME_OVER))
        return Outcome(state, tuple(events))

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
            return _DEAL
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
        w = Hand(state)
        kind, seat = action.kind, action.seat
        if state.phase is Phase.BANK:
            if kind == HIT:
                w.bank_hit()
            else:
                w.bank_stands()
        elif kind in (HIT, HIT_HIDDEN):
            _raise(w, seat, action.amount)
            if kind == HIT_HIDDEN:  # SM-9 option: the hidden card goes up, the new one down
                w.reveal(seat)
            tc = w.give(seat, w.draw(), hidden=kind == HIT_HIDDEN)
            w.event(EventKind[kind], seat=seat, cards=(tc,), amount=action.amount)
            w.after_card(seat)
        elif kind == STAND:
            _raise(w, seat, action.amount)
            w.set_status(seat, Status.STOOD)
            w.event(EventKind.STOOD, seat=seat, amount=action.amount)
            w.next_player(seat)
        elif kind == STAKE:
            w.set_status(seat, Status.PLAYING, stake=action.amount)
            w.event(EventKind.STAKED, seat=seat, amount=action.amount)
            w.phase = Phase.DECIDE
        elif kind == BURN:
            _burn(w, seat)
        else:  # DEAL
            w.deal()
        return w.freeze()

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
        )


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


def _raise(w: Hand, seat: int, amount: int) -> None:
    """SM-8 ``raise_on_decision``: the amount of a hit or stand adds to the stake."""
    if amount:
        h = w.hands[seat]
        w.hands[seat] = SeatHand(h.cards, h.stake + amount, h.status, h.points, h.burned)


def _burn(w: Hand, seat: int) -> None:
    """SM-20: the card is shown and discarded; a replacement comes with the same face."""
    h = w.hands[seat]
    old = h.cards[-1]
    new = w.draw()
    shown = TableCard(old.card, PUBLIC)
    w.hands[seat] = SeatHand(h.cards, h.stake, h.status, h.points, (*h.burned, shown))
    w.event(EventKind.BURNED, seat=seat, cards=(shown,))
    tc = w.give(seat, new, hidden=not old.seen_by.everyone, replace=True)
    w.event(EventKind.REPLACED, seat=seat, cards=(tc,))
    if w.phase is Phase.DECIDE:
        w.after_card(seat)


def _highest_card(rules: SetteEMezzoRules, n: int, dealing: Dealing) -> int:
    """SM-6 HIGHEST_CARD (S000): each seat draws a card face up; the highest rank deals; ties draw again from a
    fresh pack once the pack is spent. Every card is face up: the packs are revealed at once."""
    sc = scoring(rules)
    deck = dealing.shuffle(sc.pack)
    contenders = list(range(n))
    i = 0
    while len(contenders) > 1:
        drawn = []
        for s in contenders:
            if i == len(deck):
                deck, i = dealing.shuffle(sc.pack), 0
            card = deck[i]
            dealing.took(deck[i:])
            i += 1
            drawn.append((card.rank, s))
            dealing.tell(Event(EventKind.DREW, seat=s, cards=(face_up(card),)))
        top = max(r for r, _ in drawn)
        contenders = [s for r, s in drawn if r == top]
    dealing.reveal(keep_current=False)
    return contenders[0]
