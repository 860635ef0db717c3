"""The rest of a Sette e mezzo hand as a player's advice models it (docs/bots.md): with a short stock, the bank's end
computed with its play put first and the players still to play counted by the cards they draw
(``engine/bots/sette_e_mezzo/rest.py``) equals a direct enumeration of the model, hand after hand in table order:
each player still to play turns up his face-down card and draws while he must (below the bank's face-up card, or on
a lone matta) and a card is left, then the house draws below 5; every card each of them reads is each unseen card
left in turn. Random CASINO spots from a fixed seed, two to five players still to play, at most 14 unseen cards. And
the bank's paths grouped by the cards read against its play walked card by card."""

from __future__ import annotations

import functools
import random

from mazziere import engine
from mazziere.engine.bots import sette_e_mezzo as sm
from mazziere.engine.bots.sette_e_mezzo.bank_play import MAX_DRAWS, bank_ends
from mazziere.engine.bots.sette_e_mezzo.ends import BankEnd, end_of
from mazziere.engine.bots.sette_e_mezzo.rest import bank_dist
from mazziere.engine.games.sette_e_mezzo.points import SETTE_E_MEZZO, house_stands
from mazziere.engine.games.sette_e_mezzo.rules import SetteEMezzoRules
from mazziere.engine.games.sette_e_mezzo.state import SetteEMezzoState
from mazziere.engine.table import Seat

EPS = 1e-12
Ends = tuple[tuple[BankEnd, float], ...]


def _casino() -> SetteEMezzoRules:
    table = engine.new_table("sette_e_mezzo", [Seat(f"s{i}", 100) for i in range(4)], seed=b"rest", preset="CASINO")
    state = table.state
    assert isinstance(state, SetteEMezzoState)
    return state.rules


def _direct(profile: sm.Profile, pool: tuple[int, ...], drawable: int, later: int) -> dict[BankEnd, float]:
    """The model played hand after hand from the unseen cards ``pool`` (``drawable`` of them in the stock)."""
    scoring = profile.scoring

    def points(hand: tuple[int, ...]) -> tuple[int, bool]:
        cards = profile.cards_of(hand)
        return scoring.points(cards), scoring.is_triple(cards)

    def reads(pool: tuple[int, ...]) -> list[tuple[int, float, tuple[int, ...]]]:
        total = sum(pool)
        return [
            (card, count / total, (*pool[:card], count - 1, *pool[card + 1 :]))
            for card, count in enumerate(pool)
            if count
        ]

    @functools.cache
    def bank(hand: tuple[int, ...], pool: tuple[int, ...], left: int) -> Ends:
        total, triple = points(hand)
        lone_matta = hand[0] == profile.matta
        if total >= SETTE_E_MEZZO or triple or house_stands(total, len(hand), lone_matta) or not left:
            return ((end_of(profile, (hand[0], *sorted(hand[1:]))), 1.0),)
        out: dict[BankEnd, float] = {}
        for card, chance, rest in reads(pool):
            for end, then in bank((*hand, card), rest, left - 1):
                out[end] = out.get(end, 0.0) + chance * then
        return tuple(out.items())

    @functools.cache
    def player(hand: tuple[int, ...], pool: tuple[int, ...], left: int, after: int) -> Ends:
        """A player still to play holding ``hand`` (none: his face-down card is read first), ``after`` more to play."""
        if hand:
            total, triple = points(hand)
            alone = len(hand) == 1 and hand[0] == profile.matta
            draws = left and not (total >= SETTE_E_MEZZO or triple) and (alone or total < profile.forced_up)
            if not draws:
                if after:
                    return player((), pool, left, after - 1)
                return bank(profile.bank_up, pool, left)
        out: dict[BankEnd, float] = {}
        for card, chance, rest in reads(pool):
            for end, then in player((*hand, card), rest, left - bool(hand), after):
                out[end] = out.get(end, 0.0) + chance * then
        return tuple(out.items())

    return dict(player((), pool, drawable, later - 1))


def test_the_bank_read_first_equals_the_hands_in_table_order() -> None:
    rules = _casino()
    whole = sm.profile_of(rules).pool(sm.profile_of(rules).scoring.pack)
    rng = random.Random(20261203)
    checked = short = 0
    for _ in range(60):
        up = rng.randrange(len(whole))
        profile = sm.profile_of(rules, (up,))
        cards = [card for card, count in enumerate(whole) for _ in range(count - (card == up))]
        unseen = rng.sample(cards, rng.randint(9, 14))
        pool = tuple(unseen.count(card) for card in range(len(whole)))
        later = rng.randint(2, 5)
        drawable = len(unseen) - later - rng.randint(0, 2)  # the others' face-down cards lie in hands
        got = dict(bank_dist(profile, pool, drawable, later))
        want = _direct(profile, pool, drawable, later)
        assert abs(sum(got.values()) - 1) <= EPS, (up, pool, drawable, later)
        for end in {*got, *want}:  # an end may be listed with no chance
            assert abs(got.get(end, 0.0) - want.get(end, 0.0)) <= EPS, (up, pool, drawable, later, end)
        checked += 1
        short += any(chance for end, chance in want.items() if not end[1] and end[0] < 10)
    assert checked == 60 and short > 10


def _by_total(ends: dict[BankEnd, float]) -> dict[tuple[int, bool, tuple[int, ...]], float]:
    """Ends added up by total, bust and the cards of a two-card end in any order."""
    out: dict[tuple[int, bool, tuple[int, ...]], float] = {}
    for (total, bust, shape), chance in ends.items():
        key = (total, bust, tuple(sorted(shape)))
        out[key] = out.get(key, 0.0) + chance
    return out


def test_sm21_a_face_down_bank_card_counts_as_dealt_in_the_grouped_paths() -> None:
    """A seat bank whose first card is face down: its ends grouped by the cards read (never short of cards) equal
    its play walked card by card, with ``ace_half_first`` too (an ace counts ½ only as the first card)."""
    rng = random.Random(20261204)
    for options in ({}, {"ace_half_first": True}):
        table = engine.new_table("sette_e_mezzo", [Seat("a", 100), Seat("b", 100)], seed=b"sm21", options=options)
        state = table.state
        assert isinstance(state, SetteEMezzoState)
        profile = sm.profile_of(state.rules)
        whole = profile.pool(profile.scoring.pack)
        cards = [card for card, count in enumerate(whole) for _ in range(count)]
        for _ in range(10):
            unseen = rng.sample(cards, 25)
            pool = tuple(unseen.count(card) for card in range(len(whole)))
            grouped = _by_total(bank_ends(profile, (), pool, MAX_DRAWS))
            walked = _by_total(bank_ends(profile, (), pool, MAX_DRAWS - 1))  # the same: no bank draws 14 cards
            for end in {*grouped, *walked}:
                assert abs(grouped.get(end, 0.0) - walked.get(end, 0.0)) <= EPS, (options, pool, end)
