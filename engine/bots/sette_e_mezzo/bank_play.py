"""The bank's play by the house's rule as a player's advice models it (draw below 5, stand on 5 or more; a house
bank's lone matta takes one card; no card left: it stands): every way its hand may end, with its probability, and
every way its play may go (finished or not), grouped so that a pool of unseen cards prices each at once."""

from __future__ import annotations

from mazziere.engine.bots.sette_e_mezzo.counting import Hand, Pool, Profile, bank_add, hand_points, take
from mazziere.engine.bots.sette_e_mezzo.ends import BankEnd, end_of
from mazziere.engine.bots.sette_e_mezzo.memo import memo
from mazziere.engine.games.sette_e_mezzo.points import SETTE_E_MEZZO, house_stands

MAX_DRAWS = 15
"""No hand takes more cards than this (each is worth at least ½, and 7½ stops it): with at least this many cards
left to draw per hand still to play, the stock cannot run out."""

Path = tuple[BankEnd, bool, int, int, tuple[int, ...], tuple[tuple[int, int], ...]]
"""A way the bank's play may go, as a multiset of cards read: (its end if it stops there, whether the house's rule
stops it there, its orders of reading, the cards read, per class read the index ``class * stride + count`` into
:func:`ordered_draws`, and (class, count) per class read)."""
Groups = dict[tuple[Hand, tuple[int, ...], bool], int]
"""Per hand reached (sorted, but for a first card that counts apart: one the bank shows, or an ace under SM-21's
``ace_half_first``), multiset of cards read and whether the rule stops there, its orders of reading."""


@memo
def bank_paths(profile: Profile, bank: Hand) -> tuple[Path, ...]:
    """Every way the bank's play may go from its known cards ``bank`` (none: its face-down card is read first), by
    the multiset of cards read: where the house's rule stops it, and every point short of that where it could be
    told no card is left. A path's probability depends on the unseen cards only through the counts of the classes
    read, so this is enumerated once per bank start."""
    groups: Groups = {}
    _group_plays(profile, bank, profile.pool(profile.scoring.pack), bank, (), groups)
    out = []
    for (hand, read, stops), orders in groups.items():
        classes = sorted(set(read))
        indexes = tuple(card * profile.stride + read.count(card) for card in classes)
        taken = tuple((card, read.count(card)) for card in classes)
        out.append((end_of(profile, hand), stops, orders, len(read), indexes, taken))
    return tuple(out)


@memo
def bank_terms(profile: Profile, bank: Hand) -> tuple[Path, ...]:
    """The paths of :func:`bank_paths` on which the house's rule stops the bank."""
    return tuple(path for path in bank_paths(profile, bank) if path[1])


def _group_plays(profile: Profile, bank: Hand, limit: Pool, hand: Hand, drawn: tuple[int, ...], groups: Groups) -> None:
    """Add to ``groups`` every play of the bank from ``hand`` (``drawn`` since ``bank``), at most ``limit`` cards
    of a class."""
    stops = end_by_rule(profile, hand) is not None
    if hand:
        shape = hand if bank or profile.scoring.ace_half else tuple(sorted(hand))
        key = (shape, tuple(sorted(drawn)), stops)
        groups[key] = groups.get(key, 0) + 1
    if stops:
        return
    for card, count in enumerate(limit):
        if drawn.count(card) + bank.count(card) < count:
            _group_plays(profile, bank, limit, bank_add(hand, card), (*drawn, card), groups)


def end_by_rule(profile: Profile, bank: Hand) -> BankEnd | None:
    """How the bank's hand ends if it stops here by the house's rule, or None while it draws on."""
    if not bank:
        return None
    points, triple = hand_points(profile, bank)
    lone_matta = bank[0] == profile.matta and profile.rules.house_bank
    if points >= SETTE_E_MEZZO or triple or house_stands(points, len(bank), lone_matta):
        return end_of(profile, bank)
    return None


def falling_factorials(total: int) -> list[float]:
    """``total * (total - 1) * ...`` of ``0 .. MAX_DRAWS + 1`` factors."""
    falling = [1.0]
    for j in range(MAX_DRAWS + 1):
        falling.append(falling[-1] * (total - j))
    return falling


def ordered_draws(pool: Pool, stride: int) -> list[float]:
    """At ``class * stride + m``: the ordered draws of ``m`` cards of that class from ``pool``."""
    ways = [0.0] * (len(pool) * stride)
    for card, count in enumerate(pool):
        orders = ways[card * stride] = 1.0
        for j in range(count):
            orders *= count - j
            ways[card * stride + j + 1] = orders
    return ways


def _fast_bank_ends(profile: Profile, bank: Hand, pool: Pool) -> dict[BankEnd, float]:
    """Every way the bank's hand may end, with its probability, drawing from ``pool`` (never running out)."""
    falling = falling_factorials(sum(pool))
    ways = ordered_draws(pool, profile.stride)
    out: dict[BankEnd, float] = {}
    for end, _, orders, read, indexes, _ in bank_terms(profile, bank):
        term = path_chance(orders, read, indexes, ways, falling)
        if term:
            out[end] = out.get(end, 0.0) + term
    return out


def path_chance(orders: int, read: int, indexes: tuple[int, ...], ways: list[float], falling: list[float]) -> float:
    """The probability of a :data:`Path` (its orders, cards read and indexes) from the pool of ``ways`` and
    ``falling`` (:func:`ordered_draws`, :func:`falling_factorials`)."""
    term = float(orders)
    for index in indexes:
        term *= ways[index]
    return term / falling[read] if term else 0.0


def bank_ends(profile: Profile, bank: Hand, pool: Pool, drawable: int) -> dict[BankEnd, float]:
    """The bank's ends from ``bank`` with ``drawable`` cards left to draw (a bank with none stands)."""
    if drawable >= MAX_DRAWS:
        return _fast_bank_ends(profile, bank, pool)
    out: dict[BankEnd, float] = {}
    _walk_bank(profile, bank, pool, drawable, 1.0, out)
    return out


def _walk_bank(profile: Profile, hand: Hand, pool: Pool, drawable: int, prob: float, out: dict[BankEnd, float]) -> None:
    """Add to ``out`` every end of the bank's play from ``hand`` (reached with ``prob``)."""
    end = end_by_rule(profile, hand)
    if end is None and hand and not drawable:
        end = end_of(profile, hand)
    if end is not None:
        out[end] = out.get(end, 0.0) + prob
        return
    total = sum(pool)
    for card, count in enumerate(pool):
        if count:
            _walk_bank(
                profile, bank_add(hand, card), take(pool, card), drawable - bool(hand), prob * count / total, out
            )
