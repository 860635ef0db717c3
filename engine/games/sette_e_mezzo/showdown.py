"""The end of a hand: each player settled with the bank (SM-13..SM-15, SM-19), the bank passed on (SM-16,
SM-17, SM-23) and a fresh pack planned (SM-18), then the next hand or the end of the game."""

from __future__ import annotations

from mazziere.engine.events import GAME_OVER, HAND_OVER
from mazziere.engine.games.sette_e_mezzo import events
from mazziere.engine.games.sette_e_mezzo.hands import cards_of, public_points, reveal
from mazziere.engine.games.sette_e_mezzo.judge import DOUBLE, judge
from mazziere.engine.games.sette_e_mezzo.points import is_reale, scoring
from mazziere.engine.games.sette_e_mezzo.rules import BankPasses, Reshuffle, SetteEMezzoRules
from mazziere.engine.games.sette_e_mezzo.state import Phase, Result, SeatHand, SeatResult, SetteEMezzoState, Status
from mazziere.engine.seats import next_in_play, others_after
from mazziere.engine.step import Step
from mazziere.engine.table import Outcome

IN_SHOWDOWN = (Status.STOOD, Status.SETTE_E_MEZZO)
"""The statuses of a player still in the hand when the bank has played."""


def end_hand(step: Step[SetteEMezzoState], played: bool) -> Outcome:
    """Settle (SM-13..15, SM-19), pass the bank (SM-16, 17, 23), plan the next shuffle (SM-18)."""
    state = step.state
    rules, bank = state.rules, state.bank
    chips = list(step.chips)  # the busts of this action paid
    bank_hand = state.hands[bank]
    bank_cards = cards_of(bank_hand.cards)
    results, paid_double = _settle(step, chips, bank_hand)
    bank_points = bank_hand.points if played and public_points(step.state.hands[bank]) else None
    sc = scoring(rules)
    bank_reale = bank_hand.status is not Status.BUST and (
        is_reale(bank_cards, bank_hand.points) or sc.is_triple(bank_cards)
    )
    new_bank = _pass_bank(step, chips, paid_double, played and bank_reale)
    step.event(HAND_OVER, seat=bank, amount=state.hand_number)
    if not any(c >= rules.min_stake for s, c in enumerate(chips) if s != new_bank):
        step.event(GAME_OVER)
        phase, turn = Phase.OVER, -1
    else:
        phase, turn = Phase.WAIT_DEAL, new_bank
    return step.outcome(results=tuple(results), bank_points=bank_points, bank=new_bank, phase=phase, turn=turn)


def _settle(step: Step[SetteEMezzoState], chips: list[int], bank_hand: SeatHand) -> tuple[list[SeatResult], list[int]]:
    """Every player's result in play order after the bank, the standing ones paid or paying (``chips`` follows
    the payments); and who won double with a reale (SM-23)."""
    state = step.state
    bank = state.bank
    bank_bust = bank_hand.status is Status.BUST
    results: list[SeatResult] = []
    paid_double: list[int] = []
    for s in others_after([h.status is Status.BUST or h.status in IN_SHOWDOWN for h in state.hands], bank):
        h = state.hands[s]
        if h.status is Status.BUST:
            results.append(SeatResult(s, Result.BUST, -h.stake, public_points(h) or None, False))
            continue
        reveal(step, s)
        cards = cards_of(h.cards)
        sc = scoring(state.rules)
        halves = judge(state.rules, sc, cards, h.points, cards_of(bank_hand.cards), bank_hand.points, bank_bust)
        result, amount = _pay(step, s, h, halves, chips)
        reale = is_reale(cards, h.points) or sc.is_triple(cards)
        if result is Result.WON and halves >= DOUBLE and reale:
            paid_double.append(s)
        chips[s] += amount
        chips[bank] -= amount
        results.append(SeatResult(s, result, amount, h.points, reale))
    return results, paid_double


def _pay(step: Step[SetteEMezzoState], seat: int, h: SeatHand, halves: int, chips: list[int]) -> tuple[Result, int]:
    """The bank pays the player, or he pays the bank (never more than he has: gap), or a push; the result and
    what the bank paid him (negative: he paid)."""
    bank = step.state.bank
    amount = h.stake * abs(halves) // 2
    if halves > 0:
        step.pay(bank, seat, amount, "win")
        step.event(events.PAID, seat=seat, target=bank, amount=amount, points=h.points)
        return Result.WON, amount
    if halves < 0:
        amount = min(amount, chips[seat])
        step.pay(seat, bank, amount, "loss")
        step.event(events.COLLECTED, seat=seat, target=bank, amount=amount, points=h.points)
        return Result.LOST, -amount
    step.event(events.PUSH, seat=seat, target=bank, points=h.points)
    return Result.PUSH, amount


def _pass_bank(step: Step[SetteEMezzoState], chips: list[int], paid_double: list[int], bank_reale: bool) -> int:
    """SM-16, SM-17, SM-23: the next hand's bank; SM-18: whether it is dealt from a fresh pack."""
    state = step.state
    rules, old = state.rules, state.bank
    exhausted = _plan_the_pack(step, chips)
    if rules.bank_passes_on_reale and bank_reale:
        return old
    bank = old
    if rules.bank_passes_on_reale and paid_double:
        bank = paid_double[0]
    elif rules.bank_passes_when is BankPasses.EVERY_HAND or exhausted:
        bank = _next_bank(rules, chips, old)
    if bank != old:
        step.event(events.BANK_PASSED, seat=old, target=bank)
    return bank


def _plan_the_pack(step: Step[SetteEMezzoState], chips: list[int]) -> bool:
    """SM-18: the next hand comes from a fresh pack (per ``reshuffle``, or the deck exhausted); whether the deck
    is exhausted (SM-17 DECK_EXHAUSTED)."""
    state = step.state
    rules = state.rules
    new_pack = rules.reshuffle is Reshuffle.EVERY_HAND or (rules.reshuffle is Reshuffle.ON_MATTA and state.matta_shown)
    # SM-17 DECK_EXHAUSTED: the stock ran out in this hand, or the next deal would come from a stock too short.
    # (With a fresh pack next, the leftover stock is not dealt from.)
    short = not new_pack and len(state.stock) < 1 + sum(
        1 for s, c in enumerate(chips) if s != state.bank and c >= rules.min_stake
    )
    exhausted = rules.bank_passes_when is BankPasses.DECK_EXHAUSTED and (state.exhausted or short)
    if new_pack or exhausted:
        step.change(fresh=True)
    return exhausted


def _next_bank(rules: SetteEMezzoRules, chips: list[int], bank: int) -> int:
    """The next seat in play order with at least ``min_stake`` chips (gap); the bank stays if none."""
    s = next_in_play([c >= rules.min_stake for c in chips], bank)
    return bank if s is None else s
