"""A player's advice (STAKE or DECIDE): each legal action's value from his own view, an amount range at the amounts
of :func:`~mazziere.engine.bots.sette_e_mezzo.amounts.amounts`."""

from __future__ import annotations

from collections.abc import Sequence

from mazziere.engine.bots.hidden import Hidden
from mazziere.engine.bots.sette_e_mezzo.amounts import amounts
from mazziere.engine.bots.sette_e_mezzo.counting import Hand, Pool, profile_of
from mazziere.engine.bots.sette_e_mezzo.player import Turn, burn, burn_then_stake, decide, hit
from mazziere.engine.bots.sette_e_mezzo.results import Value, action_advice
from mazziere.engine.bots.values import EXACT, ActionAdvice, Advice
from mazziere.engine.games.sette_e_mezzo.state import Phase, SetteEMezzoState, Status
from mazziere.engine.table import Action, LegalAction


class Position:
    """What the advised player knows: his turn (profile, cards in hands, later players), chips, hand, the unseen
    cards, his burns so far, his stake, and whether he is still to stake."""

    __slots__ = ("burned", "chips", "hand", "pool", "stake", "staking", "turn")

    def __init__(self, state: SetteEMezzoState, seat: int) -> None:
        rules = state.rules
        bank_cards = [
            tc.card for tc in state.hands[state.bank].cards if tc.card is not None and tc.seen_by.admits(seat)
        ]
        profile = profile_of(rules, profile_of(rules).hand(bank_cards))
        hidden = Hidden(state, seat)
        own = state.hands[seat]
        later = sum(
            1
            for other, hand in enumerate(state.hands)
            if other not in (seat, state.bank) and hand.status is Status.WAITING  # the bank waits too
        )
        self.turn = Turn(profile, hidden.owned, later if rules.forced_draws else 0, None, 0)
        self.pool: Pool = profile.pool(hidden.cards)
        self.hand: Hand = profile.hand([tc.card for tc in own.cards])  # type: ignore[misc]  # a seat sees its own cards
        self.burned = len(own.burned)
        self.chips = state.chips[seat]
        self.stake = own.stake
        self.staking = state.phase is Phase.STAKE

    def burn(self) -> Value:
        """SM-20: a burn now (before the stake, then the best stake)."""
        if self.staking:
            return burn_then_stake(self.turn, self.chips, self.hand, self.pool, self.burned)
        return burn(self.turn.at(self.chips, self.stake), self.hand, self.pool, self.burned, self.stake)


class AmountValues:
    """The value of an amount of one legal entry: a stake of it (``then`` None), or a raise by it of the stake with
    ``then = (kind, stake)`` (HIT, HIT_HIDDEN or STAND); each amount computed once."""

    def __init__(self, position: Position, then: tuple[str, int] | None) -> None:
        self.position, self.then = position, then
        self.known: dict[int, Value] = {}

    def __call__(self, amount: int) -> Value:
        if amount not in self.known:
            self.known[amount] = self._value(amount)
        return self.known[amount]

    def _value(self, amount: int) -> Value:
        position = self.position
        turn, hand, pool = position.turn, position.hand, position.pool
        if self.then is None:
            return decide(turn.at(position.chips, amount), hand, pool, position.burned, amount)
        kind, stake = self.then
        now, raised = turn.at(position.chips, stake), stake + amount
        return now.stand(hand, pool, raised) if kind == "STAND" else hit(now, hand, pool, position.burned, raised)

    def expected(self, amount: int) -> float:
        return self(amount)[0]


def player_advice(state: SetteEMezzoState, seat: int, entries: Sequence[LegalAction]) -> Advice:
    """Exact advice for a player's stake or decision."""
    position = Position(state, seat)
    out: list[ActionAdvice] = []
    for entry in entries:
        if entry.kind == "BURN":
            out.append(action_advice(entry.example(seat), position.burn()))
        else:
            out += _amounts_advice(position, entry, seat)
    return Advice(seat, EXACT, 0, tuple(out))


def _amounts_advice(position: Position, entry: LegalAction, seat: int) -> list[ActionAdvice]:
    """A stake or a decision of ``entry``, at each amount worth listing: its ends where the value is proportional
    to the amount, else every amount where it bends."""
    profile = position.turn.profile
    value = AmountValues(position, None if position.staking else (entry.kind, position.stake))
    bends = profile.rules.raise_on_decision or profile.three_two or entry.max_amount * profile.loss > position.chips
    lo, hi = entry.min_amount, entry.max_amount
    listed = (lo, hi) if position.staking and not bends else amounts(value.expected, lo, hi, profile.three_two)
    return [
        action_advice(Action(seat, entry.kind, amount, entry.target, entry.cards), value(amount))
        for amount in sorted(set(listed))
    ]
