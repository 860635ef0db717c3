"""Saltacavallo / Asso che fugge (RULES.md §2): one card each, keep or pass it on, the lowest loses a life.

Seats are numbered in play order (anticlockwise): seat ``i + 1`` is "the seat on my right" of S000.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from mazziere.engine.cards import ITALIAN_40, Card, Suit
from mazziere.engine.dealing import Dealing
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.events import GAME_OVER, HAND_OVER
from mazziere.engine.game import Game
from mazziere.engine.games.saltacavallo import events, validate
from mazziere.engine.games.saltacavallo.rules import (
    MAX_SEATS,
    PRESETS,
    AllDeadHand,
    FirstDealer,
    Reshuffle,
    SaltacavalloRules,
)
from mazziere.engine.games.saltacavallo.state import Phase, SaltacavalloState, SaltacavalloView
from mazziere.engine.ledger import POT
from mazziere.engine.seats import first_dealer, next_in_play, previous_in_play, round_from
from mazziere.engine.step import Step
from mazziere.engine.table import Action, Event, LegalAction, Outcome, Seat
from mazziere.engine.visibility import PUBLIC, Audience, TableCard, Viewer, only

FANTE = 8
CAVALLO = 9
RE = 10

DEAL = "DEAL"
KEEP = "KEEP"
SWAP = "SWAP"
DRAW = "DRAW"
REVIVE = "REVIVE"

# Precomputed legal-action tuples and audiences (the hot path allocates none of them).
_NONE: tuple[LegalAction, ...] = ()
_DEAL_ONLY = (LegalAction(DEAL),)
_KEEP_ONLY = (LegalAction(KEEP),)
_KEEP_DRAW = (LegalAction(KEEP), LegalAction(DRAW))
_KEEP_SWAP = tuple((LegalAction(KEEP), LegalAction(SWAP, target=t)) for t in range(MAX_SEATS))
_REVIVE = tuple(LegalAction(REVIVE, target=t) for t in range(MAX_SEATS))
_OWN = tuple(only(s) for s in range(MAX_SEATS))
_PAIR = tuple(tuple(only(a, b) for b in range(MAX_SEATS)) for a in range(MAX_SEATS))
_FACE_UP = {c: TableCard(c, PUBLIC) for c in ITALIAN_40}
_RE_DI_DENARI = Card(RE, Suit.DENARI)
_DUE_DI_DENARI = Card(2, Suit.DENARI)
_DRAW_RESERVE = 5
"""A dealer draws at most 5 cards (four cavalli, then one more): CONTINUE reshuffles before a hand the stock
cannot cover with this reserve, so the stock never runs out in a hand."""


def swap_target(state: SaltacavalloState, seat: int) -> int | None:
    """SC-8/SC-9: the seat ``seat`` may swap with, or ``None``.

    The next living seat; a cavallo there jumps to the seat after it (repeating), a re anywhere is a wall,
    the chain may end on the dealer but never passes him. Only face-up cards (public) decide it.
    """
    lives, hand, dealer = state.lives, state.hand, state.dealer
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


def _next_turn(lives: Sequence[int], hand: Sequence[TableCard | None], dealer: int, after: int) -> int:
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


def _round(lives: Sequence[int], dealer: int) -> tuple[int, ...]:
    """The living seats in play order from the one after ``dealer``, the dealer last."""
    if not 0 <= dealer < len(lives) or not lives[dealer]:
        raise _bad("state.dealer", f"seat {dealer} deals but is not a living seat")
    return round_from(lives, dealer)


def _bad(path: str, what: str) -> Rejected:
    """A state no legal play makes (:func:`engine.validate.check_state` refuses it before play)."""
    return Rejected(Reason.INVALID_STATE, f"{path}: {what}")


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


class Saltacavallo(Game[SaltacavalloState, SaltacavalloRules]):
    id: ClassVar[str] = "saltacavallo"
    title: ClassVar[str] = "Saltacavallo (Asso che fugge)"
    state_type: ClassVar[type[SaltacavalloState]] = SaltacavalloState
    rules_type: ClassVar[type] = SaltacavalloRules
    presets = PRESETS
    action_kinds: ClassVar[tuple[str, ...]] = (DEAL, KEEP, SWAP, DRAW, REVIVE)

    # -- start ------------------------------------------------------------------------------------

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
        dealer = _choose_dealer(rules, n, dealing)
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
            if seat == state.dealer:
                return _DEAL_ONLY
            if state.rules.revival and not state.lives[seat]:
                return tuple(_REVIVE[g] for g in _givers(state))
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

    # -- playing ----------------------------------------------------------------------------------

    def play(self, state: SaltacavalloState, action: Action) -> Outcome:
        kind = action.kind
        step = Step(state)
        if kind == KEEP:
            step.event(events.KEEP, seat=action.seat)
            return _finish_hand(step) if state.phase is Phase.DEALER else _after_turn(step)
        if kind == SWAP:
            return _swap(step, action.seat, action.target)  # type: ignore[arg-type]
        if kind == DEAL:
            return _deal(step)
        if kind == DRAW:
            return _draw(step)
        return _revive(step, action.seat, action.target)  # type: ignore[arg-type]

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
        )


# -- the steps of a game ------------------------------------------------------------------------------


def _choose_dealer(rules: SaltacavalloRules, n: int, dealing: Dealing) -> int:
    """SC-4: the first dealer. Choosing him deals a pack face up: it is revealed at once."""
    method = rules.first_dealer
    if method in (FirstDealer.SEAT, FirstDealer.RANDOM):
        return first_dealer(n, dealing, rules.first_dealer_seat if method is FirstDealer.SEAT else None)
    # A random seat deals the pack face up, anticlockwise from the seat after him, until the card appears.
    chooser = dealing.number(n)
    pack = dealing.shuffle(ITALIAN_40)
    dealing.tell(Event(events.CHOOSE_DEALER, seat=chooser))
    every = (True,) * n
    seat = chooser
    denari = 0
    for i, card in enumerate(pack):
        seat = next_in_play(every, seat)  # type: ignore[assignment]  # a table seats two or more
        dealing.took(pack[i:])
        dealing.tell(Event(events.CHOOSE_CARD, seat=seat, cards=(_FACE_UP[card],)))
        if method is FirstDealer.SECOND_DENARI:
            if card.suit is Suit.DENARI:
                denari += 1
                if denari == 2:
                    break
        elif card == (_DUE_DI_DENARI if method is FirstDealer.DUE_DI_DENARI else _RE_DI_DENARI):
            break
    dealing.reveal(keep_current=False)
    return seat


def _givers(state: SaltacavalloState) -> list[int]:
    """SC-13: the living seats a dead seat may name as giver now."""
    lives, revived = state.lives, state.revived
    exempt = state.dealer if state.rules.revival_dealer_exempt else -1
    return [s for s in range(len(lives)) if lives[s] and s != exempt and s not in revived]


def _deal(step: Step[SaltacavalloState]) -> Outcome:
    """SC-5/SC-6: shuffle (per ``reshuffle``), cut, one card each from the seat after the dealer, dealer last."""
    state = step.state
    rules, lives, dealer = state.rules, state.lives, state.dealer
    order = _round(lives, dealer)
    stock = state.stock
    if rules.reshuffle is Reshuffle.EVERY_HAND or len(stock) < len(order) + _DRAW_RESERVE:
        stock = step.dealing.shuffle(ITALIAN_40)
        step.event(events.SHUFFLE, seat=dealer)
        cutter = previous_in_play(lives, dealer)
        step.event(events.CUT, seat=dealer if cutter is None else cutter, target=dealer)
    step.dealing.reveal(keep_current=True)  # the last hand's cards are gathered: an older pack is done
    step.dealing.took(stock, len(order))
    hand: list[TableCard | None] = [None] * len(lives)
    for i, s in enumerate(order):
        card = stock[i]
        held = _FACE_UP[card] if card.rank >= CAVALLO else TableCard(card, _OWN[s])
        hand[s] = held
        step.event(events.CARD_DEALT, seat=s, cards=(held,))
    step.change(
        hand=tuple(hand),
        stock=stock[len(order) :],
        discards=(),
        hands=state.hands + 1,
        losers=(),
        revived=(),
    )
    turn = _next_turn(lives, hand, dealer, dealer)
    if turn >= 0:
        return step.outcome(turn=turn, phase=Phase.PLAY)
    return _dealers_turn(step)


def _swap(step: Step[SaltacavalloState], seat: int, target: int) -> Outcome:
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
    state = step.state
    turn = _next_turn(state.lives, state.hand, state.dealer, state.turn)
    if turn >= 0:
        return step.outcome(turn=turn)
    return _dealers_turn(step)


def _dealers_turn(step: Step[SaltacavalloState]) -> Outcome:
    """SC-10: every card is turned face up; a dealer without a cavallo or re then keeps or draws."""
    state = step.state
    revealed = list(state.hand)
    for s in _round(state.lives, state.dealer):
        held = revealed[s]
        if held is None or held.card is None:
            raise _bad(f"state.hand[{s}]", f"living seat {s} holds no card")
        if not held.seen_by.everyone:
            up = _FACE_UP[held.card]
            revealed[s] = up
            step.event(events.REVEAL, seat=s, cards=(up,))
    step.change(hand=tuple(revealed))
    own = revealed[state.dealer]
    assert own is not None and own.card is not None
    if own.card.rank <= FANTE:
        return step.outcome(turn=-1, phase=Phase.DEALER)
    return _finish_hand(step)


def _draw(step: Step[SaltacavalloState]) -> Outcome:
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
        drawn = _FACE_UP[card]
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
    return _finish_hand(step)


def _finish_hand(step: Step[SaltacavalloState]) -> Outcome:
    """SC-11/SC-12/SC-14/SC-15: the lowest rank loses a life; the deal passes on, or the game ends."""
    state = step.state
    rules, dealer, hand = state.rules, state.dealer, state.hand
    lives = list(state.lives)
    living = [s for s in range(len(lives)) if lives[s]]
    ranks = {s: hand[s].card.rank for s in living}  # type: ignore[union-attr]
    low = min(ranks.values())
    losers = [s for s in living if ranks[s] == low]
    if len(losers) == len(living) and rules.all_dead_hand is AllDeadHand.REPLAY and all(lives[s] == 1 for s in losers):
        step.event(events.REPLAY, seat=dealer, points=low)
        step.event(HAND_OVER, seat=dealer, points=low)
        return step.outcome(turn=-1, phase=Phase.DEAL, losers=())
    coin = rules.coin
    for s in losers:
        lives[s] -= 1
        step.pay(s, POT, coin, "life")
        step.event(events.LIFE_LOST, seat=s, amount=coin, points=low)
        if not lives[s]:
            step.event(events.DEAD, seat=s)
    step.event(HAND_OVER, seat=dealer, points=low)
    alive = [s for s in living if lives[s]]
    winners: tuple[int, ...] = ()
    next_dealer: int | None = dealer
    if not alive:  # SC-12 SPLIT_POT: they all die together and share the pot
        winners = tuple(losers)
    elif len(alive) == 1 or (len(alive) == 2 and rules.end_at_two_split):
        winners = tuple(alive)
    else:
        next_dealer = next_in_play(lives, dealer)
        step.event(events.NEXT_DEALER, seat=next_dealer)
    if winners:
        pot = step.pot
        if len(winners) == 1:
            step.pay(POT, winners[0], pot, "pot")
            step.event(events.POT_WON, seat=winners[0], amount=pot)
        else:
            _split(step, winners)
        step.event(GAME_OVER, seat=winners[0] if len(winners) == 1 else None, amount=pot)
    return step.outcome(
        turn=-1,
        phase=Phase.OVER if winners else Phase.DEAL,
        lives=tuple(lives),
        dealer=next_dealer,
        losers=tuple(losers),
        winners=winners,
    )


def _revive(step: Step[SaltacavalloState], dead: int, giver: int) -> Outcome:
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
            dealer = next_in_play(lives, giver)  # type: ignore[assignment]  # the revived seat lives
            step.event(events.NEXT_DEALER, seat=dealer)
    return step.outcome(lives=tuple(lives), dealer=dealer, revived=(*state.revived, dead))
