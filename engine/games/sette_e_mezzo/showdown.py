"""The end of a hand: each player settled with the bank (SM-13..SM-15, SM-19), the bank passed on (SM-16,
SM-17, SM-23) and a fresh pack planned (SM-18), then the next hand or the end of the game."""

from __future__ import annotations

from mazziere.engine.events import GAME_OVER, HAND_OVER
from mazziere.engine.games.sette_e_mezzo import events
from mazziere.engine.games.sette_e_mezzo.hands import cards_of, public_points, turned_up
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
    hands = list(state.hands)
    results, paid_double, matta_shown = _settle(step, hands, chips)
    bank_hand = state.hands[bank]
    bank_points = bank_hand.points if played and public_points(bank_hand) else None
    matta_shown = matta_shown or state.matta_shown
    new_pack, exhausted = _next_pack(state, chips, matta_shown)
    new_bank = _pass_bank(step, chips, paid_double, played and _reale(rules, bank_hand), exhausted)
    step.event(HAND_OVER, seat=bank, amount=state.hand_number)
    phase, turn = (Phase.WAIT_DEAL, new_bank) if _players_left(rules, chips, new_bank) else (Phase.OVER, -1)
    if phase is Phase.OVER:
        step.event(GAME_OVER)
    return step.outcome(
        hands=tuple(hands),
        matta_shown=matta_shown,
        fresh=state.fresh or new_pack or exhausted,
        results=tuple(results),
        bank_points=bank_points,
        bank=new_bank,
        phase=phase,
        turn=turn,
    )


def _players_left(rules: SetteEMezzoRules, chips: list[int], bank: int) -> bool:
    """A seat other than the bank can stake: the game goes on."""
    return any(c >= rules.min_stake for s, c in enumerate(chips) if s != bank)


def _reale(rules: SetteEMezzoRules, hand: SeatHand) -> bool:
    """SM-15, SM-22: a reale or a triplé, not bust."""
    cards = cards_of(hand.cards)
    return hand.status is not Status.BUST and (is_reale(cards, hand.points) or scoring(rules).is_triple(cards))


def _settle(
    step: Step[SetteEMezzoState], hands: list[SeatHand], chips: list[int]
) -> tuple[list[SeatResult], list[int], bool]:
    """Every player's result in play order after the bank, the standing ones shown (in ``hands``) and paid or
    paying (``chips`` follows the payments); who won double with a reale (SM-23); whether the matta was shown."""
    state = step.state
    rules, bank = state.rules, state.bank
    sc = scoring(rules)
    bank_hand = hands[bank]
    bank_cards, bank_bust = cards_of(bank_hand.cards), bank_hand.status is Status.BUST
    results: list[SeatResult] = []
    paid_double: list[int] = []
    matta_shown = False
    for s in others_after(_played(hands), bank):
        h = hands[s]
        if h.status is Status.BUST:
            results.append(SeatResult(s, Result.BUST, -h.stake, public_points(h) or None, False))
            continue
        hands[s], shown = turned_up(step, s, h)
        matta_shown = matta_shown or (shown is not None and shown.card == sc.matta)
        cards = cards_of(h.cards)
        halves = judge(rules, sc, cards, h.points, bank_cards, bank_hand.points, bank_bust)
        result = _pay(step, s, h, halves, chips)
        if result.result is Result.WON and halves >= DOUBLE and result.reale:
            paid_double.append(s)
        results.append(result)
    return results, paid_double, matta_shown


def _played(hands: list[SeatHand]) -> list[bool]:
    """The seats that played this hand: bust, or standing for the showdown."""
    return [h.status is Status.BUST or h.status in IN_SHOWDOWN for h in hands]


def _pay(step: Step[SetteEMezzoState], seat: int, h: SeatHand, halves: int, chips: list[int]) -> SeatResult:
    """The bank pays the player, or he pays the bank (never more than he has: gap), or a push (``chips`` follows
    the payment); the player's result."""
    bank = step.start.bank
    amount = h.stake * abs(halves) // 2
    if halves > 0:
        step.pay(bank, seat, amount, "win")
        step.event(events.PAID, seat=seat, target=bank, amount=amount, points=h.points)
        result = Result.WON
    elif halves < 0:
        amount = min(amount, chips[seat])
        step.pay(seat, bank, amount, "loss")
        step.event(events.COLLECTED, seat=seat, target=bank, amount=amount, points=h.points)
        result, amount = Result.LOST, -amount
    else:
        step.event(events.PUSH, seat=seat, target=bank, points=h.points)
        result = Result.PUSH
    chips[seat] += amount
    chips[bank] -= amount
    cards = cards_of(h.cards)
    sc = scoring(step.start.rules)
    return SeatResult(seat, result, amount, h.points, is_reale(cards, h.points) or sc.is_triple(cards))


def _next_pack(state: SetteEMezzoState, chips: list[int], matta_shown: bool) -> tuple[bool, bool]:
    """SM-18: whether the next hand comes from a fresh pack (per ``reshuffle``); SM-17 DECK_EXHAUSTED: whether
    the deck is exhausted (the stock ran out in this hand, or the next deal would come from a stock too short;
    with a fresh pack next, the leftover stock is not dealt from). Either way the next deal shuffles a fresh pack."""
    rules = state.rules
    new_pack = rules.reshuffle is Reshuffle.EVERY_HAND or (rules.reshuffle is Reshuffle.ON_MATTA and matta_shown)
    short = not new_pack and len(state.stock) < 1 + sum(
        1 for s, c in enumerate(chips) if s != state.bank and c >= rules.min_stake
    )
    exhausted = rules.bank_passes_when is BankPasses.DECK_EXHAUSTED and (state.exhausted or short)
    return new_pack, exhausted


def _pass_bank(
    step: Step[SetteEMezzoState], chips: list[int], paid_double: list[int], bank_reale: bool, exhausted: bool
) -> int:
    """SM-16, SM-17, SM-23: the next hand's bank."""
    rules, old = step.start.rules, step.start.bank
    if rules.bank_passes_on_reale and bank_reale:
        return old
    bank = old
    if rules.bank_passes_on_reale and paid_double:
        bank = paid_double[0]
    elif rules.bank_passes_when is BankPasses.EVERY_HAND or exhausted:
        bank = _next_bank(rules, chips, old, step.start.sitting_out)
    if bank != old:
        step.event(events.BANK_PASSED, seat=old, target=bank)
    return bank


def _next_bank(rules: SetteEMezzoRules, chips: list[int], bank: int, sitting_out: tuple[int, ...]) -> int:
    """The next seat in play order with at least ``min_stake`` chips (gap) that does not sit out; the bank stays
    if none."""
    s = next_in_play([c >= rules.min_stake and i not in sitting_out for i, c in enumerate(chips)], bank)
    return bank if s is None else s
