"""A turn: an exchange with the widow or taking all of it (TR-9), Trentuno reached (TR-10), a stop and the last
round (TR-11), and the round limit (TR-14)."""

from __future__ import annotations

from mazziere.engine.cards import Card
from mazziere.engine.games.trentuno import events
from mazziere.engine.games.trentuno.hands import TRENTUNO, hand_key
from mazziere.engine.games.trentuno.players import after, face_up, held, next_after, place
from mazziere.engine.games.trentuno.showdown import finish
from mazziere.engine.games.trentuno.state import Closing, Ending, TrentunoState
from mazziere.engine.step import Step
from mazziere.engine.table import Outcome
from mazziere.engine.visibility import PUBLIC, TableCard, table_card


def exchange(step: Step[TrentunoState], seat: int, given: Card, taken: Card) -> Outcome:
    """TR-9: one card of the hand for one of the widow, both shown."""
    state = step.state
    hand, widow = state.hands[seat], state.widow
    i, j = place(hand, given), place(widow, taken)
    laid = table_card(given, PUBLIC)
    hand = (*hand[:i], table_card(taken, hand[i].seen_by), *hand[i + 1 :])
    widow = (*widow[:j], laid, *widow[j + 1 :])
    step.event(events.EXCHANGE, seat=seat, cards=(laid, table_card(taken, PUBLIC)))
    return _new_hand(step, seat, hand, widow, None)


def take_all(step: Step[TrentunoState], seat: int) -> Outcome:
    """TR-9: the whole widow taken, the hand laid down as the new widow; before the last round, it opens it."""
    state = step.state
    hand = state.hands[seat]
    mine = hand[0].seen_by
    widow = face_up(hand)
    hand = tuple([table_card(card, mine) for card in held(state.widow)])
    step.event(events.TAKE_ALL, seat=seat, cards=widow)
    return _new_hand(step, seat, hand, widow, Closing.TAKE_ALL)


def stop(step: Step[TrentunoState], seat: int) -> Outcome:
    """TR-11: a stop opens the last round."""
    step.event(events.STOP, seat=seat)
    return _turn_passes(step, seat, Closing.STOP)


def pass_turn(step: Step[TrentunoState], seat: int) -> Outcome:
    """TR-11: a seat passes its turn in the last round."""
    step.event(events.PASS, seat=seat)
    return _turn_passes(step, seat, None)


def _new_hand(
    step: Step[TrentunoState],
    seat: int,
    hand: tuple[TableCard, ...],
    widow: tuple[TableCard, ...],
    opens: Closing | None,
) -> Outcome:
    """The seat's new hand and the widow on the table; TR-10: a Trentuno ends the deal at once."""
    hands = step.start.hands
    step.change(hands=(*hands[:seat], hand, *hands[seat + 1 :]), widow=widow)
    if hand_key(held(hand), step.start.rules.tris_by_points)[0] == TRENTUNO:
        return finish(step, Ending.TRENTUNO, (seat,))
    return _turn_passes(step, seat, opens)


def _turn_passes(step: Step[TrentunoState], seat: int, opens: Closing | None) -> Outcome:
    """The next seat's turn: in the last round the next one owed a turn, or the showdown (TR-11); else a stop or
    a take-all (``opens``) opens the last round, and the dealer's exchange ends a round (TR-14)."""
    state = step.start  # the turn's fields as the action found them (a turn changes only the hands and widow)
    if state.stopper is not None:  # TR-11: one last turn each
        left = state.last_left[1:]
        if not left:
            step.change(last_left=())
            return finish(step, Ending.SHOWDOWN, None)
        return step.outcome(last_left=left, turn=left[0])
    if opens is not None:
        left = after(state.in_deal, seat, state.seat_count)
        return step.outcome(stopper=seat, closing=opens, last_left=left, turn=left[0])
    rounds = state.rounds
    if seat == state.dealer:
        rounds += 1
        if rounds >= state.rules.max_rounds:  # TR-14: as if the dealer had stopped
            left = after(state.in_deal, seat, state.seat_count)
            step.event(events.ROUND_LIMIT, seat=seat, amount=rounds)
            return step.outcome(rounds=rounds, stopper=seat, closing=Closing.ROUND_LIMIT, last_left=left, turn=left[0])
    return step.outcome(rounds=rounds, turn=next_after(state.in_deal, seat, state.seat_count))
