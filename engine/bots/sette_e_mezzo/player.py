"""A player's values: standing, drawing, burning and staking, each played on to his best expected result in chips
(SM-8..SM-11, SM-20), against the rest of the hand of :mod:`~mazziere.engine.bots.sette_e_mezzo.bank_play`.

A value at stake ``f`` is ``f`` times the value at stake 1 only where no rounding (a 3:2 payment), cap (his chips)
or raise bends it (:func:`scaled`). The best stake and the best raise are among the ends of each parity's amounts:
the value is convex in the amount (:mod:`~mazziere.engine.bots.sette_e_mezzo.amounts`).
"""

from __future__ import annotations

from collections.abc import Callable

from mazziere.engine.bots.sette_e_mezzo.counting import Hand, Pool, Profile, hand_points, take
from mazziere.engine.bots.sette_e_mezzo.memo import memo
from mazziere.engine.bots.sette_e_mezzo.results import Value, best, mix
from mazziere.engine.bots.sette_e_mezzo.standing import stand_dist, stand_value
from mazziere.engine.games.sette_e_mezzo.points import SETTE_E_MEZZO
from mazziere.engine.games.sette_e_mezzo.rules import BurnWhen


class Turn:
    """What a player's enumeration holds fixed: the profile, how many unseen cards lie in hands (``held``), how many
    later players must draw (``later``), his chips (None where no loss can reach them) and the largest stake a raise
    may reach (``top``; 0: no raises)."""

    __slots__ = ("chips", "held", "later", "profile", "top")

    def __init__(self, profile: Profile, held: int, later: int, chips: int | None, top: int) -> None:
        self.profile, self.held, self.later, self.chips, self.top = profile, held, later, chips, top

    def at(self, chips: int, stake: int) -> Turn:
        """This turn for a stake of ``stake``: his chips count only where a loss may reach them."""
        profile = self.profile
        top = min(profile.rules.max_stake, chips) if profile.rules.raise_on_decision else 0
        reach = (top or stake) * profile.loss > chips
        return Turn(profile, self.held, self.later, chips if reach else None, top)

    def stand(self, hand: Hand, pool: Pool, stake: int) -> Value:
        """Standing on ``hand`` at ``stake``."""
        return stand_value(stand_dist(self.profile, hand, pool, self.held, self.later), stake, self.chips)


def decide(turn: Turn, hand: Hand, pool: Pool, burned: int, stake: int) -> Value:
    """The best of the player's choices at a decision, in chips, his stake being ``stake`` (SM-8..SM-11, SM-20)."""
    return scaled(_decide, turn, hand, pool, burned, stake)


def hit(turn: Turn, hand: Hand, pool: Pool, burned: int, stake: int) -> Value:
    """A card from the unseen cards (``stake``: the stake after a raise)."""
    return scaled(_hit, turn, hand, pool, burned, stake)


def scaled(fn: Callable[..., Value], turn: Turn, hand: Hand, pool: Pool, burned: int, stake: int) -> Value:
    """``fn`` at ``stake``: computed at stake 1 (or 2, where a 3:2 payment rounds) and scaled where that is exact."""
    profile = turn.profile
    if turn.top or turn.chips is not None or (profile.three_two and stake % 2):
        return fn(profile, turn.held, turn.later, turn.chips, turn.top, hand, pool, burned, stake)
    base = 2 if profile.three_two else 1
    value = fn(profile, turn.held, turn.later, None, 0, hand, pool, burned, base)
    return value if stake == base else (value[0] * stake / base, *value[1:])


def stake_ends(profile: Profile, low: int, high: int) -> list[int]:
    """The amounts of ``low..high`` among which the best one lies (the value being convex over each parity): the
    two ends, and with a 3:2 payment the ends of the other parity too."""
    pairs = (low, low + 1, high - 1, high)
    return sorted(
        {amount for amount in pairs if low <= amount <= high and (profile.three_two or amount in (low, high))}
    )


@memo
def _decide(
    profile: Profile,
    held: int,
    later: int,
    chips: int | None,
    top: int,
    hand: Hand,
    pool: Pool,
    burned: int,
    stake: int,
) -> Value:
    turn = Turn(profile, held, later, chips, top)
    may_hit, may_stand, may_burn = choices(profile, hand, pool, held, burned)
    steps = stake_ends(profile, stake, top) if top else [stake]  # SM-8 raise_on_decision: the best raise's stake
    options = [hit(turn, hand, pool, burned, step) for step in steps] if may_hit else []  # in legal order (ties)
    if may_stand:
        options += [turn.stand(hand, pool, step) for step in steps]
    if may_burn:
        options.append(burn(turn, hand, pool, burned, stake))
    return best(options)


def after_card(turn: Turn, hand: Hand, pool: Pool, burned: int, stake: int) -> Value:
    """A card was just received: 7½ or a triplé stands, over 7½ busts, otherwise the player plays on."""
    points, triple = hand_points(turn.profile, hand)
    if points == SETTE_E_MEZZO or triple:
        return turn.stand(hand, pool, stake)
    if points > SETTE_E_MEZZO:
        return (-float(stake), 0.0, 0.0, 1.0, 1.0)
    return decide(turn, hand, pool, burned, stake)


@memo
def _hit(
    profile: Profile,
    held: int,
    later: int,
    chips: int | None,
    top: int,
    hand: Hand,
    pool: Pool,
    burned: int,
    stake: int,
) -> Value:
    turn = Turn(profile, held, later, chips, top)
    total = sum(pool)
    add = profile.add
    return mix(
        [
            (count / total, after_card(turn, add(hand, card), take(pool, card), burned, stake))
            for card, count in enumerate(pool)
            if count
        ]
    )


def burn(turn: Turn, hand: Hand, pool: Pool, burned: int, stake: int) -> Value:
    """SM-20 at a decision: the newest card is shown and replaced from the unseen cards."""
    total = sum(pool)
    parts = [
        (count / total, after_card(turn, (*hand[:-1], card), take(pool, card), burned + 1, stake))
        for card, count in enumerate(pool)
        if count
    ]
    return mix(parts)


def choices(profile: Profile, hand: Hand, pool: Pool, held: int, burned: int) -> tuple[bool, bool, bool]:
    """(may hit, may stand, may burn) at a decision, as the engine's legal actions say."""
    can = sum(pool) > held
    must = False
    if can and profile.forced_up >= 0:
        must = (len(hand) == 1 and hand[0] == profile.matta) or hand_points(profile, hand)[0] < profile.forced_up
    return can, not must, can and may_burn(profile, hand, burned)


def may_burn(profile: Profile, hand: Hand, burned: int) -> bool:
    """SM-20: the newest card has a burn rank, within the limit (``FIRST_CARD``: a lone first card)."""
    rules = profile.rules
    return (
        profile.burnable[hand[-1]]
        and not (rules.burn_limit and burned >= rules.burn_limit)
        and not (rules.burn_when is BurnWhen.FIRST_CARD and len(hand) != 1)
    )


def staked(turn: Turn, chips: int, hand: Hand, pool: Pool, burned: int) -> Value:
    """The STAKE phase: the best stake (one of the ends of each parity's amounts: convexity), or a burn."""
    rules = turn.profile.rules
    ends = stake_ends(turn.profile, rules.min_stake, min(rules.max_stake, chips))
    options = [decide(turn.at(chips, stake), hand, pool, burned, stake) for stake in ends]
    if sum(pool) > turn.held and may_burn(turn.profile, hand, burned):
        options.append(burn_then_stake(turn, chips, hand, pool, burned))
    return best(options)


def burn_then_stake(turn: Turn, chips: int, hand: Hand, pool: Pool, burned: int) -> Value:
    """SM-20 before the stake: a new first card, face down, then the best stake (or another burn)."""
    total = sum(pool)
    return mix(
        [
            (count / total, staked(turn, chips, (card,), take(pool, card), burned + 1))
            for card, count in enumerate(pool)
            if count
        ]
    )
