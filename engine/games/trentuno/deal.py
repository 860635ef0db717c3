"""A deal: the antes (TR-3), three cards each and the widow (TR-4), and a Trentuno at once (TR-6, TR-7)."""

from __future__ import annotations

from mazziere.engine.cards import FRENCH_32, Card
from mazziere.engine.games.trentuno import events
from mazziere.engine.games.trentuno.hands import TRENTUNO, hand_key
from mazziere.engine.games.trentuno.players import face_up, participants
from mazziere.engine.games.trentuno.showdown import finish
from mazziere.engine.games.trentuno.state import Ending, Phase, TrentunoState
from mazziere.engine.ledger import POT
from mazziere.engine.seats import mask, round_from
from mazziere.engine.step import Step
from mazziere.engine.table import Outcome
from mazziere.engine.visibility import PUBLIC, TableCard, only, table_card


def deal(step: Step[TrentunoState]) -> Outcome:
    """TR-3 antes, TR-4 the deal, then TR-6 and TR-7."""
    state = step.state
    rules, dealer = state.rules, state.dealer
    players = participants(rules, state.chips, state.lives)
    order = round_from(mask(state.seat_count, players), dealer)
    pot = state.pot + _antes(step, order)
    deck = step.dealing.shuffle(FRENCH_32)
    step.dealing.reveal(keep_current=True)  # the last deal's pack is gathered
    step.dealing.took(deck, 3 * (len(order) + 1))
    dealt, widow_cards = _three_each(deck, order)
    hands = tuple([_face_down(dealt[s], s) if s in dealt else () for s in range(state.seat_count)])
    widow = tuple([table_card(c, PUBLIC) for c in widow_cards])
    step.event(events.DEAL, seat=dealer, amount=pot)
    for s in order:
        step.event(events.HAND, seat=s, cards=hands[s])
    step.event(events.WIDOW, cards=widow)
    step.change(
        phase=Phase.PLAYING,
        deals=state.deals + 1,
        in_deal=players,
        hands=hands,
        widow=widow,
        stock=deck[3 * (len(order) + 1) :],
        turn=order[0],
        rounds=0,
        stopper=None,
        closing=None,
        last_left=(),
        result=None,
    )
    return _trentuno_at_once(step, dealt, widow_cards)


def _antes(step: Step[TrentunoState], order: tuple[int, ...]) -> int:
    """TR-3: each seat dealt in pays the ante into the pot. The chips paid."""
    ante, chips, paid = step.state.rules.ante, step.state.chips, 0
    for s in order:
        if ante and chips[s] >= ante:  # LIVES: a live seat that cannot pay plays on without paying
            step.pay(s, POT, ante, "ante")
            paid += ante
    return paid


def _face_down(cards: list[Card], seat: int) -> tuple[TableCard, ...]:
    """``cards`` in ``seat``'s hand, seen by that seat alone."""
    mine = only(seat)
    return tuple([table_card(c, mine) for c in cards])


def _three_each(deck: tuple[Card, ...], order: tuple[int, ...]) -> tuple[dict[int, list[Card]], list[Card]]:
    """TR-4: one card at a time round the deal and one to the widow, three times: each seat's cards, the widow's."""
    dealt: dict[int, list[Card]] = {s: [] for s in order}
    widow: list[Card] = []
    i = 0
    for _ in range(3):
        for s in order:
            dealt[s].append(deck[i])
            i += 1
        widow.append(deck[i])
        i += 1
    return dealt, widow


def _trentuno_at_once(step: Step[TrentunoState], dealt: dict[int, list[Card]], widow_cards: list[Card]) -> Outcome:
    """TR-6: a Trentuno in the widow goes to the dealer, who wins; TR-7: the best Trentuno dealt wins; else the
    deal is played."""
    state = step.state
    dealer, hands, tbp = state.dealer, state.hands, state.rules.tris_by_points
    if hand_key(widow_cards, tbp)[0] == TRENTUNO:
        taken = _face_down(widow_cards, dealer)
        laid = face_up(hands[dealer])
        step.change(hands=(*hands[:dealer], taken, *hands[dealer + 1 :]), widow=laid)
        step.event(events.WIDOW_TRENTUNO, seat=dealer, cards=state.widow)  # the widow as it was dealt
        return finish(step, Ending.WIDOW_TRENTUNO, (dealer,))
    if any(hand_key(cards, tbp)[0] == TRENTUNO for cards in dealt.values()):
        return finish(step, Ending.DEALT_TRENTUNO, None)
    return step.outcome()
