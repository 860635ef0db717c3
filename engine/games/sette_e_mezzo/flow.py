"""The mechanics of a hand: the :class:`~engine.step.Step` one action of Sette e mezzo is played on.

A bank's turn runs through many small steps (cards drawn, shown, settled, the bank passed), so :class:`Hand`
keeps the fields they change as working values and makes the new state from them once, at the end of
:meth:`SetteEMezzo.play` (:meth:`Hand.freeze`, numbered and settled as :meth:`~engine.step.Step.outcome` makes
it); the state itself never changes.
"""

from __future__ import annotations

import msgspec

from mazziere.engine.cards import Card
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.events import GAME_OVER, HAND_OVER
from mazziere.engine.games.sette_e_mezzo import events
from mazziere.engine.games.sette_e_mezzo.judge import DOUBLE, judge
from mazziere.engine.games.sette_e_mezzo.points import SETTE_E_MEZZO, Scoring, house_stands, is_reale, scoring
from mazziere.engine.games.sette_e_mezzo.rules import MAX_SEATS, BankPasses, Reshuffle
from mazziere.engine.games.sette_e_mezzo.state import Phase, Result, SeatHand, SeatResult, SetteEMezzoState, Status
from mazziere.engine.ledger import settle
from mazziere.engine.seats import next_in_play, others_after, round_from
from mazziere.engine.step import Step
from mazziere.engine.table import Outcome
from mazziere.engine.visibility import NOBODY, PUBLIC, TableCard, only

_IN = (Status.STOOD, Status.SETTE_E_MEZZO)
_ONLY = tuple(only(s) for s in range(MAX_SEATS))
"""One audience object per seat, built once (the hot path deals many face-down cards)."""


class Hand(Step[SetteEMezzoState]):
    """One action's working values of a state."""

    __slots__ = (
        "bank", "bank_points", "discards", "exhausted", "fresh", "hand_number", "hands", "matta_shown",
        "phase", "results", "rules", "sc", "stock", "turn",
    )  # fmt: skip

    def __init__(self, state: SetteEMezzoState) -> None:
        super().__init__(state)
        self.rules = state.rules
        self.sc: Scoring = scoring(state.rules)
        self.hands = list(state.hands)
        self.stock = state.stock
        self.discards = state.discards
        self.phase = state.phase
        self.bank = state.bank
        self.turn = state.turn
        self.fresh = state.fresh
        self.exhausted = state.exhausted
        self.matta_shown = state.matta_shown
        self.hand_number = state.hand_number
        self.results = state.results
        self.bank_points = state.bank_points

    def freeze(self) -> Outcome:
        """The new state (numbered, its chips settled), the events and the transfers of this action."""
        s = self.start
        chips, pot = settle(s.chips, s.pot, self.transfers) if self.transfers else (s.chips, s.pot)
        d = s if self._dealing is None else self._dealing  # the dealing's fields, as the draws left them
        return self.finish(
            msgspec.structs.replace(
                s,
                chips=chips,
                pot=pot,
                seq=s.seq + 1,
                draws=d.draws,
                entropy=d.entropy,
                packs=d.packs,
                commitment=d.commitment,
                phase=self.phase,
                bank=self.bank,
                turn=self.turn,
                hands=tuple(self.hands),
                stock=self.stock,
                discards=self.discards,
                fresh=self.fresh,
                exhausted=self.exhausted,
                matta_shown=self.matta_shown,
                hand_number=self.hand_number,
                results=self.results,
                bank_points=self.bank_points,
            )
        )

    # -- cards -------------------------------------------------------------------------------------

    def can_draw(self) -> bool:
        return bool(self.stock or self.discards)

    def draw(self) -> Card:
        """The top card of the stock; SM-18: an empty stock is refilled from the shuffled discards."""
        if not self.stock:
            self.stock = self.dealing.shuffle(tc.card for tc in self.discards if tc.card)
            self.discards = ()
            self.exhausted = True
            self.event(events.SHUFFLED, amount=len(self.stock))
        card = self.stock[0]
        self.dealing.took(self.stock)
        self.stock = self.stock[1:]
        return card

    def give(self, seat: int, card: Card, hidden: bool, replace: bool = False) -> TableCard:
        """Put ``card`` in ``seat``'s hand (face down for him alone, or face up), or in place of his last card."""
        tc = TableCard(card, _ONLY[seat] if hidden else PUBLIC)
        if not hidden and card == self.sc.matta:
            self.matta_shown = True
        h = self.hands[seat]
        cards = (*h.cards[:-1], tc) if replace else (*h.cards, tc)
        self.hands[seat] = SeatHand(cards, h.stake, h.status, self.sc.points(tuple(c.card for c in cards)), h.burned)  # type: ignore[misc]
        return tc

    def reveal(self, seat: int) -> None:
        """Turn ``seat``'s face-down card up (SM-11, SM-12, the showdown)."""
        h = self.hands[seat]
        for i, tc in enumerate(h.cards):
            if not tc.seen_by.everyone:
                shown = TableCard(tc.card, PUBLIC)
                if tc.card == self.sc.matta:
                    self.matta_shown = True
                cards = (*h.cards[:i], shown, *h.cards[i + 1 :])
                self.hands[seat] = SeatHand(cards, h.stake, h.status, h.points, h.burned)
                self.event(events.REVEALED, seat=seat, cards=(shown,), points=self.public_points(seat))
                return

    def public_points(self, seat: int) -> int:
        """The seat's total if every card of it is face up, else 0 (events never carry a hidden total)."""
        h = self.hands[seat]
        return h.points if all(tc.seen_by.everyone for tc in h.cards) else 0

    def set_status(self, seat: int, status: Status, stake: int | None = None) -> None:
        h = self.hands[seat]
        self.hands[seat] = SeatHand(h.cards, h.stake if stake is None else stake, status, h.points, h.burned)

    def raw(self, seat: int) -> tuple[Card, ...]:
        return tuple(tc.card for tc in self.hands[seat].cards)  # type: ignore[misc]

    # -- a player's turn ---------------------------------------------------------------------------

    def after_card(self, seat: int) -> None:
        """SM-10, SM-11, SM-22: a bust pays at once, 7½ or a triplé stops; either ends the turn."""
        h = self.hands[seat]
        if h.points == SETTE_E_MEZZO or self.sc.is_triple(self.raw(seat)):
            self.set_status(seat, Status.SETTE_E_MEZZO)
            self.reveal(seat)
            self.event(events.SETTE_E_MEZZO, seat=seat, points=h.points)
            self.next_player(seat)
        elif h.points > SETTE_E_MEZZO:
            self.set_status(seat, Status.BUST)
            self.pay(seat, self.bank, h.stake, "bust")
            if self.rules.reveal_hidden_on_bust:
                self.reveal(seat)
            self.event(events.BUST, seat=seat, target=self.bank, amount=h.stake, points=self.public_points(seat))
            self.next_player(seat)

    def next_player(self, seat: int) -> None:
        """The next seat dealt in after ``seat``, or the bank's turn."""
        b = self.bank
        waiting = [h.status is Status.WAITING for h in self.hands]
        if 0 <= b < len(waiting):
            waiting[b] = True  # the bank's turn comes after the last player's
        s = next_in_play(waiting, seat)
        if s is None:  # no bank among the seats: a state no legal play makes
            raise Rejected(Reason.INVALID_STATE, f"state.bank: {b} is not a seat of this {len(self.hands)}-seat table")
        if s == b:
            self.bank_turn()
        else:
            self.phase = Phase.STAKE
            self.turn = s

    # -- the bank's turn ---------------------------------------------------------------------------

    def bank_turn(self) -> None:
        """SM-12: the bank turns his card up and plays, unless every player has busted."""
        b = self.bank
        self.turn = b
        if not any(h.status in _IN for h in self.hands):
            self.end_hand(played=False)
            return
        self.reveal(b)
        self.set_status(b, Status.PLAYING)
        self.phase = Phase.BANK
        if self.rules.house_bank:
            self.house_play()

    def house_play(self) -> None:
        """CASINO: the house plays by :func:`~.points.house_stands` while it can draw."""
        b = self.bank
        lone_matta = self.hands[b].cards[0].card == self.sc.matta
        while self.phase is Phase.BANK:
            h = self.hands[b]
            if not self.can_draw() or house_stands(h.points, len(h.cards), lone_matta):
                self.bank_stands()
                return
            self.bank_hit()

    def bank_hit(self) -> None:
        b = self.bank
        tc = self.give(b, self.draw(), hidden=False)
        self.event(events.HIT, seat=b, cards=(tc,), points=self.hands[b].points)
        pts = self.hands[b].points
        if pts == SETTE_E_MEZZO or self.sc.is_triple(self.raw(b)):
            self.set_status(b, Status.SETTE_E_MEZZO)
            self.event(events.SETTE_E_MEZZO, seat=b, points=pts)
            self.end_hand(played=True)
        elif pts > SETTE_E_MEZZO:
            self.set_status(b, Status.BUST)
            self.event(events.BUST, seat=b, points=pts)
            self.end_hand(played=True)

    def bank_stands(self) -> None:
        b = self.bank
        self.set_status(b, Status.STOOD)
        self.event(events.STOOD, seat=b, points=self.hands[b].points)
        self.end_hand(played=True)

    # -- the end of a hand -------------------------------------------------------------------------

    def end_hand(self, played: bool) -> None:
        """Settle (SM-13..15, SM-19), pass the bank (SM-16, 17, 23), plan the next shuffle (SM-18)."""
        rules, b = self.rules, self.bank
        chips = list(self.start.chips)
        for t in self.transfers:  # the busts of this action
            chips[t.payer] -= t.amount
            chips[t.payee] += t.amount
        bank_hand = self.raw(b)
        b_pts = self.hands[b].points
        bank_bust = self.hands[b].status is Status.BUST
        results: list[SeatResult] = []
        paid_double: list[int] = []
        for s in others_after([h.status is Status.BUST or h.status in _IN for h in self.hands], b):
            h = self.hands[s]
            if h.status is Status.BUST:
                results.append(SeatResult(s, Result.BUST, -h.stake, self.public_points(s) or None, False))
            if h.status not in _IN:
                continue
            self.reveal(s)
            cards = self.raw(s)
            halves = judge(rules, self.sc, cards, h.points, bank_hand, b_pts, bank_bust)
            amount = h.stake * abs(halves) // 2
            reale = is_reale(cards, h.points) or self.sc.is_triple(cards)
            if halves > 0:
                self.pay(b, s, amount, "win")
                self.event(events.PAID, seat=s, target=b, amount=amount, points=h.points)
                result = Result.WON
                if halves >= DOUBLE and reale:
                    paid_double.append(s)
            elif halves < 0:
                amount = min(amount, chips[s])  # a player never pays more than he has (gap)
                self.pay(s, b, amount, "loss")
                self.event(events.COLLECTED, seat=s, target=b, amount=amount, points=h.points)
                result, amount = Result.LOST, -amount
            else:
                self.event(events.PUSH, seat=s, target=b, points=h.points)
                result = Result.PUSH
            chips[s] += amount
            chips[b] -= amount
            results.append(SeatResult(s, result, amount, h.points, reale))
        self.results = tuple(results)
        self.bank_points = b_pts if played and self.public_points(b) else None
        self.pass_bank(
            chips,
            paid_double,
            played and not bank_bust and (is_reale(bank_hand, b_pts) or self.sc.is_triple(bank_hand)),
        )
        self.event(HAND_OVER, seat=b, amount=self.hand_number)
        if not any(c >= rules.min_stake for s, c in enumerate(chips) if s != self.bank):
            self.phase = Phase.OVER
            self.turn = -1
            self.event(GAME_OVER)
        else:
            self.phase = Phase.WAIT_DEAL
            self.turn = self.bank

    def pass_bank(self, chips: list[int], paid_double: list[int], bank_reale: bool) -> None:
        rules, old = self.rules, self.bank
        keeps = rules.bank_passes_on_reale and bank_reale
        # SM-18: the next hand comes from a fresh pack, so the leftover stock is not dealt from (SM-17 below).
        new_pack = rules.reshuffle is Reshuffle.EVERY_HAND or (
            rules.reshuffle is Reshuffle.ON_MATTA and self.matta_shown
        )
        # SM-17 DECK_EXHAUSTED: the stock ran out in this hand, or the next deal would come from a stock too short.
        short = not new_pack and len(self.stock) < 1 + sum(
            1 for s, c in enumerate(chips) if s != old and c >= rules.min_stake
        )
        exhausted = rules.bank_passes_when is BankPasses.DECK_EXHAUSTED and (self.exhausted or short)
        if new_pack or exhausted:
            self.fresh = True
        if keeps:
            return
        if rules.bank_passes_on_reale and paid_double:
            self.bank = paid_double[0]
        elif rules.bank_passes_when is BankPasses.EVERY_HAND or exhausted:
            self.bank = self.next_bank(chips)
        if self.bank != old:
            self.event(events.BANK_PASSED, seat=old, target=self.bank)

    def next_bank(self, chips: list[int]) -> int:
        """The next seat in play order with at least ``min_stake`` chips (gap); the bank stays if none."""
        s = next_in_play([c >= self.rules.min_stake for c in chips], self.bank)
        return self.bank if s is None else s

    # -- the deal ----------------------------------------------------------------------------------

    def deal(self) -> None:
        """SM-7: the cards of the last hand go to the discards; one face-down card each, bank last."""
        rules, b, n = self.rules, self.bank, len(self.hands)
        chips = self.start.chips
        old = [TableCard(tc.card, NOBODY) for h in self.hands for tc in (*h.cards, *h.burned)]
        discards = (*self.discards, *old)
        seats = round_from([c >= rules.min_stake for c in chips], b)
        if self.fresh:
            self.stock = self.dealing.shuffle(self.sc.pack)
            discards = ()
            self.event(events.SHUFFLED, amount=len(self.stock))
        elif len(self.stock) < len(seats):
            pool = [*self.stock, *(tc.card for tc in discards if tc.card)]
            self.stock = self.dealing.shuffle(pool)
            discards = ()
            self.event(events.SHUFFLED, amount=len(self.stock))
        self.dealing.reveal(keep_current=True)  # the last hand's cards are gathered: an older pack is done
        self.discards = discards
        self.fresh = self.exhausted = self.matta_shown = False
        self.hands = [SeatHand() for _ in range(n)]
        self.hand_number += 1
        self.results = ()
        self.bank_points = None
        up = rules.bank_first_card_up
        for s in seats:
            self.hands[s] = SeatHand(status=Status.WAITING)
            tc = self.give(s, self.draw(), hidden=not (up and s == b))
            self.event(events.DEALT, seat=s, cards=(tc,))
        self.phase = Phase.STAKE
        self.turn = seats[0]
