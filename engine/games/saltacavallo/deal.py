"""The dealer and the deal: the first dealer (SC-4), and each hand shuffled, cut and dealt (SC-5, SC-6)."""

from __future__ import annotations

from mazziere.engine.cards import ITALIAN_40, Card, Suit
from mazziere.engine.dealing import Dealing
from mazziere.engine.events import Event
from mazziere.engine.games.saltacavallo import events
from mazziere.engine.games.saltacavallo.pack import CAVALLO, FACE_UP, RE
from mazziere.engine.games.saltacavallo.rules import MAX_SEATS, FirstDealer, Reshuffle, SaltacavalloRules
from mazziere.engine.games.saltacavallo.state import Phase, SaltacavalloState, in_hand
from mazziere.engine.games.saltacavallo.turns import dealers_turn, living_round, next_turn
from mazziere.engine.seats import first_dealer, next_in_play, previous_in_play
from mazziere.engine.step import Step
from mazziere.engine.table import Outcome
from mazziere.engine.visibility import TableCard, only

_OWN = tuple(only(s) for s in range(MAX_SEATS))
"""One audience per seat, made once: a face-down card seen by its holder."""
_RE_DI_DENARI = Card(RE, Suit.DENARI)
_DUE_DI_DENARI = Card(2, Suit.DENARI)
_DRAW_RESERVE = 5
"""A dealer draws at most 5 cards (four cavalli, then one more): CONTINUE reshuffles before a hand the stock
cannot cover with this reserve, so the stock never runs out in a hand."""


def choose_dealer(rules: SaltacavalloRules, n: int, dealing: Dealing) -> int:
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
        dealing.tell(Event(events.CHOOSE_CARD, seat=seat, cards=(FACE_UP[card],)))
        if method is FirstDealer.SECOND_DENARI:
            if card.suit is Suit.DENARI:
                denari += 1
                if denari == 2:
                    break
        elif card == (_DUE_DI_DENARI if method is FirstDealer.DUE_DI_DENARI else _RE_DI_DENARI):
            break
    dealing.reveal(keep_current=False)
    return seat


def deal(step: Step[SaltacavalloState]) -> Outcome:
    """SC-5/SC-6: shuffle (per ``reshuffle``), cut, one card each from the seat after the dealer, dealer last."""
    state = step.state
    rules, lives, dealer = state.rules, in_hand(state), state.dealer
    order = living_round(lives, dealer)
    stock = state.stock
    if rules.reshuffle is Reshuffle.EVERY_HAND or len(stock) < len(order) + _DRAW_RESERVE:
        stock = step.dealing.shuffle(ITALIAN_40)
        step.event(events.SHUFFLE, seat=dealer)
        cutter = previous_in_play(lives, dealer)
        step.event(events.CUT, seat=dealer if cutter is None else cutter, target=dealer)
    step.dealing.reveal(keep_current=True)  # the last hand's cards are gathered: an older pack is done
    step.dealing.took(stock, len(order))
    hand: list[TableCard | None] = [None] * len(lives)  # a seat sitting out gets no card
    for i, s in enumerate(order):
        card = stock[i]
        held = FACE_UP[card] if card.rank >= CAVALLO else TableCard(card, _OWN[s])
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
    turn = next_turn(lives, hand, dealer, dealer)
    if turn >= 0:
        return step.outcome(turn=turn, phase=Phase.PLAY)
    return dealers_turn(step)
