"""A Trentuno deal in play, played out by the ``cautious`` policy on plain integers: what ``engine.apply`` would do
from a determinization (sampled advice, :mod:`mazziere.engine.bots.sampled`), without building a state per step.

A card is its bit (:func:`card_bit`), a hand a list of three bits in the order the engine holds them, so the
exchanges the policy weighs come in legal order and its ties fall as the engine's do. The turns follow TR-9 to
TR-11 and the round limit (TR-14) as :mod:`mazziere.engine.games.trentuno.turns` does; the end of the deal pays
the pot (TR-3, TR-12) or takes lives as :mod:`mazziere.engine.games.trentuno.showdown` does, and the game ends
when too few seats can be dealt in again (the pot left going to its heir). No card is drawn in a deal (the stock is
set aside, TR-4), so a play-out depends only on the other seats' hands. tests/bots/test_trentuno_playout.py
checks every figure against ``engine.apply``.
"""

from __future__ import annotations

from collections.abc import Sequence

from mazziere.engine.bots.trentuno.ranks import ranks
from mazziere.engine.cards import Card
from mazziere.engine.games.trentuno.hands import card_bit
from mazziere.engine.games.trentuno.players import after, can_deal, participants
from mazziere.engine.games.trentuno.rules import Scoring, TrentunoRules
from mazziere.engine.games.trentuno.state import Phase, TrentunoState
from mazziere.engine.table import Action, TableState

EXCHANGE = 0
TAKE_ALL = 1
STOP = 2
"""A move: exchange (with the positions of the card given and the card taken), take all, or stop (a pass in the
last round)."""
UNSEEN = -1
"""In a hand's template: a card the seat cannot see, dealt from the ordering of the unseen cards."""

Deal = list[list[int]]
"""Every seat's hand as card bits, in seat order (empty for a seat not dealt in)."""


class DealStart:
    """What every determinization of one decision shares: the hands' templates, the widow, the order of play,
    the turn and the round, the chips, the pot and the lives."""

    __slots__ = (
        "chips", "dealer", "last_left", "lives", "max_rounds", "max_steps", "next_seats", "order", "place",
        "pot", "rounds", "rules", "seat", "stopper", "stops", "template", "trentuno", "widow",
    )  # fmt: skip

    def __init__(self, state: TrentunoState, seat: int, template: Deal, max_steps: int) -> None:
        tables = ranks(state.rules.tris_by_points)
        self.place: dict[int, int] = tables.place
        self.stops: list[bool] = tables.stops
        self.trentuno: list[bool] = tables.trentuno
        self.rules: TrentunoRules = state.rules
        self.seat = seat
        self.template = template
        self.widow: list[int] = [card_bit(tc.card) for tc in state.widow if tc.card is not None]
        count = state.seat_count
        self.next_seats: list[tuple[int, ...]] = [
            after(state.in_deal, s, count) if s in state.in_deal else () for s in range(count)
        ]
        self.order: tuple[int, ...] = (*self.next_seats[state.dealer], state.dealer)
        self.dealer = state.dealer
        self.max_rounds = state.rules.max_rounds
        self.rounds = state.rounds
        self.stopper = -1 if state.stopper is None else state.stopper
        self.last_left: tuple[int, ...] = state.last_left
        self.chips: tuple[int, ...] = state.chips
        self.pot = state.pot
        self.lives: tuple[int, ...] = state.lives
        self.max_steps = max_steps

    def deal(self, order: Sequence[Card]) -> Deal:
        """The hands with the unseen cards dealt from ``order`` in seat order, each hand's cards in order (as
        :func:`~mazziere.engine.bots.hidden.determinize` deals the face-down cards of other seats)."""
        out: Deal = []
        dealt = 0
        for row in self.template:
            if UNSEEN not in row:
                out.append(row)
                continue
            hand: list[int] = []
            for bit in row:
                if bit == UNSEEN:
                    hand.append(card_bit(order[dealt]))
                    dealt += 1
                else:
                    hand.append(bit)
            out.append(hand)
        return out

    def play(self, dealt: Deal, action: Action) -> tuple[int, int]:
        """``action`` of the seat on ``dealt``, then every seat by the cautious policy to the end of the deal (or
        ``max_steps`` moves): (the seat's chip result, its outcome: 1 the only winner, 0 a shared win or, for
        lives, no life lost while another lost one, -1 otherwise)."""
        place, trentuno = self.place, self.trentuno
        hands = list(dealt)  # a hand that changes is replaced, never changed in place: ``dealt`` stays as it is
        widow = list(self.widow)
        seat = self.seat
        move, given, taken = self._move(action, hands[seat], widow)
        stopper, left, at, rounds = self.stopper, self.last_left, 0, self.rounds
        steps = 0
        while True:
            opens = False
            if move != STOP:
                hand = hands[seat]
                if move == EXCHANGE:
                    new = hand.copy()
                    new[given], widow[taken] = widow[taken], hand[given]
                else:
                    new, widow, opens = widow, hand.copy(), True
                hands[seat] = new
                if trentuno[place[new[0] | new[1] | new[2]]]:  # TR-10
                    return self._finish(hands, [seat])
            else:
                opens = True
            if stopper >= 0:  # TR-11: one last turn each
                at += 1
                if at >= len(left):
                    return self._finish(hands, None)
                seat = left[at]
            elif opens:
                stopper, left, at = seat, self.next_seats[seat], 0
                seat = left[0]
            else:
                if seat == self.dealer:
                    rounds += 1
                    if rounds >= self.max_rounds:  # TR-14: as if the dealer had stopped
                        stopper, left, at = seat, self.next_seats[seat], 0
                seat = self.next_seats[seat][0]
            if steps >= self.max_steps:
                return 0, -1  # cut mid-deal: no chips moved, nobody won
            move, given, taken = self._cautious(hands[seat], widow)
            steps += 1

    def _move(self, action: Action, hand: list[int], widow: list[int]) -> tuple[int, int, int]:
        if action.kind == "EXCHANGE":
            given, taken = action.cards
            return EXCHANGE, hand.index(card_bit(given)), widow.index(card_bit(taken))
        if action.kind == "TAKE_ALL":
            return TAKE_ALL, 0, 0
        return STOP, 0, 0

    def _cautious(self, hand: list[int], widow: list[int]) -> tuple[int, int, int]:
        """The ``cautious`` policy (:func:`~mazziere.engine.bots.cautious.trentuno`): stop on 25 or more, else the
        first exchange (hand card, then widow card, in order) or the take-all that makes the best hand, else stop."""
        place = self.place
        bits = hand[0] | hand[1] | hand[2]
        best = place[bits]
        if self.stops[best]:
            return STOP, 0, 0
        move, given, taken = STOP, 0, 0
        for out in range(3):
            kept = bits ^ hand[out]
            for into in range(3):
                value = place[kept | widow[into]]
                if value > best:
                    best, move, given, taken = value, EXCHANGE, out, into
        if place[widow[0] | widow[1] | widow[2]] > best:
            return TAKE_ALL, 0, 0
        return move, given, taken

    def _finish(self, hands: Deal, winners: list[int] | None) -> tuple[int, int]:
        """TR-12, then the pot (TR-3) or the lives, then the end of the game if too few seats can be dealt in."""
        place, order, me = self.place, self.order, self.seat
        places = [place[hands[s][0] | hands[s][1] | hands[s][2]] for s in order]
        if winners is None:
            best = max(places)
            winners = [s for s, value in zip(order, places, strict=True) if value == best]
        mine = me in winners
        outcome = (1 if len(winners) == 1 else 0) if mine else -1
        if self.rules.scoring is Scoring.POT:
            share = self.pot // len(winners)
            chips = tuple(held + share if s in winners else held for s, held in enumerate(self.chips))
            return self._game_end(
                winners, chips, self.lives, self.pot - share * len(winners), share if mine else 0, outcome
            )
        losers, lives = self._lives_lost(places)
        if losers and not mine and me not in losers:
            outcome = 0
        return self._game_end(winners, self.chips, lives, self.pot, 0, outcome)

    def _lives_lost(self, places: list[int]) -> tuple[list[int], tuple[int, ...]]:
        """LIVES: the worst hands (``places`` in play order) lose a life, unless that leaves nobody alive."""
        worst = min(places)
        losers = [s for s, value in zip(self.order, places, strict=True) if value == worst]
        after_deal = list(self.lives)
        for loser in losers:
            after_deal[loser] -= 1
        if not any(after_deal):
            return [], self.lives
        return losers, tuple(after_deal)

    def _game_end(
        self, winners: list[int], chips: tuple[int, ...], lives: tuple[int, ...], pot: int, delta: int, outcome: int
    ) -> tuple[int, int]:
        """(``delta``, ``outcome``), with the pot left (``pot``) to the seat if the game ends and it is the heir."""
        players = participants(self.rules, chips, lives)
        if not can_deal(self.rules, players):
            heir = players[0] if self.rules.scoring is Scoring.LIVES and players else winners[0]
            if heir == self.seat:
                delta += pot
        return delta, outcome


def start(state: TableState, seat: int, owned: int, max_steps: int) -> DealStart | None:
    """The play-outs of ``seat``'s decision in a Trentuno deal in play, or None where they do not apply: another
    game or phase, not the seat's turn, or an unseen card anywhere but in another seat's hand (``owned``: how many
    unseen cards other seats hold, :class:`~mazziere.engine.bots.hidden.Hidden`)."""
    if not isinstance(state, TrentunoState) or state.phase is not Phase.PLAYING or state.turn != seat:
        return None
    if len(state.widow) != 3 or any(tc.card is None or not tc.seen_by.admits(seat) for tc in state.widow):
        return None
    template = _template(state, seat)
    if template is None or sum(row.count(UNSEEN) for row in template) != owned:
        return None
    return DealStart(state, seat, template, max_steps)


def _template(state: TrentunoState, seat: int) -> Deal | None:
    """Every hand as the seat sees it: a card's bit, or :data:`UNSEEN` for another seat's face-down card; None if
    a hand holds a card nobody sees or is not of three cards."""
    template: Deal = []
    for hand in state.hands:
        row: list[int] = []
        for tc in hand:
            if tc.card is not None and tc.seen_by.admits(seat):
                row.append(card_bit(tc.card))
            elif tc.card is not None and tc.seen_by.seats:
                row.append(UNSEEN)
            else:
                return None
        if row and len(row) != 3:
            return None
        template.append(row)
    return template
