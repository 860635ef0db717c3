"""The end of a deal: the hands shown (TR-12), the pot paid (TR-3) or lives taken (LIVES), the deal passed on
(TR-13), or the game ended."""

from __future__ import annotations

from mazziere.engine.events import GAME_OVER, HAND_OVER
from mazziere.engine.games.trentuno import events
from mazziere.engine.games.trentuno.hands import HandKey, HandKind, hand_key, hand_kind, hand_points
from mazziere.engine.games.trentuno.players import after, can_deal, face_up, held, participants
from mazziere.engine.games.trentuno.rules import Scoring
from mazziere.engine.games.trentuno.state import DealResult, Ending, Phase, TrentunoState
from mazziere.engine.ledger import POT
from mazziere.engine.seats import mask, next_in_play
from mazziere.engine.step import Step
from mazziere.engine.table import Outcome
from mazziere.engine.visibility import TableCard

Shown = tuple[tuple[TableCard, ...], ...]
"""Every seat's hand, face up."""


def finish(step: Step[TrentunoState], ending: Ending, winners: tuple[int, ...] | None) -> Outcome:
    """Reveal the hands, pay the pot (TR-3, TR-12) or take lives, pass the deal (TR-13), or end the game."""
    state = step.state
    dealer = state.dealer
    order = (*after(state.in_deal, dealer, state.seat_count), dealer)
    keys: dict[int, HandKey] = {s: hand_key(held(state.hands[s]), state.rules.tris_by_points) for s in order}
    if winners is None:
        best = max(keys.values())
        winners = tuple([s for s in order if keys[s] == best])
    hands = tuple([face_up(hand) for hand in state.hands])
    kinds, points = _show(step, order, keys, hands)
    lives, share = state.lives, 0
    losers: tuple[int, ...] = ()
    if state.rules.scoring is Scoring.POT:
        share = _pay_shares(step, winners)
    else:
        lives, losers = _take_lives(step, order, keys)
    for w in winners:
        step.event(events.WIN, seat=w, amount=share, points=points[w])
    step.event(HAND_OVER, seat=winners[0], amount=share, points=points[winners[0]])
    result = DealResult(ending, winners, share, step.pot, losers, kinds, points)
    return _next_deal(step, result, hands, lives)


def _show(
    step: Step[TrentunoState], order: tuple[int, ...], keys: dict[int, HandKey], hands: Shown
) -> tuple[tuple[HandKind, ...], tuple[int, ...]]:
    """TR-12: each hand of the deal shown, in play order; every seat's hand kind and points (none if not dealt in)."""
    n = step.state.seat_count
    points = [0] * n
    kinds = [HandKind.NONE] * n
    for s in order:
        points[s] = hand_points(keys[s])
        kinds[s] = hand_kind(keys[s])
        step.event(events.SHOW, seat=s, cards=hands[s], points=points[s])
    return tuple(kinds), tuple(points)


def _pay_shares(step: Step[TrentunoState], winners: tuple[int, ...]) -> int:
    """TR-3, TR-12 POT: the winners share the pot; the odd chips stay in it. Each one's share."""
    share = step.pot // len(winners)
    for w in winners:
        if share:
            step.pay(POT, w, share, "pot")
    return share


def _take_lives(
    step: Step[TrentunoState], order: tuple[int, ...], keys: dict[int, HandKey]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """TR-12 LIVES: the worst hands lose a life, unless that would leave nobody alive. The lives, and who lost."""
    lives = step.state.lives
    worst = min(keys.values())
    losers = tuple(s for s in order if keys[s] == worst)
    after_deal = list(lives)
    for s in losers:
        after_deal[s] -= 1
    if not any(after_deal):  # a deal that would leave nobody alive costs nobody a life
        return lives, ()
    for s in losers:
        step.event(events.LIFE_LOST, seat=s, amount=after_deal[s])
    return tuple(after_deal), losers


def _next_deal(step: Step[TrentunoState], result: DealResult, hands: Shown, lives: tuple[int, ...]) -> Outcome:
    """TR-13: the deal passes to the next seat that can be dealt in; without enough of them the game is over."""
    state = step.state
    rules, dealer = state.rules, state.dealer
    players = participants(rules, step.chips, lives)
    if can_deal(rules, players):
        nxt = next_in_play(mask(state.seat_count, players), dealer)  # TR-13
        assert nxt is not None
        step.event(events.DEALER, seat=nxt)
        return step.outcome(
            phase=Phase.WAITING, dealer=nxt, hands=hands, turn=None, last_left=(), lives=lives, result=result
        )
    # The game is over: the pot left goes to the last survivor (LIVES) or, with the odd chips of a split,
    # to the last deal's winner nearest the dealer's left (POT).
    heir = players[0] if rules.scoring is Scoring.LIVES and players else result.winners[0]
    left = step.pot
    if left:
        step.pay(POT, heir, left, "pot")
    step.event(GAME_OVER, seat=heir if rules.scoring is Scoring.LIVES else None, amount=left)
    return step.outcome(phase=Phase.OVER, hands=hands, turn=None, last_left=(), lives=lives, result=result)
