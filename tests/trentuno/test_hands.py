"""The evaluator, exhaustively over all 4,960 hands of the 32-card pack (TR-1, TR-5, TR-8, TR-12)."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, pairwise
from math import comb

import pytest

from mazziere.engine.cards import FRENCH_32, Card, Suit, parse_cards
from mazziere.engine.games.trentuno.hands import (
    JOKER_TRIS,
    SUIT_SUM,
    TRENTUNO,
    TRIS,
    all_keys,
    card_value,
    evaluate,
    hand_key,
    hand_points,
)

RANK_VALUES = [7, 8, 9, 10, 10, 10, 10, 11]  # 7, 8, 9, 10, J, Q, K, A (TR-1)
HANDS = list(combinations(FRENCH_32, 3))


def key(text: str, tris_by_points: bool = False) -> tuple[int, ...]:
    return hand_key(parse_cards(text), tris_by_points)


def subsets_with_sum(size: int, total: int) -> int:
    """How many sets of ``size`` ranks of one suit add up to ``total``."""
    return sum(1 for c in combinations(RANK_VALUES, size) if sum(c) == total)


def expected_suit_sums() -> Counter[int]:
    """Hands valued by a suit sum, per sum, counted by suit pattern with the tris and joker tris taken out."""
    out: Counter[int] = Counter()
    for s in range(7, 31):
        out[s] += 4 * subsets_with_sum(3, s)  # three of one suit (s = 31 is Trentuno, excluded by range)
        out[s] += 4 * subsets_with_sum(2, s) * 24  # two of one suit (a pair sum >= 15 beats any single card)
    # three suits: the value is the highest card; a(v) ranks are worth <= v; choose the 3 suits (4 ways)
    at_most = {6: 0, 7: 1, 8: 2, 9: 3, 10: 7, 11: 8}
    for v in (7, 8, 9, 10, 11):
        out[v] += 4 * (at_most[v] ** 3 - at_most[v - 1] ** 3)
    # tris are three suits: 7s (v 7), 8s, 9s, four 10-point ranks (v 10), aces (v 11)
    for v, ranks in ((7, 1), (8, 1), (9, 1), (10, 4), (11, 1)):
        out[v] -= 4 * ranks
    # joker tris X-X-J♣ (X not a jack): with X♣ among the pair, two suits whose pair sum is v(X) + 10;
    # otherwise three suits, whose highest card is worth max(v(X), 10)
    for v in (7, 8, 9, 10, 10, 10, 11):  # X = 7, 8, 9, 10, Q, K, A
        out[v + 10] -= 3
        out[max(v, 10)] -= 3
    return +out


def test_exhaustive_class_counts_default() -> None:
    keys = all_keys()
    assert len(keys) == comb(32, 3) == 4960
    classes = Counter(k[0] for k in keys.values())
    assert classes[TRENTUNO] == 4 * comb(4, 2) == 24
    assert classes[TRIS] == 8 * comb(4, 3) == 32
    assert classes[JOKER_TRIS] == 7 * comb(4, 2) == 42
    sums = Counter(k[1] for k in keys.values() if k[0] == SUIT_SUM)
    assert sums == expected_suit_sums()
    assert sum(sums.values()) + 24 + 32 + 42 == 4960
    tris_ranks = Counter(k[1] for k in keys.values() if k[0] == TRIS)
    assert tris_ranks == dict.fromkeys((7, 8, 9, 10, 11, 12, 13, 14), 4)


def test_exhaustive_class_counts_tris_by_points() -> None:
    keys = all_keys(tris_by_points=True)
    classes = Counter(k[0] for k in keys.values())
    assert classes[TRENTUNO] == 24
    assert classes[TRIS] == 4 * comb(4, 3) + comb(16, 3)  # 7s, 8s, 9s, aces; any three of the 16 ten-pointers
    assert classes[JOKER_TRIS] == 4 * comb(4, 2)  # pairs of 7, 8, 9, A with J♣ (a 10-point pair makes a tris)
    assert sum(classes.values()) == 4960


def test_keys_agree_with_the_reference_evaluator() -> None:
    for mode in (False, True):
        for hand in HANDS:
            assert hand_key(hand, mode) == evaluate(hand, mode)
            assert hand_key(tuple(reversed(hand)), mode) == hand_key(hand, mode)


def test_tables_built_at_import_are_what_building_them_now_gives() -> None:
    """The tables are built once, when the module loads; building them again must give the same keys."""
    from mazziere.engine.games.trentuno import hands

    for mode in (False, True):
        table = hands._table(mode)
        assert len(table) == comb(32, 3) and table == all_keys(mode)


def test_order_is_total_and_consistent() -> None:
    rng = random.Random(31)
    keys = [hand_key(h) for h in HANDS]

    def cmp(a: tuple[int, ...], b: tuple[int, ...]) -> int:
        return (a > b) - (a < b)

    for _ in range(20000):
        a, b, c = (rng.choice(keys) for _ in range(3))
        assert cmp(a, b) == -cmp(b, a)  # antisymmetric
        assert (a < b) + (a == b) + (a > b) == 1  # total
        if cmp(a, b) >= 0 and cmp(b, c) >= 0:
            assert cmp(a, c) >= 0  # transitive
    ordered = sorted(HANDS, key=hand_key)
    assert all(hand_key(x) <= hand_key(y) for x, y in pairwise(ordered))


def test_identical_hands_tie_and_only_they() -> None:
    """Suits never matter except the jack of clubs: permuting hearts, diamonds and spades keeps every key;
    two suit-sum hands with equal keys hold the same ranks."""
    rng = random.Random(7)
    others = [Suit.HEARTS, Suit.DIAMONDS, Suit.SPADES]
    for hand in HANDS:
        perm = dict(zip(others, rng.sample(others, 3), strict=True))
        moved = tuple(Card(c.rank, perm.get(c.suit, c.suit)) for c in hand)
        assert hand_key(moved) == hand_key(hand)
    by_key: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    for hand in HANDS:
        k = hand_key(hand)
        if k[0] == SUIT_SUM:
            by_key.setdefault(k, set()).add(tuple(sorted(c.rank for c in hand)))
    assert all(len(ranks) == 1 for ranks in by_key.values())


def test_tr1_card_values() -> None:
    assert [card_value(c) for c in parse_cards("7H 8H 9H TH JH QH KH AH")] == [7, 8, 9, 10, 10, 10, 10, 11]


def test_tr5_trentuno_is_ace_and_two_ten_pointers_of_a_suit() -> None:
    assert key("AH KH QH")[0] == TRENTUNO
    assert key("AS TS JS")[0] == TRENTUNO
    assert key("AH KH QD")[0] == SUIT_SUM
    assert hand_points(key("AC JC TC")) == 62


def test_tr7_trentuno_order_by_ten_pointers() -> None:
    assert key("AH KH QH") > key("AS KS JS") > key("AD KD TD") > key("AC QC JC") > key("AH JH TH")
    assert key("AH KH QH") == key("AS KS QS")


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("7H 7D 7S", "AH AD JC"),  # the lowest tris beats the best joker tris
        ("AH AD AS", "KH KD KS"),
        ("JH JD JC", "TH TD TS"),  # three jacks are a real tris
        ("8H 8D JC", "7H 7S JC"),
        ("7H 7D JC", "AH KH 9H"),  # a joker tris (30½) beats the best suit sum (30)
        ("AH KH 9H", "KS QS JS"),
        ("AH 9H 7S", "KH QH AS"),  # equal sums: the cards that count first (A-9 beat K-Q)
        ("KH QH AS", "KD QD 9S"),  # then the others
        ("AH 7D 8S", "KH QD 9S"),  # single cards: 11 beats 10
    ],
)
def test_tr8_tr12_order(better: str, worse: str) -> None:
    assert key(better) > key(worse)


def test_tr8_examples() -> None:
    assert key("QH TH JD") == (SUIT_SUM, 20, 12, 10, 11)
    assert hand_points(key("QH TH JD")) == 40
    assert hand_points(key("7H 7D 7S")) == hand_points(key("7H 7D JC")) == 61
    assert key("JH JD JC")[0] == TRIS
    assert key("JH JC 9D")[0] == SUIT_SUM


def test_tr8_tris_by_points() -> None:
    assert key("KH QD JS")[0] == SUIT_SUM
    assert key("KH QD JS", True)[0] == TRIS
    assert key("KH QH JH", True)[0] == TRIS  # 30½ beats the 30 of the suit
    assert key("AH AD AS", True) > key("KH KD KS", True) > key("KH KD QS", True) > key("TH TD TS", True)
    assert key("TH TD TS", True) > key("9H 9D 9S", True) > key("AH AD JC", True)
    assert key("KH KD JC", True)[0] == TRIS


def test_tr8_the_default_reading_is_one_rank_for_a_tris() -> None:
    """Without tris_by_points, K Q J of three suits is the best single card, not a tris."""
    cards = parse_cards("KH QD JS")
    assert hand_key(cards) == hand_key(cards, False) == evaluate(cards) == (SUIT_SUM, 10, 13, 12, 11)
    assert hand_key(cards, True)[0] == TRIS
