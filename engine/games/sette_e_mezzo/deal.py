"""The bank and the deal: the first bank (SM-6), and each hand dealt, one card each with the bank last (SM-7),
from a fresh pack or the stock (SM-18), but to the players sitting out (option ``sit_out``)."""

from __future__ import annotations

from mazziere.engine.cards import Card
from mazziere.engine.dealing import Dealing
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.events import Event
from mazziere.engine.games.sette_e_mezzo import events
from mazziere.engine.games.sette_e_mezzo.hands import dealt_card
from mazziere.engine.games.sette_e_mezzo.points import scoring
from mazziere.engine.games.sette_e_mezzo.rules import FirstBank, SetteEMezzoRules
from mazziere.engine.games.sette_e_mezzo.state import Phase, SeatHand, SetteEMezzoState, Status
from mazziere.engine.seats import first_dealer, round_from
from mazziere.engine.sitting import SAT_IN, SAT_OUT, seated
from mazziere.engine.step import Step
from mazziere.engine.table import Outcome
from mazziere.engine.visibility import NOBODY, TableCard, face_up


def choose_bank(rules: SetteEMezzoRules, n: int, dealing: Dealing) -> int:
    """SM-6: the first bank, named by the rules, drawn at random, or by the highest card."""
    if rules.first_bank is FirstBank.HIGHEST_CARD:
        return _highest_card(rules, n, dealing)
    fixed = rules.first_bank_seat if rules.first_bank is FirstBank.SEAT else None
    if fixed is not None and fixed >= n:
        raise Rejected(Reason.INVALID_OPTION, f"first_bank_seat {fixed} is not at this table")
    return first_dealer(n, dealing, fixed)


def _highest_card(rules: SetteEMezzoRules, n: int, dealing: Dealing) -> int:
    """SM-6 HIGHEST_CARD (S000): each seat draws a card face up; the highest rank deals; ties draw again from a
    fresh pack once the pack is spent. Every card is face up: the packs are revealed at once."""
    sc = scoring(rules)
    deck = dealing.shuffle(sc.pack)
    contenders = list(range(n))
    i = 0
    while len(contenders) > 1:
        drawn = []
        for s in contenders:
            if i == len(deck):
                deck, i = dealing.shuffle(sc.pack), 0
            card = deck[i]
            dealing.took(deck[i:])
            i += 1
            drawn.append((card.rank, s))
            dealing.tell(Event(events.DREW, seat=s, cards=(face_up(card),)))
        top = max(r for r, _ in drawn)
        contenders = [s for r, s in drawn if r == top]
    dealing.reveal(keep_current=False)
    return contenders[0]


def deal(step: Step[SetteEMezzoState]) -> Outcome:
    """SM-7: the cards of the last hand go to the discards; one face-down card each, bank last (the players
    sitting out are not dealt in)."""
    state = step.state
    rules = state.rules
    out = state.sitting_out
    seats = round_from([c >= rules.min_stake and s not in out for s, c in enumerate(state.chips)], state.bank)
    stock, discards = _pack(step, len(seats))
    step.dealing.reveal(keep_current=True)  # the last hand's cards are gathered: an older pack is done
    step.dealing.took(stock, len(seats))
    hands, matta_shown = _one_card_each(step, stock, seats)
    return step.outcome(
        stock=stock[len(seats) :],
        discards=discards,
        fresh=False,
        exhausted=False,
        matta_shown=matta_shown,
        hands=hands,
        hand_number=state.hand_number + 1,
        results=(),
        bank_points=None,
        phase=Phase.STAKE,
        turn=seats[0],
    )


def sit(step: Step[SetteEMezzoState], seat: int, out: bool) -> Outcome:
    """Option ``sit_out``: between hands the bank sits a player out of the next hands (``out``), or back in."""
    state = step.state
    step.event(SAT_OUT if out else SAT_IN, seat=seat, target=state.bank)
    return step.outcome(sitting_out=seated(state.sitting_out, seat, out))


def _pack(step: Step[SetteEMezzoState], dealt: int) -> tuple[tuple[Card, ...], tuple[TableCard, ...]]:
    """The stock to deal ``dealt`` cards from and the discards, the last hand's cards among them; SM-18: a fresh
    pack, or the stock and the discards shuffled when the stock is too short."""
    state = step.state
    old = [TableCard(tc.card, NOBODY) for h in state.hands for tc in (*h.cards, *h.burned)]
    discards = (*state.discards, *old)
    stock = state.stock
    if state.fresh or len(stock) < dealt:
        pool = scoring(state.rules).pack if state.fresh else [*stock, *(tc.card for tc in discards if tc.card)]
        stock = step.dealing.shuffle(pool)
        discards = ()
        step.event(events.SHUFFLED, amount=len(stock))
    return stock, discards


def _one_card_each(
    step: Step[SetteEMezzoState], stock: tuple[Card, ...], seats: tuple[int, ...]
) -> tuple[tuple[SeatHand, ...], bool]:
    """SM-7: the top cards of ``stock`` to ``seats`` in turn, face down (the bank's up with
    ``bank_first_card_up``): every seat's hand, and whether the matta was dealt face up."""
    rules, bank = step.state.rules, step.state.bank
    sc = scoring(rules)
    hands = [SeatHand()] * len(step.state.hands)
    matta_shown = False
    for i, s in enumerate(seats):
        card = stock[i]
        hidden = not (rules.bank_first_card_up and s == bank)
        matta_shown = matta_shown or (not hidden and card == sc.matta)
        tc = dealt_card(card, s, hidden)
        hands[s] = SeatHand((tc,), 0, Status.WAITING, sc.points((card,)))
        step.event(events.DEALT, seat=s, cards=(tc,))
    return tuple(hands), matta_shown
