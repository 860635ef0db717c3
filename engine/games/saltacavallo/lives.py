"""Lives and the pot: the end of a hand (SC-11, SC-12, SC-14, SC-15), and between hands a life given (SC-13) and
a seat sat out or in (option ``sit_out``)."""

from __future__ import annotations

from collections.abc import Sequence

from mazziere.engine.events import GAME_OVER, HAND_OVER
from mazziere.engine.games.saltacavallo import events
from mazziere.engine.games.saltacavallo.rules import AllDeadHand, SaltacavalloRules
from mazziere.engine.games.saltacavallo.state import Phase, SaltacavalloState, in_hand
from mazziere.engine.ledger import POT
from mazziere.engine.seats import next_in_play, round_from
from mazziere.engine.sitting import SAT_IN, SAT_OUT, seated
from mazziere.engine.step import Step
from mazziere.engine.table import Outcome
from mazziere.engine.visibility import TableCard


def finish_hand(step: Step[SaltacavalloState]) -> Outcome:
    """SC-11/SC-12/SC-14/SC-15: the lowest rank loses a life; the deal passes on, or the game ends."""
    state = step.state
    rules, dealer = state.rules, state.dealer
    lives = list(state.lives)
    dealt = in_hand(state)
    living = [s for s in range(len(lives)) if dealt[s]]  # the living seats dealt in (none sitting out)
    low, losers = _lowest(state.hand, living)
    if len(losers) == len(living) and _replays(rules, lives, losers):
        step.event(events.REPLAY, seat=dealer, points=low)
        step.event(HAND_OVER, seat=dealer, points=low)
        return step.outcome(turn=-1, phase=Phase.DEAL, losers=())
    _lose_lives(step, lives, losers, low)
    step.event(HAND_OVER, seat=dealer, points=low)
    winners = _winners(rules, [s for s in range(len(lives)) if lives[s]], losers)
    next_dealer: int | None = dealer
    if winners:
        _pay_the_pot(step, winners)
    else:
        next_dealer = _next_dealer(step, lives, dealer)
        step.event(events.NEXT_DEALER, seat=next_dealer)
    return step.outcome(
        turn=-1,
        phase=Phase.OVER if winners else Phase.DEAL,
        lives=tuple(lives),
        dealer=next_dealer,
        losers=tuple(losers),
        winners=winners,
    )


def _next_dealer(step: Step[SaltacavalloState], lives: list[int], dealer: int) -> int:
    """SC-14: the next living seat deals, skipping the seats sitting out (option ``sit_out``); if only seats
    sitting out live beside him, the next of them sits in to deal (the seat that deals never sits out)."""
    out = step.state.sitting_out
    seat = next_in_play([bool(left) and s not in out for s, left in enumerate(lives)], dealer)
    if seat is None and lives[dealer]:
        return dealer  # the others living sit out: he deals again (to nobody until one sits in)
    if seat is None:
        seat = next_in_play(lives, dealer)
        assert seat is not None  # the game goes on: two seats live
        if seat in out:
            step.event(SAT_IN, seat=seat, target=seat)
            step.change(sitting_out=seated(out, seat, out=False))
    return seat


def _lowest(hand: tuple[TableCard | None, ...], living: list[int]) -> tuple[int, list[int]]:
    """SC-11: the lowest rank the living seats hold, and the seats that hold it."""
    ranks = {s: hand[s].card.rank for s in living}  # type: ignore[union-attr]
    low = min(ranks.values())
    return low, [s for s in living if ranks[s] == low]


def _replays(rules: SaltacavalloRules, lives: list[int], losers: list[int]) -> bool:
    """SC-12 REPLAY: every living seat lost and each would die, so the hand is played again."""
    return rules.all_dead_hand is AllDeadHand.REPLAY and all(lives[s] == 1 for s in losers)


def _lose_lives(step: Step[SaltacavalloState], lives: list[int], losers: list[int], low: int) -> None:
    """SC-11: each loser gives a life (its coin to the pot) and may die; ``lives`` is changed in place."""
    coin = step.state.rules.coin
    for s in losers:
        lives[s] -= 1
        step.pay(s, POT, coin, "life")
        step.event(events.LIFE_LOST, seat=s, amount=coin, points=low)
        if not lives[s]:
            step.event(events.DEAD, seat=s)


def _winners(rules: SaltacavalloRules, alive: list[int], losers: list[int]) -> tuple[int, ...]:
    """SC-12 SPLIT_POT: seats that all die together win together; SC-15: the last one alive (or two, with
    ``end_at_two_split``) wins; otherwise nobody yet."""
    if not alive:
        return tuple(losers)
    if len(alive) == 1 or (len(alive) == 2 and rules.end_at_two_split):
        return tuple(alive)
    return ()


def _pay_the_pot(step: Step[SaltacavalloState], winners: tuple[int, ...]) -> None:
    """SC-15: the winner takes the pot, or the winners share it; the game is over."""
    pot = step.pot
    if len(winners) == 1:
        step.pay(POT, winners[0], pot, "pot")
        step.event(events.POT_WON, seat=winners[0], amount=pot)
    else:
        _split(step, winners)
    step.event(GAME_OVER, seat=winners[0] if len(winners) == 1 else None, amount=pot)


def _split(step: Step[SaltacavalloState], seats: Sequence[int]) -> None:
    """Share the pot equally; the odd chips go one each to the sharers in play order after the dealer."""
    state = step.state
    order = [s for s in round_from((True,) * state.seat_count, state.dealer) if s in seats]
    share, odd = divmod(step.pot, len(order))
    for i, s in enumerate(order):
        amount = share + (1 if i < odd else 0)
        if amount:
            step.pay(POT, s, amount, "pot share")
        step.event(events.POT_SHARE, seat=s, amount=amount)


def sit(step: Step[SaltacavalloState], seat: int, out: bool) -> Outcome:
    """Option ``sit_out``: between hands the dealer sits a living seat out of the next hands (``out``), or in."""
    state = step.state
    step.event(SAT_OUT if out else SAT_IN, seat=seat, target=state.dealer)
    return step.outcome(sitting_out=seated(state.sitting_out, seat, out))


def revive(step: Step[SaltacavalloState], dead: int, giver: int) -> Outcome:
    """SC-13: the giver hands one life (and its coin) to the dead seat; the giver may die."""
    state = step.state
    lives = list(state.lives)
    lives[dead] += 1
    lives[giver] -= 1
    coin = state.rules.coin
    step.pay(giver, dead, coin, "revival")
    step.event(events.REVIVE, seat=dead, target=giver, amount=coin)
    dealer = state.dealer
    if not lives[giver]:
        step.event(events.DEAD, seat=giver)
        if giver == dealer:
            dealer = _next_dealer(step, lives, giver)
            step.event(events.NEXT_DEALER, seat=dealer)
    return step.outcome(lives=tuple(lives), dealer=dealer, revived=(*state.revived, dead))
