"""SM-13..SM-15, SM-19, SM-22 and the CASINO payouts: what one player's hand is worth against the bank.

:func:`judge` returns the bank's payment to the player in **halves of his stake**: ``2`` even money,
``4`` double, ``6`` triple, ``3`` 3:2, ``0`` a push; negative when the player pays the bank.
"""

from __future__ import annotations

from mazziere.engine.cards import Card
from mazziere.engine.games.sette_e_mezzo.points import SETTE_E_MEZZO, Scoring, is_reale
from mazziere.engine.games.sette_e_mezzo.rules import MattaRealePays, NaturalRule, SetteEMezzoRules

SINGLE = 2
DOUBLE = 4
TRIPLE = 6


def judge(
    rules: SetteEMezzoRules,
    sc: Scoring,
    player: tuple[Card, ...],
    p_pts: int,
    bank: tuple[Card, ...],
    b_pts: int,
    bank_bust: bool,
) -> int:
    """Halves of the stake the bank pays a standing player (negative: the player pays the bank)."""
    p_triple = sc.is_triple(player)
    p_reale = is_reale(player, p_pts)
    win = TRIPLE if p_triple else _reale_pay(rules, sc, player) if p_reale else SINGLE
    if bank_bust:  # SM-14, and SM-15 "also when the bank busts"
        return win
    b_triple = sc.is_triple(bank)
    if p_triple or b_triple:  # SM-22: a triplé beats everything but a triplé
        if p_triple and b_triple:
            return _tie(rules, p_pts, SINGLE)
        return TRIPLE if p_triple else -TRIPLE
    b_reale = is_reale(bank, b_pts)
    double = DOUBLE if rules.reale_pays_double else SINGLE
    nr = rules.natural_rule
    if p_pts == SETTE_E_MEZZO and b_pts == SETTE_E_MEZZO:
        return _both_sette_e_mezzo(rules, nr, p_reale, b_reale, _matta_figure(sc, player), win, double)
    if p_pts > b_pts:
        return win
    if p_pts < b_pts:
        if b_pts == SETTE_E_MEZZO and (nr is NaturalRule.S000 or (b_reale and nr is not NaturalRule.ENCYCLOPEDIA)):
            return -double
        return -SINGLE
    return _tie(rules, p_pts, SINGLE)


def _both_sette_e_mezzo(
    rules: SetteEMezzoRules, nr: NaturalRule, p_reale: bool, b_reale: bool, matta_figure: bool, win: int, double: int
) -> int:
    """SM-19: a player's 7½ against the bank's 7½."""
    if p_reale and b_reale:
        if nr is NaturalRule.S001:
            return _tie(rules, SETTE_E_MEZZO, double)
        if nr is NaturalRule.ENCYCLOPEDIA:
            return _tie(rules, SETTE_E_MEZZO, SINGLE)
        return -SINGLE  # S002, S000: the bank's reale wins, single
    if p_reale:  # the bank's 7½ is "illegittimo" (more than two cards)
        if nr is NaturalRule.S002:
            return win if matta_figure else -SINGLE
        if nr is NaturalRule.S000:
            return win
        if nr is NaturalRule.ENCYCLOPEDIA:
            return SINGLE
        return _tie(rules, SETTE_E_MEZZO, SINGLE)
    if b_reale:
        if nr is NaturalRule.S002:
            return -double
        if nr is NaturalRule.S000:
            return -SINGLE
        if nr is NaturalRule.S001:
            return _tie(rules, SETTE_E_MEZZO, double)
    return _tie(rules, SETTE_E_MEZZO, SINGLE)


def _tie(rules: SetteEMezzoRules, points: int, halves: int) -> int:
    """SM-13: ties go to the bank; CASINO: ties push, except a 5-5 tie with ``five_tie_loses``."""
    if rules.ties_push:
        return -SINGLE if rules.five_tie_loses and points == 10 else 0
    return -halves


def _reale_pay(rules: SetteEMezzoRules, sc: Scoring, player: tuple[Card, ...]) -> int:
    """SM-15: double; with even-money reales (CASINO) 1:1, or 3:2 for a reale holding the matta."""
    if rules.reale_pays_double:
        return DOUBLE
    if rules.reale_with_matta_pays is MattaRealePays.THREE_TO_TWO and sc.matta in player:
        return 3
    return SINGLE


def _matta_figure(sc: Scoring, player: tuple[Card, ...]) -> bool:
    """SM-19 S002: a reale of the matta and a figure (not a seven, and not an ace counted ½)."""
    return len(player) == 2 and sc.matta in player and any(c != sc.matta and c.is_figure for c in player)
