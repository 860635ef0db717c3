"""A brute-force reference for Sette e mezzo advice, written from RULES.md and the model of docs/bots.md, not from
engine/bots: it drives the real engine's ``apply`` through every card that may come next, to the end of the hand.

* **A player's decision.** Every unseen card (stock, discards, other seats' face-down cards) is equally likely to
  be any of them. At each of his decisions every legal action is tried (every amount of a range) and the best
  expected result is played on (within :data:`TIE` of it, the first in legal order, smaller amounts first); a card he
  draws is each unseen card in turn. Once his turn is over, the bank's face-down card and (with ``forced_draws``)
  the face-down cards of the players still to play are dealt from the unseen cards, those players stake the least
  and stand when they may (else hit), the bank draws below 5 (the house plays by itself), and every stock card
  any of them draws is each remaining unseen card in turn. The other face-down cards (of the players who played
  before him, and of those still to play who stand at once) are read only to settle their own stakes, so they are
  left to whatever cards remain.
* **The bank's decision.** The standing players' face-down cards are every assignment of unseen cards under which
  each standing hand is under 7½ and no triplé, each equally likely (as labelled cards); a busted player's
  face-down card and the stock are the rest. The bank plays on to its best expected result (ties as a player's);
  the card it draws is, for each assignment, each card not assigned.

Cards of one rank (the matta apart) are grouped: one of them is dealt, weighted by how many there are. States are
remembered by the seat's view and the unseen cards, which is all a value depends on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from mazziere import engine
from mazziere.engine.cards import Card
from mazziere.engine.games.sette_e_mezzo.points import SETTE_E_MEZZO, scoring
from mazziere.engine.games.sette_e_mezzo.state import Phase, SeatHand, SetteEMezzoState, Status
from mazziere.engine.table import Action
from mazziere.engine.values import replace
from mazziere.engine.visibility import TableCard

TIE = 1e-9
Value = tuple[float, float, float, float, float]
"""In chips, for the advised seat: (expected, win, push, lose, bust)."""


class TooBig(Exception):
    """The state needs more play-outs than the budget allows."""


def _cls(state: SetteEMezzoState, card: Card) -> tuple[int, bool]:
    return card.rank, card == scoring(state.rules).matta


def _groups(cards: Iterable[Card], state: SetteEMezzoState) -> list[tuple[Card, int]]:
    """One card per class with how many of the class there are."""
    first: dict[tuple[int, bool], Card] = {}
    count: Counter[tuple[int, bool]] = Counter()
    for c in cards:
        k = _cls(state, c)
        first.setdefault(k, c)
        count[k] += 1
    return [(first[k], count[k]) for k in sorted(first)]


def unseen(state: SetteEMezzoState, seat: int) -> list[Card]:
    """Every card ``seat`` cannot see."""
    out = [*state.stock, *(tc.card for tc in state.discards if tc.card is not None)]
    for h in state.hands:
        out += [tc.card for tc in h.cards if tc.card is not None and not tc.seen_by.admits(seat)]
    return out


def _slots(state: SetteEMezzoState, seat: int) -> list[tuple[int, int]]:
    """(seat, card index) of every face-down card ``seat`` cannot see."""
    return [
        (s, i)
        for s, h in enumerate(state.hands)
        for i, tc in enumerate(h.cards)
        if tc.card is not None and not tc.seen_by.admits(seat)
    ]


def arrange(
    state: SetteEMezzoState, seat: int, placed: dict[tuple[int, int], Card], top: tuple[Card, ...]
) -> SetteEMezzoState:
    """``state`` with the cards ``seat`` cannot see dealt again: ``placed`` face-down cards where given, ``top`` on
    top of the stock, the other unseen cards anywhere else (the discards go into the stock: only the order in which
    cards come matters to a hand)."""
    rest = unseen(state, seat)
    for c in [*placed.values(), *top]:
        rest.remove(c)
    sc = scoring(state.rules)
    hands = list(state.hands)
    for s, i in _slots(state, seat):
        card = placed.get((s, i)) or rest.pop()
        h = hands[s]
        cards = (*h.cards[:i], TableCard(card, h.cards[i].seen_by), *h.cards[i + 1 :])
        hands[s] = SeatHand(cards, h.stake, h.status, sc.points(tuple(tc.card for tc in cards)), h.burned)  # type: ignore[misc]
    return replace(state, hands=tuple(hands), stock=(*top, *rest), discards=())


class Brute:
    """Values of a seat's actions by brute force, within ``budget`` calls of ``engine.apply``."""

    def __init__(self, state: SetteEMezzoState, seat: int, budget: int = 200_000, later_draw_below: int = 0) -> None:
        """``later_draw_below``: the players still to play draw while under this many halves (0: the model's
        stand as soon as they may)."""
        self.root, self.seat, self.budget, self.later_draw_below = state, seat, budget, later_draw_below
        self.known: dict[Any, Any] = {}

    # -- play-outs ----------------------------------------------------------------------------------------------

    def apply(
        self, state: SetteEMezzoState, action: Action, placed: dict[tuple[int, int], Card]
    ) -> list[tuple[float, SetteEMezzoState, bool]]:
        """Every way ``action`` may go: each stock card it draws, and the bank's face-down card if it turns it up, is
        each free unseen card in turn. (probability, state after, hand over)."""
        out: list[tuple[float, SetteEMezzoState, bool]] = []
        bank = [(s, i) for s, i in _slots(state, self.seat) if s == state.bank and (s, i) not in placed]

        def go(top: tuple[Card, ...], placed: dict[tuple[int, int], Card], q: float) -> None:
            self.budget -= 1
            if self.budget < 0:
                raise TooBig
            arranged = arrange(state, self.seat, placed, top)
            result = engine.apply(arranged, action)
            after: SetteEMezzoState = result.state
            free = unseen(state, self.seat)
            for c in [*placed.values(), *top]:
                free.remove(c)
            shown = [(s, i) for s, i in bank if after.hands[s].cards[i].seen_by.admits(self.seat)]
            if shown and shown[0] not in placed:  # it turned the bank's card up: which card was it?
                for card, n in _groups(free, state):
                    go(top, {**placed, shown[0]: card}, q * n / len(free))
                return
            if len(arranged.stock) - len(after.stock) <= len(top):
                out.append((q, after, any(e.kind == "HAND_OVER" for e in result.events)))
                return
            for card, n in _groups(free, state):
                go((*top, card), placed, q * n / len(free))

        go((), placed, 1.0)
        return out

    def _key(self, state: SetteEMezzoState, placed: dict[tuple[int, int], Card]) -> Any:
        """What a value depends on: the table as the seat sees it and the unseen cards, by class. The order of
        another seat's cards after its first matters to nothing now (SM-2, SM-15, SM-22: the first card and the
        set decide a hand; only the advised seat may still burn its newest card)."""
        seats = []
        for s, h in enumerate(state.hands):
            shown = [_cls(state, tc.card) if tc.seen_by.admits(self.seat) else None for tc in h.cards]  # type: ignore[arg-type]
            if s != self.seat and len(shown) > 2:
                shown = [shown[0], *sorted(shown[1:], key=repr)]
            burned = tuple(_cls(state, tc.card) for tc in h.burned)  # type: ignore[arg-type]
            seats.append((h.status, h.stake, state.chips[s], tuple(shown), burned))
        down = tuple(sorted((k, _cls(state, c)) for k, c in placed.items()))
        rest = tuple(sorted(Counter(_cls(state, c) for c in unseen(state, self.seat)).items()))
        return (state.phase, state.turn, tuple(seats), down, rest)

    # -- a player ------------------------------------------------------------------------------------------------

    def player(self) -> dict[tuple[str, int], Value]:
        """The value of each legal action (every amount) of the advised player."""
        return {(a.kind, a.amount): self._after(self.root, a) for a in self._actions(self.root)}

    def _actions(self, state: SetteEMezzoState) -> list[Action]:
        out = []
        for e in engine.legal_actions(state, self.seat):
            out += [Action(self.seat, e.kind, x) for x in range(e.min_amount, e.max_amount + 1)]
        return out

    def _decision(self, state: SetteEMezzoState) -> Value:
        """The advised player to act: his best action."""
        key = ("me", *self._key(state, {}))
        if key not in self.known:
            options = [self._after(state, a) for a in self._actions(state)]
            top = max(v[0] for v in options)
            self.known[key] = next(v for v in options if v[0] >= top - TIE)
        return self.known[key]  # type: ignore[no-any-return]

    def _after(self, state: SetteEMezzoState, action: Action) -> Value:
        total: list[float] = [0.0] * 5
        for q, after, over in self.apply(state, action, {}):
            v = self._end(after, over) if over else self._next(after)
            total = [a + q * b for a, b in zip(total, v, strict=True)]
        return (total[0], total[1], total[2], total[3], total[4])

    def _next(self, state: SetteEMezzoState) -> Value:
        if state.turn == self.seat and state.phase in (Phase.STAKE, Phase.DECIDE):
            return self._decision(state)
        return self._others(state)

    def _end(self, state: SetteEMezzoState, over: bool) -> Value:
        delta = state.chips[self.seat] - self.root.chips[self.seat]
        bust = state.hands[self.seat].status is Status.BUST
        return (float(delta), float(delta > 0), float(delta == 0), float(delta < 0), float(bust))

    def _others(self, state: SetteEMezzoState) -> Value:
        """His turn is over: deal the face-down cards that play depends on, then play the model to the end."""
        forced = state.rules.forced_draws or self.later_draw_below  # else they stand at once, whatever they hold
        relevant = [
            (s, i)
            for s, i in _slots(state, self.seat)
            if s == state.bank or (forced and state.hands[s].status is Status.WAITING)
        ]
        free = unseen(state, self.seat)
        total: list[float] = [0.0] * 5

        def deal(k: int, placed: dict[tuple[int, int], Card], left: list[Card], q: float) -> None:
            nonlocal total
            if k == len(relevant):
                v = self._model(state, placed)
                total = [a + q * b for a, b in zip(total, v, strict=True)]
                return
            for card, n in _groups(left, state):
                rest = list(left)
                rest.remove(card)
                deal(k + 1, {**placed, relevant[k]: card}, rest, q * n / len(left))

        deal(0, {}, free, 1.0)
        return (total[0], total[1], total[2], total[3], total[4])

    def _model(self, state: SetteEMezzoState, placed: dict[tuple[int, int], Card]) -> Value:
        """The model's play from ``state`` (the relevant face-down cards ``placed``) to the end of the hand."""
        key = ("model", *self._key(state, placed))
        if key in self.known:
            return self.known[key]  # type: ignore[no-any-return]
        actor = state.turn
        legal = {e.kind: e for e in engine.legal_actions(state, actor)}
        if state.phase is Phase.STAKE:
            action = Action(actor, "STAKE", legal["STAKE"].min_amount)
        elif state.phase is Phase.DECIDE:
            points = arrange(state, self.seat, placed, ()).hands[actor].points
            hits = "STAND" not in legal or ("HIT" in legal and points < self.later_draw_below)
            action = Action(actor, "HIT" if hits else "STAND")
        else:  # a seat bank: draw below 5
            hand = arrange(state, self.seat, placed, ()).hands[actor]
            action = Action(actor, "HIT" if "HIT" in legal and hand.points < 10 else "STAND")
        total: list[float] = [0.0] * 5
        for q, after, over in self.apply(state, action, placed):
            v = self._end(after, over) if over else self._model(after, self._still(after, placed))
            total = [a + q * b for a, b in zip(total, v, strict=True)]
        self.known[key] = (total[0], total[1], total[2], total[3], total[4])
        return self.known[key]  # type: ignore[no-any-return]

    def _still(self, state: SetteEMezzoState, placed: dict[tuple[int, int], Card]) -> dict[tuple[int, int], Card]:
        """The placed cards still face down for the advised seat (a revealed one is in the view now)."""
        slots = set(_slots(state, self.seat))
        return {k: c for k, c in placed.items() if k in slots}

    # -- the bank ------------------------------------------------------------------------------------------------

    def bank(self) -> dict[tuple[str, int], Value]:
        """The value of HIT and STAND for the bank to act (a seat bank), for the bank's chips."""
        state = self.root
        return {(e.kind, 0): self._bank_action(state, e.kind) for e in engine.legal_actions(state, self.seat)}

    def _worlds(self, state: SetteEMezzoState) -> list[tuple[dict[tuple[int, int], Card], float]]:
        """Every assignment of the standing players' face-down cards agreeing with their status, as labelled cards
        (grouped by class, weighted by the number of labelled choices)."""
        sc = scoring(state.rules)
        standing = [(s, i) for s, i in _slots(state, self.seat) if state.hands[s].status is Status.STOOD]
        out: list[tuple[dict[tuple[int, int], Card], float]] = []

        def deal(k: int, placed: dict[tuple[int, int], Card], left: list[Card], w: float) -> None:
            if k == len(standing):
                out.append((placed, w))
                return
            s, i = standing[k]
            for card, n in _groups(left, state):
                cards = [tc.card for tc in state.hands[s].cards]
                cards[i] = card
                hand = tuple(cards)
                if sc.points(hand) < SETTE_E_MEZZO and not sc.is_triple(hand):  # type: ignore[arg-type]
                    rest = list(left)
                    rest.remove(card)
                    deal(k + 1, {**placed, (s, i): card}, rest, w * n)

        deal(0, {}, unseen(state, self.seat), 1.0)
        return out

    def _bank_action(self, state: SetteEMezzoState, kind: str) -> Value:
        worlds = self._worlds(state)
        weight = sum(w for _, w in worlds)
        if kind == "STAND":
            total: list[float] = [0.0] * 5
            for placed, w in worlds:
                for q, after, over in self.apply(state, Action(self.seat, "STAND"), placed):
                    v = self._end(after, over)
                    total = [a + w / weight * q * b for a, b in zip(total, v, strict=True)]
            return (total[0], total[1], total[2], total[3], total[4])
        by_card: dict[str, tuple[float, SetteEMezzoState]] = {}
        for placed, w in worlds:
            for q, after, _ in self.apply(state, Action(self.seat, "HIT"), placed):
                drawn = str(after.hands[self.seat].cards[-1].card)
                p, _ = by_card.get(drawn, (0.0, after))
                by_card[drawn] = (p + w / weight * q, after)
        total = [0.0] * 5
        for p, after in by_card.values():
            v = self._bank_next(after)
            total = [a + p * b for a, b in zip(total, v, strict=True)]
        return (total[0], total[1], total[2], total[3], total[4])

    def _bank_next(self, state: SetteEMezzoState) -> Value:
        if state.phase is not Phase.BANK:
            return self._end(state, True)
        key = ("bank", *self._key(state, {}))
        if key not in self.known:
            options = [self._bank_action(state, e.kind) for e in engine.legal_actions(state, self.seat)]
            top = max(v[0] for v in options)
            self.known[key] = next(v for v in options if v[0] >= top - TIE)
        return self.known[key]  # type: ignore[no-any-return]


def values(state: SetteEMezzoState, seat: int, budget: int = 200_000) -> dict[tuple[str, int], Value]:
    """Brute-force values of every legal action (every amount) of ``seat``."""
    brute = Brute(state, seat, budget)
    return brute.bank() if state.phase is Phase.BANK else brute.player()


Check = Callable[[SetteEMezzoState, int], None]
