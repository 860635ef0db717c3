"""The rest of a hand as a player sees it once his turn is over: the players still to play draw what
``forced_draws`` makes them draw (:mod:`~mazziere.engine.bots.sette_e_mezzo.later`), then the bank plays by the
house's rule (:mod:`~mazziere.engine.bots.sette_e_mezzo.bank_play`). How the bank's hand ends, with its probability.

While the stock holds more cards than every hand still to play may take, the bank's hand ends as if it drew from
every unseen card. Otherwise the bank's play is put first: every card read is one of a uniform order of the unseen
cards, and a way for the players' turns and the bank's play to go is as likely in any order of the hands
(docs/bots.md), so the bank ends on a path of its own play when the players' turns drew few enough cards to leave
it that many, and stands short of its rule when they drew exactly the rest of the stock.
"""

from __future__ import annotations

from mazziere.engine.bots.sette_e_mezzo.bank_play import (
    MAX_DRAWS,
    bank_ends,
    bank_paths,
    end_by_rule,
    falling_factorials,
    ordered_draws,
    path_chance,
)
from mazziere.engine.bots.sette_e_mezzo.counting import Pool, Profile
from mazziere.engine.bots.sette_e_mezzo.ends import BankEnd
from mazziere.engine.bots.sette_e_mezzo.later import players_fit, reduced
from mazziere.engine.bots.sette_e_mezzo.memo import memo
from mazziere.engine.games.sette_e_mezzo.points import HOUSE_STANDS


@memo
def bank_dist(profile: Profile, pool: Pool, drawable: int, later: int) -> tuple[tuple[BankEnd, float], ...]:
    """How the bank's hand ends (from ``profile.bank_up``, the cards of it the player sees; none: its face-down card
    is one of the unseen cards) once the ``later`` players still to play have drawn what ``forced_draws`` makes them
    draw: ``pool`` every unseen card, ``drawable`` how many of them the stock and the discards hold."""
    bank = profile.bank_up
    stands = end_by_rule(profile, bank)
    if stands is not None:
        return ((stands, 1.0),)  # it stands on the cards it shows, whatever the others draw
    if not later:
        return tuple(bank_ends(profile, bank, pool, drawable).items())
    if stock_suffices(profile, pool, drawable, later):
        return bank_dist(profile, pool, MAX_DRAWS, 0)
    falling = falling_factorials(sum(pool))
    ways = ordered_draws(pool, profile.stride)
    out: dict[BankEnd, float] = {}
    for end, stops, orders, read, indexes, taken in bank_paths(profile, bank):
        draws = read - (not bank)  # a face-down first card is no draw
        if draws > drawable:
            continue
        prob = path_chance(orders, read, indexes, ways, falling)
        if not prob:
            continue
        rest = list(pool)
        for card, count in taken:
            rest[card] -= count
        left = reduced(profile, tuple(rest))
        if stops:  # the players' turns left it ``draws`` cards or more
            prob *= players_fit(profile, left, later, drawable - draws) if draws else 1.0
        elif draws:  # they left it exactly ``draws``: it stands, the stock empty
            prob *= players_fit(profile, left, later, drawable - draws) - players_fit(
                profile, left, later, drawable - draws - 1
            )
        else:  # they left it nothing
            prob *= 1.0 - players_fit(profile, left, later, drawable - 1)
        out[end] = out.get(end, 0.0) + prob
    return tuple(out.items())


def stock_suffices(profile: Profile, pool: Pool, drawable: int, later: int) -> bool:
    """No hand still to play can find the stock empty: then what the ``later`` players draw changes nothing for the
    bank (docs/bots.md), and the bank's hand ends as if it drew from every unseen card."""
    return drawable >= stock_needed(profile, pool, later)


def stock_needed(profile: Profile, pool: Pool, later: int) -> int:
    """The most stock cards the ``later`` players (drawing below the bank's face-up card) and then the bank (below 5)
    may yet take from ``pool``. Each hand's cards but its last are worth less than its threshold together, each at
    least its lowest worth (the matta nothing); those of every hand are among the unseen cards, so at most as many
    as the smallest of them fit in the thresholds' sum; the bank adds its last card."""
    room = later * max(0, profile.forced_up - 1) + HOUSE_STANDS - 1
    cards = pool[profile.matta] if profile.matta >= 0 else 0
    for worth in _lowest_worths(profile, pool):
        if worth > room:
            break
        room -= worth
        cards += 1
    return cards + 1


def _lowest_worths(profile: Profile, pool: Pool) -> list[int]:
    """The least each unseen card but the matta may count in a hand, in halves, in increasing order."""
    out: list[int] = []
    for card, count in enumerate(pool):
        if card != profile.matta:
            worth = profile.scoring.points((profile.cards[card],))
            out += [min(worth, 1) if profile.classes[card] == 1 and profile.rules.ace_half_first else worth] * count
    return sorted(out)
