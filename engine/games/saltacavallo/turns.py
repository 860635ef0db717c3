"""The turns of a hand: whom a seat may swap with (SC-8, SC-9), keep or swap (SC-7), the dealer's turn (SC-10),
and the walks round the living seats they take."""

from __future__ import annotations

from collections.abc import Sequence

from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.games.saltacavallo import events
from mazziere.engine.games.saltacavallo.lives import finish_hand
from mazziere.engine.games.saltacavallo.pack import CAVALLO, FACE_UP, FANTE, RE
from mazziere.engine.games.saltacavallo.rules import MAX_SEATS
from mazziere.engine.games.saltacavallo.state import Phase, SaltacavalloState, in_hand
from mazziere.engine.seats import next_in_play, round_from
from mazziere.engine.step import Step
from mazziere.engine.table import Outcome
from mazziere.engine.visibility import Audience, TableCard, only

_PAIR = tuple(tuple(only(a, b) for b in range(MAX_SEATS)) for a in range(MAX_SEATS))
"""The audience of two seats that swap, made once."""

# -- the walks round the table ---------------------------------------------------------------------------------


def swap_target(state: SaltacavalloState, seat: int) -> int | None:
    """SC-8/SC-9: the seat ``seat`` may swap with, or ``None``.

    The next living seat; a cavallo there jumps to the seat after it (repeating), a re anywhere is a wall,
    the chain may end on the dealer but never passes him. Only face-up cards (public) decide it.
    """
    lives, hand, dealer = in_hand(state), state.hand, state.dealer
    t: int | None = seat
    for _ in range(len(lives)):  # the chain ends on the dealer within one round of the table
        t = next_in_play(lives, t)  # type: ignore[arg-type]
        held = None if t is None else hand[t]
        if t is None or t == seat or held is None or held.card is None:
            raise _bad("state.hand", f"no other living seat holding a card after seat {seat}")
        if not held.seen_by.everyone:
            return t
        if held.card.rank == RE or t == dealer:
            return None
        # a cavallo: jump to the seat after it
    raise _bad("state.dealer", f"no living dealer ({dealer}) ends the chain from seat {seat}")


def next_turn(lives: Sequence[int], hand: Sequence[TableCard | None], dealer: int, after: int) -> int:
    """SC-7: the next seat after ``after`` (before the dealer) holding a face-down card, or -1."""
    t: int | None = after
    for _ in range(len(lives)):  # the dealer comes round within one round of the table
        t = next_in_play(lives, t)  # type: ignore[arg-type]
        if t is None:
            break
        if t == dealer:
            return -1
        held = hand[t]
        if held is not None and not held.seen_by.everyone:
            return t
    raise _bad("state.dealer", f"seat {dealer} deals but is not a living seat")


def living_round(lives: Sequence[int], dealer: int) -> tuple[int, ...]:
    """The living seats in play order from the one after ``dealer``, the dealer last."""
    if not 0 <= dealer < len(lives) or not lives[dealer]:
        raise _bad("state.dealer", f"seat {dealer} deals but is not a living seat")
    return round_from(lives, dealer)


def _bad(path: str, what: str) -> Rejected:
    """A state no legal play makes (:func:`engine.registry.check_state` refuses it before play)."""
    return Rejected(Reason.INVALID_STATE, f"{path}: {what}")


# -- the turns --------------------------------------------------------------------------------------------------


def keep(step: Step[SaltacavalloState], seat: int) -> Outcome:
    """SC-7, SC-10: a seat keeps its card; the dealer's keep ends the hand."""
    step.event(events.KEEP, seat=seat)
    return finish_hand(step) if step.state.phase is Phase.DEALER else _after_turn(step)


def swap(step: Step[SaltacavalloState], seat: int, target: int) -> Outcome:
    """SC-7: the two cards change places face down; each side sees both."""
    hand = list(step.state.hand)
    given, taken = hand[seat], hand[target]
    assert given is not None and taken is not None
    both = _PAIR[seat][target]
    given = TableCard(given.card, Audience(seats=given.seen_by.seats | both.seats))
    taken = TableCard(taken.card, Audience(seats=taken.seen_by.seats | both.seats))
    hand[seat], hand[target] = taken, given
    step.event(events.SWAP, seat=seat, target=target, cards=(given, taken))
    step.change(hand=tuple(hand))
    return _after_turn(step)


def _after_turn(step: Step[SaltacavalloState]) -> Outcome:
    """The next seat with a face-down card plays, or the dealer's turn comes."""
    state = step.state
    turn = next_turn(in_hand(state), state.hand, state.dealer, state.turn)
    if turn >= 0:
        return step.outcome(turn=turn)
    return dealers_turn(step)


def dealers_turn(step: Step[SaltacavalloState]) -> Outcome:
    """SC-10: every card is turned face up; a dealer without a cavallo or re then keeps or draws."""
    state = step.state
    revealed = list(state.hand)
    for s in living_round(in_hand(state), state.dealer):
        held = revealed[s]
        if held is None or held.card is None:
            raise _bad(f"state.hand[{s}]", f"living seat {s} holds no card")
        if not held.seen_by.everyone:
            up = FACE_UP[held.card]
            revealed[s] = up
            step.event(events.REVEAL, seat=s, cards=(up,))
    step.change(hand=tuple(revealed))
    own = revealed[state.dealer]
    assert own is not None and own.card is not None
    if own.card.rank <= FANTE:
        return step.outcome(turn=-1, phase=Phase.DEALER)
    return finish_hand(step)


def draw(step: Step[SaltacavalloState]) -> Outcome:
    """SC-10: the dealer replaces his card with the top of the stock, with the Cucù options."""
    state = step.state
    rules, dealer, stock = state.rules, state.dealer, state.stock
    own = state.hand[dealer]
    assert own is not None
    held = own
    discards: list[TableCard] = []
    i = 0
    while i < len(stock):
        card = stock[i]
        step.dealing.took(stock[i:])
        i += 1
        drawn = FACE_UP[card]
        step.event(events.DRAW, seat=dealer, cards=(drawn,))
        if card.rank == CAVALLO and rules.drawn_horse_draws_again and i < len(stock):
            step.event(events.DRAW_AGAIN, seat=dealer, cards=(drawn,))
            discards.append(drawn)
            continue
        if card.rank == RE and rules.drawn_king_keeps_own:
            step.event(events.DRAW_VOID, seat=dealer, cards=(drawn,))
            discards.append(drawn)
        else:
            discards.append(own)
            held = drawn
        break
    hand = (*state.hand[:dealer], held, *state.hand[dealer + 1 :])
    step.change(hand=hand, stock=stock[i:], discards=tuple(discards))
    return finish_hand(step)
