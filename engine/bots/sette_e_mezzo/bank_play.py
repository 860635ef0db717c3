"""The rest of a hand as a player sees it: the players still to play draw what ``forced_draws`` makes them draw,
then the bank plays by the house's rule (draw below 5, stand on 5 or more; a house bank's lone matta takes one
card; no card left: it stands). Every way the bank's hand may end, with its probability."""

from __future__ import annotations

from mazziere.engine.bots.sette_e_mezzo.counting import Hand, Pool, Profile, bank_add, hand_points, take
from mazziere.engine.bots.sette_e_mezzo.ends import BankEnd, end_of
from mazziere.engine.bots.sette_e_mezzo.memo import memo
from mazziere.engine.games.sette_e_mezzo.points import HOUSE_STANDS, SETTE_E_MEZZO, house_stands

MAX_DRAWS = 15
"""No hand takes more cards than this (each is worth at least ½, and 7½ stops it): with at least this many cards
left to draw per hand still to play, the stock cannot run out."""

Term = tuple[int, int, tuple[int, ...]]
"""(orders of drawing, cards drawn, per class drawn the index ``class * stride + count`` into falling factorials)."""
Groups = dict[BankEnd, dict[tuple[int, ...], int]]
"""Per end, the orders of drawing of each multiset of cards drawn that ends so."""


@memo
def bank_terms(profile: Profile, bank: Hand) -> tuple[tuple[BankEnd, tuple[Term, ...]], ...]:
    """Every way the bank's play may go from its known cards ``bank``, grouped by how it ends: per end, its
    :data:`Term` rows. The probability of a term depends on the unseen cards only through the counts of the classes
    drawn, so this is enumerated once per bank start."""
    groups: Groups = {}
    _group_plays(profile, bank, profile.pool(profile.scoring.pack), bank, (), groups)
    out = []
    for end, terms in groups.items():
        rows = []
        for drawn, orders in terms.items():
            indexes = tuple(card * profile.stride + drawn.count(card) for card in sorted(set(drawn)))
            rows.append((orders, len(drawn), indexes))
        out.append((end, tuple(rows)))
    return tuple(out)


def _group_plays(profile: Profile, bank: Hand, limit: Pool, hand: Hand, drawn: tuple[int, ...], groups: Groups) -> None:
    """Add to ``groups`` every play of the bank from ``hand`` (``drawn`` since ``bank``), at most ``limit`` cards
    of a class."""
    end = end_by_rule(profile, hand)
    if end is not None:
        terms = groups.setdefault(end, {})
        key = tuple(sorted(drawn))
        terms[key] = terms.get(key, 0) + 1
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


def _falling_factorials(total: int) -> list[float]:
    """``total * (total - 1) * ...`` of ``0 .. MAX_DRAWS + 1`` factors."""
    falling = [1.0]
    for j in range(MAX_DRAWS + 1):
        falling.append(falling[-1] * (total - j))
    return falling


def _ordered_draws(pool: Pool, stride: int) -> list[float]:
    """At ``class * stride + m``: the ordered draws of ``m`` cards of that class from ``pool``."""
    ways = [0.0] * (len(pool) * stride)
    for card, count in enumerate(pool):
        orders = ways[card * stride] = 1.0
        for j in range(count):
            orders *= count - j
            ways[card * stride + j + 1] = orders
    return ways


def _fast_bank_ends(profile: Profile, bank: Hand, pool: Pool) -> list[tuple[BankEnd, float]]:
    """Every way the bank's hand may end, with its probability, drawing from ``pool`` (never running out)."""
    falling = _falling_factorials(sum(pool))
    ways = _ordered_draws(pool, profile.stride)
    out = []
    for end, rows in bank_terms(profile, bank):
        prob = 0.0
        for orders, drawn, indexes in rows:
            term = float(orders)
            for index in indexes:
                term *= ways[index]
            if term:
                prob += term / falling[drawn]
        if prob:
            out.append((end, prob))
    return out


def bank_ends(profile: Profile, bank: Hand, pool: Pool, drawable: int) -> dict[BankEnd, float]:
    """The bank's ends from ``bank`` with ``drawable`` cards left to draw (a bank with none stands)."""
    if drawable >= MAX_DRAWS:
        return dict(_fast_bank_ends(profile, bank, pool))
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


@memo
def bank_dist(profile: Profile, pool: Pool, drawable: int, later: int) -> tuple[tuple[BankEnd, float], ...]:
    """How the bank's hand ends (from ``profile.bank_up``, the cards of it the player sees; none: its face-down card
    is one of the unseen cards) once the ``later`` players still to play have drawn what ``forced_draws`` makes them
    draw: ``pool`` every unseen card, ``drawable`` how many of them the stock and the discards hold."""
    if not later:
        return tuple(bank_ends(profile, profile.bank_up, pool, drawable).items())
    if stock_suffices(profile, pool, drawable, later):
        return bank_dist(profile, pool, MAX_DRAWS, 0)
    out: dict[BankEnd, float] = {}
    for (rest, left), prob in _forced_play(profile, (), pool, drawable).items():
        for end, then in bank_dist(profile, rest, left, later - 1):
            out[end] = out.get(end, 0.0) + prob * then
    return tuple(out.items())


def _forced_play(profile: Profile, hand: Hand, pool: Pool, drawable: int) -> dict[tuple[Pool, int], float]:
    """A later player's turn by the model: his face-down card, then a card while he must draw (below the bank's up
    card, or a lone matta); the unseen cards left after it (and how many are drawable), with their probability."""
    total = sum(pool)
    out: dict[tuple[Pool, int], float] = {}
    if hand and not _must_draw(profile, hand, drawable):
        return {(pool, drawable): 1.0}
    for card, count in enumerate(pool):
        if count:
            after = _forced_play(profile, profile.add(hand, card), take(pool, card), drawable - bool(hand))
            for key, prob in after.items():
                out[key] = out.get(key, 0.0) + prob * count / total
    return out


def _must_draw(profile: Profile, hand: Hand, drawable: int) -> bool:
    """A later player holding ``hand`` must draw (and a card is left to draw)."""
    points, triple = hand_points(profile, hand)
    must = (len(hand) == 1 and hand[0] == profile.matta) or points < profile.forced_up
    return not (points >= SETTE_E_MEZZO or triple or not must or not drawable)


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
