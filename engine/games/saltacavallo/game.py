"""Saltacavallo / Asso che fugge (RULES.md §2): one card each, keep or pass it on, the lowest loses a life.

Seats are numbered in play order (anticlockwise): seat ``i + 1`` is "the seat on my right" of S000.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from mazziere.engine import chance
from mazziere.engine.cards import ITALIAN_40, Card, Suit
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.game import Game
from mazziere.engine.games.saltacavallo import validate
from mazziere.engine.games.saltacavallo.rules import (
    MAX_SEATS,
    PRESETS,
    AllDeadHand,
    FirstDealer,
    Reshuffle,
    SaltacavalloRules,
)
from mazziere.engine.games.saltacavallo.state import Phase, SaltacavalloState, SaltacavalloView
from mazziere.engine.ledger import POT, Transfer, settle
from mazziere.engine.table import Action, Event, LegalAction, Outcome, Seat
from mazziere.engine.values import replace
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


def next_living(lives: Sequence[int], seat: int) -> int:
    """The next seat after ``seat`` in play order that still has a life (``seat`` itself if none)."""
    n = len(lives)
    s = seat
    for _ in range(n):
        s += 1
        if s == n:
            s = 0
        if lives[s]:
            return s
    return seat


def previous_living(lives: Sequence[int], seat: int) -> int:
    """The living seat before ``seat`` in play order (the one who cuts for dealer ``seat``)."""
    n = len(lives)
    s = seat
    for _ in range(n):
        s -= 1
        if s < 0:
            s = n - 1
        if lives[s]:
            return s
    return seat


def swap_target(state: SaltacavalloState, seat: int) -> int | None:
    """SC-8/SC-9: the seat ``seat`` may swap with, or ``None``.

    The next living seat; a cavallo there jumps to the seat after it (repeating), a re anywhere is a wall,
    the chain may end on the dealer but never passes him. Only face-up cards (public) decide it.
    """
    lives, hand, dealer = state.lives, state.hand, state.dealer
    t = seat
    for _ in range(len(lives)):  # the chain ends on the dealer within one round of the table
        t = next_living(lives, t)
        held = hand[t]
        if t == seat or held is None or held.card is None:
            raise _bad("state.hand", f"no other living seat holding a card after seat {seat}")
        if not held.seen_by.everyone:
            return t
        if held.card.rank == RE or t == dealer:
            return None
        # a cavallo: jump to the seat after it
    raise _bad("state.dealer", f"no living dealer ({dealer}) ends the chain from seat {seat}")


def _next_turn(lives: Sequence[int], hand: Sequence[TableCard | None], dealer: int, after: int) -> int:
    """SC-7: the next seat after ``after`` (before the dealer) holding a face-down card, or -1."""
    t = after
    for _ in range(len(lives)):  # the dealer comes round within one round of the table
        t = next_living(lives, t)
        if t == dealer:
            return -1
        held = hand[t]
        if held is not None and not held.seen_by.everyone:
            return t
    raise _bad("state.dealer", f"seat {dealer} deals but is not a living seat")


def _round(lives: Sequence[int], dealer: int) -> list[int]:
    """The living seats in play order from the one after ``dealer``, the dealer last."""
    if not 0 <= dealer < len(lives) or not lives[dealer]:
        raise _bad("state.dealer", f"seat {dealer} deals but is not a living seat")
    order: list[int] = []
    s = dealer
    for _ in range(len(lives)):
        s = next_living(lives, s)
        order.append(s)
        if s == dealer:
            return order
    raise _bad("state.dealer", f"seat {dealer} deals but is not a living seat")


def _bad(path: str, what: str) -> Rejected:
    """A state no legal play makes (:func:`engine.validate.check_state` refuses it before play)."""
    return Rejected(Reason.INVALID_STATE, f"{path}: {what}")


def _split(pot: int, seats: Sequence[int], dealer: int, n: int, transfers: list[Transfer], events: list[Event]) -> None:
    """Share ``pot`` equally; the odd chips go one each to the sharers in play order after ``dealer``."""
    order = sorted(seats, key=lambda s: (s - dealer - 1) % n)
    share, odd = divmod(pot, len(order))
    for i, s in enumerate(order):
        amount = share + (1 if i < odd else 0)
        if amount:
            transfers.append(Transfer(POT, s, amount, "pot share"))
        events.append(Event("POT_SHARE", seat=s, amount=amount))


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
        events: list[Event] = []
        dealer, draws = _choose_dealer(rules, n, seed, events)
        events.append(Event("FIRST_DEALER", seat=dealer))
        state = SaltacavalloState(
            game=self.id,
            table_id=table_id,
            rules=rules,
            names=tuple(s.name for s in seats),
            chips=tuple(s.chips for s in seats),
            pot=0,
            seed=seed,
            draws=draws,
            seq=0,
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
        return Outcome(state, tuple(events))

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
        if kind == KEEP:
            if state.phase is Phase.DEALER:
                return _finish_hand(state, state.hand, state.stock, [Event(KEEP, seat=action.seat)], {})
            return _after_turn(state, state.hand, [Event(KEEP, seat=action.seat)])
        if kind == SWAP:
            return _swap(state, action.seat, action.target)  # type: ignore[arg-type]
        if kind == DEAL:
            return _deal(state)
        if kind == DRAW:
            return _draw(state)
        return _revive(state, action.seat, action.target)  # type: ignore[arg-type]

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


def _choose_dealer(rules: SaltacavalloRules, n: int, seed: bytes, events: list[Event]) -> tuple[int, int]:
    """SC-4: the first dealer and the draw counter after choosing him."""
    method = rules.first_dealer
    if method is FirstDealer.SEAT:
        return rules.first_dealer_seat, 0
    if method is FirstDealer.RANDOM:
        return chance.randbelow(n, seed, 0), 1
    # A random seat deals the pack face up, anticlockwise from the seat after him, until the card appears.
    chooser = chance.randbelow(n, seed, 0)
    pack = chance.shuffled(ITALIAN_40, seed, 1)
    events.append(Event("CHOOSE_DEALER", seat=chooser))
    seat = chooser
    denari = 0
    for card in pack:
        seat = seat + 1 if seat + 1 < n else 0
        events.append(Event("CHOOSE_CARD", seat=seat, cards=(_FACE_UP[card],)))
        if method is FirstDealer.SECOND_DENARI:
            if card.suit is Suit.DENARI:
                denari += 1
                if denari == 2:
                    return seat, 2
        elif card == (_DUE_DI_DENARI if method is FirstDealer.DUE_DI_DENARI else _RE_DI_DENARI):
            return seat, 2
    raise AssertionError("the pack holds every card")  # pragma: no cover


def _givers(state: SaltacavalloState) -> list[int]:
    """SC-13: the living seats a dead seat may name as giver now."""
    lives, revived = state.lives, state.revived
    exempt = state.dealer if state.rules.revival_dealer_exempt else -1
    return [s for s in range(len(lives)) if lives[s] and s != exempt and s not in revived]


def _deal(state: SaltacavalloState) -> Outcome:
    """SC-5/SC-6: shuffle (per ``reshuffle``), cut, one card each from the seat after the dealer, dealer last."""
    rules, lives, dealer = state.rules, state.lives, state.dealer
    n = len(lives)
    order = _round(lives, dealer)
    events: list[Event] = []
    stock = state.stock
    draws = state.draws
    if rules.reshuffle is Reshuffle.EVERY_HAND or len(stock) < len(order) + _DRAW_RESERVE:
        stock = chance.shuffled(ITALIAN_40, state.seed, draws)
        draws += 1
        events.append(Event("SHUFFLE", seat=dealer))
        events.append(Event("CUT", seat=previous_living(lives, dealer), target=dealer))
    hand: list[TableCard | None] = [None] * n
    for i, s in enumerate(order):
        card = stock[i]
        held = _FACE_UP[card] if card.rank >= CAVALLO else TableCard(card, _OWN[s])
        hand[s] = held
        events.append(Event("CARD_DEALT", seat=s, cards=(held,)))
    stock = stock[len(order) :]
    turn = _next_turn(lives, hand, dealer, dealer)
    fresh: dict[str, Any] = {"draws": draws, "discards": (), "hands": state.hands + 1, "losers": (), "revived": ()}
    if turn >= 0:
        state = replace(state, hand=tuple(hand), stock=stock, turn=turn, phase=Phase.PLAY, **fresh)
        return Outcome(state, tuple(events))
    return _dealers_turn(state, hand, stock, events, fresh)


def _swap(state: SaltacavalloState, seat: int, target: int) -> Outcome:
    """SC-7: the two cards change places face down; each side sees both."""
    hand = list(state.hand)
    given, taken = hand[seat], hand[target]
    assert given is not None and taken is not None
    both = _PAIR[seat][target]
    given = TableCard(given.card, Audience(seats=given.seen_by.seats | both.seats))
    taken = TableCard(taken.card, Audience(seats=taken.seen_by.seats | both.seats))
    hand[seat], hand[target] = taken, given
    return _after_turn(state, hand, [Event(SWAP, seat=seat, target=target, cards=(given, taken))])


def _after_turn(state: SaltacavalloState, hand: Sequence[TableCard | None], events: list[Event]) -> Outcome:
    turn = _next_turn(state.lives, hand, state.dealer, state.turn)
    if turn >= 0:
        return Outcome(replace(state, hand=tuple(hand), turn=turn), tuple(events))
    return _dealers_turn(state, hand, state.stock, events, {})


def _dealers_turn(
    state: SaltacavalloState,
    hand: Sequence[TableCard | None],
    stock: tuple[Card, ...],
    events: list[Event],
    changes: dict[str, Any],
) -> Outcome:
    """SC-10: every card is turned face up; a dealer without a cavallo or re then keeps or draws."""
    revealed: list[TableCard | None] = list(hand)
    for s in _round(state.lives, state.dealer):
        held = revealed[s]
        if held is None or held.card is None:
            raise _bad(f"state.hand[{s}]", f"living seat {s} holds no card")
        if not held.seen_by.everyone:
            up = _FACE_UP[held.card]
            revealed[s] = up
            events.append(Event("REVEAL", seat=s, cards=(up,)))
    dealer = state.dealer
    own = revealed[dealer]
    assert own is not None and own.card is not None
    if own.card.rank <= FANTE:
        state = replace(state, hand=tuple(revealed), stock=stock, turn=-1, phase=Phase.DEALER, **changes)
        return Outcome(state, tuple(events))
    return _finish_hand(state, revealed, stock, events, changes)


def _draw(state: SaltacavalloState) -> Outcome:
    """SC-10: the dealer replaces his card with the top of the stock, with the Cucù options."""
    rules, dealer, stock = state.rules, state.dealer, state.stock
    own = state.hand[dealer]
    assert own is not None
    events: list[Event] = []
    held = own
    discards: list[TableCard] = []
    i = 0
    while i < len(stock):
        card = stock[i]
        i += 1
        drawn = _FACE_UP[card]
        events.append(Event(DRAW, seat=dealer, cards=(drawn,)))
        if card.rank == CAVALLO and rules.drawn_horse_draws_again and i < len(stock):
            events.append(Event("DRAW_AGAIN", seat=dealer, cards=(drawn,)))
            discards.append(drawn)
            continue
        if card.rank == RE and rules.drawn_king_keeps_own:
            events.append(Event("DRAW_VOID", seat=dealer, cards=(drawn,)))
            discards.append(drawn)
        else:
            discards.append(own)
            held = drawn
        break
    hand = list(state.hand)
    hand[dealer] = held
    return _finish_hand(state, hand, stock[i:], events, {"discards": tuple(discards)})


def _finish_hand(
    state: SaltacavalloState,
    hand: Sequence[TableCard | None],
    stock: tuple[Card, ...],
    events: list[Event],
    changes: dict[str, Any],
) -> Outcome:
    """SC-11/SC-12/SC-14/SC-15: the lowest rank loses a life; the deal passes on, or the game ends."""
    rules, dealer = state.rules, state.dealer
    lives = list(state.lives)
    n = len(lives)
    living = [s for s in range(n) if lives[s]]
    ranks = {s: hand[s].card.rank for s in living}  # type: ignore[union-attr]
    low = min(ranks.values())
    losers = [s for s in living if ranks[s] == low]
    hand_t = tuple(hand)
    if len(losers) == len(living) and rules.all_dead_hand is AllDeadHand.REPLAY and all(lives[s] == 1 for s in losers):
        events.append(Event("REPLAY", seat=dealer, points=low))
        events.append(Event("HAND_OVER", seat=dealer, points=low))
        changes.update(hand=hand_t, stock=stock, turn=-1, phase=Phase.DEAL, losers=())
        return Outcome(replace(state, **changes), tuple(events))
    transfers: list[Transfer] = []
    coin = rules.coin
    for s in losers:
        lives[s] -= 1
        transfers.append(Transfer(s, POT, coin, "life"))
        events.append(Event("LIFE_LOST", seat=s, amount=coin, points=low))
        if not lives[s]:
            events.append(Event("DEAD", seat=s))
    events.append(Event("HAND_OVER", seat=dealer, points=low))
    chips, pot = settle(state.chips, state.pot, transfers)
    alive = [s for s in living if lives[s]]
    winners: tuple[int, ...] = ()
    phase = Phase.DEAL
    next_dealer = dealer
    if not alive:  # SC-12 SPLIT_POT: they all die together and share the pot
        winners = tuple(losers)
    elif len(alive) == 1 or (len(alive) == 2 and rules.end_at_two_split):
        winners = tuple(alive)
    else:
        next_dealer = next_living(lives, dealer)
        events.append(Event("NEXT_DEALER", seat=next_dealer))
    if winners:
        phase = Phase.OVER
        end: list[Transfer] = []
        if len(winners) == 1:
            end.append(Transfer(POT, winners[0], pot, "pot"))
            events.append(Event("POT_WON", seat=winners[0], amount=pot))
        else:
            _split(pot, winners, dealer, n, end, events)
        events.append(Event("GAME_OVER", seat=winners[0] if len(winners) == 1 else None, amount=pot))
        chips, pot = settle(chips, pot, end)
        transfers += end
    changes.update(
        hand=hand_t,
        stock=stock,
        turn=-1,
        phase=phase,
        lives=tuple(lives),
        chips=chips,
        pot=pot,
        dealer=next_dealer,
        losers=tuple(losers),
        winners=winners,
    )
    state = replace(state, **changes)
    return Outcome(state, tuple(events), tuple(transfers))


def _revive(state: SaltacavalloState, dead: int, giver: int) -> Outcome:
    """SC-13: the giver hands one life (and its coin) to the dead seat; the giver may die."""
    lives = list(state.lives)
    lives[dead] += 1
    lives[giver] -= 1
    coin = state.rules.coin
    transfers = (Transfer(giver, dead, coin, "revival"),)
    events = [Event(REVIVE, seat=dead, target=giver, amount=coin)]
    dealer = state.dealer
    if not lives[giver]:
        events.append(Event("DEAD", seat=giver))
        if giver == dealer:
            dealer = next_living(lives, giver)
            events.append(Event("NEXT_DEALER", seat=dealer))
    chips, pot = settle(state.chips, state.pot, transfers)
    state = replace(state, lives=tuple(lives), chips=chips, pot=pot, dealer=dealer, revived=(*state.revived, dead))
    return Outcome(state, tuple(events), transfers)
