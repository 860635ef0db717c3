"""The rule profile: options, validation, presets as RULES.md's table, and the codec."""

from __future__ import annotations

from enum import Enum

import pytest

from mazziere import engine
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.games.sette_e_mezzo import rules as r
from mazziere.engine.games.sette_e_mezzo.rules import PRESETS, SetteEMezzoRules
from mazziere.engine.rules import describe, with_options
from tests.sette_e_mezzo.table import table


def test_presets_in_order_classico_default():
    assert list(PRESETS) == ["CLASSICO", "NAPOLETANO", "DELLARTI", "CASINO"]
    assert engine.get_game("sette_e_mezzo").default_preset == "CLASSICO"
    assert PRESETS["CLASSICO"] == SetteEMezzoRules()


def test_preset_napoletano_s000():
    p = PRESETS["NAPOLETANO"]
    assert p.pack is r.Pack.ITALIAN and str(p.matta_card) == "Rd" and p.first_bank is r.FirstBank.HIGHEST_CARD
    assert p.burn_ranks == {3, 4} and p.burn_when is r.BurnWhen.FIRST_CARD and p.burn_limit == 1
    assert p.natural_rule is r.NaturalRule.S000


def test_preset_dellarti_s001():
    p = PRESETS["DELLARTI"]
    assert (p.min_seats, p.max_seats) == (3, 12) and p.natural_rule is r.NaturalRule.S001
    assert p.hidden_card_choice and p.reshuffle is r.Reshuffle.ON_MATTA
    assert not p.burn_ranks and not p.triple


def test_preset_classico_s002_variants_off():
    p = PRESETS["CLASSICO"]
    assert (p.min_seats, p.max_seats) == (2, 12) and p.natural_rule is r.NaturalRule.S002
    assert p.bank_passes_when is r.BankPasses.DECK_EXHAUSTED
    assert not p.burn_ranks and not p.ace_half_first and not p.raise_on_decision
    assert p.matta_values is r.MattaValues.HALF_OR_WHOLE


def test_preset_casino():
    p = PRESETS["CASINO"]
    assert p.house_bank and p.bank_first_card_up and p.forced_draws and p.ties_push
    assert p.bank_passes_when is r.BankPasses.NEVER and not p.bank_passes_on_reale
    assert p.reshuffle is r.Reshuffle.EVERY_HAND and not p.reale_pays_double
    assert not p.five_tie_loses and p.reale_with_matta_pays is r.MattaRealePays.ONE_TO_ONE
    assert not p.burn_ranks and not p.triple


@pytest.mark.parametrize(
    "options",
    [
        {"min_stake": 5, "max_stake": 4},
        {"min_stake": 0},
        {"min_seats": 5, "max_seats": 4},
        {"max_seats": 13},
        {"min_seats": 1},
        {"first_bank_seat": 12},
        {"triple_two_sevens": True},
        {"forced_draws": True},
        {"house_bank": True},
        {"matta_card": "8H"},
        {"burn_ranks": [0]},
        {"burn_limit": -1},
        {"natural_rule": "S003"},
        {"pack": "GERMAN"},
    ],
)
def test_contradictory_options_are_refused(options):
    with pytest.raises(Rejected) as err:
        with_options(PRESETS["CLASSICO"], options)
    assert err.value.reason is Reason.INVALID_OPTION


def test_every_option_is_documented_and_enums_are_named_by_value():
    infos = describe(SetteEMezzoRules)
    assert len(infos) == 30 and all(i.doc for i in infos)
    for name in dir(r):
        kind = getattr(r, name)
        if isinstance(kind, type) and issubclass(kind, Enum):
            assert all(m.value == m.name for m in kind)


def test_state_round_trips_through_the_codec():
    run = table("7d 6c 5s Fc", burn_ranks=[3], triple=True).do("1 STAKE 5", "1 HIT")
    raw = engine.state_to_bytes(run.state)
    assert engine.state_from_bytes(raw) == run.state


def test_results_shown_until_the_next_deal():
    run = table("5d 6c 5s").do("1 STAKE 1", "1 STAND", "2 STAKE 1", "2 STAND", "0 STAND")
    assert len(engine.view(run.state, None).results) == 2
    assert all(tc.card is not None for tc in engine.view(run.state, None).seats[1].cards)
    run.do("0 DEAL")
    assert engine.view(run.state, None).results == ()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"min_seats": 2, "max_seats": 2}, None),
        ({"min_seats": 12, "max_seats": 12}, None),
        ({"min_seats": 5, "max_seats": 4}, "seats must satisfy 2 <= min_seats <= max_seats <= 12"),
        ({"min_stake": 7, "max_stake": 7}, None),
        ({"min_stake": 8, "max_stake": 7}, "stakes must satisfy 1 <= min_stake <= max_stake (got 8, 7)"),
        ({"first_bank_seat": 11}, None),
        ({"first_bank_seat": 4, "max_seats": 4}, "first_bank_seat 4 is not a seat of a 4-seat table"),
        ({"matta_card": engine.Card.parse("8H")}, "matta_card 8H is not in the ITALIAN 40-card pack"),
        ({"burn_ranks": frozenset({1, 10})}, None),
        ({"burn_ranks": frozenset({11})}, "burn_ranks must be ranks 1..10 of the ITALIAN pack"),
        ({"burn_ranks": frozenset({0})}, "burn_ranks must be ranks 1..10 of the ITALIAN pack"),
        ({"pack": r.Pack.FRENCH, "burn_ranks": frozenset({13})}, None),
        ({"pack": r.Pack.FRENCH, "burn_ranks": frozenset({14})}, "burn_ranks must be ranks 1..13 of the FRENCH pack"),
        ({"burn_limit": -1}, "burn_limit must be 0 (unlimited) or more"),
        ({"triple_two_sevens": True}, "triple_two_sevens needs triple"),
        (
            {"house_bank": True},
            "a house bank never passes: set bank_passes_when=NEVER and bank_passes_on_reale=false",
        ),
        ({"forced_draws": True}, "forced_draws compares with the bank's up card: set bank_first_card_up"),
    ],
    ids=str,
)
def test_sm4_sm8_sm20_sm22_casino_options_at_and_past_their_bounds(changes, message):
    rules = SetteEMezzoRules(**changes)
    if message is None:
        rules.validate()
        return
    with pytest.raises(Rejected) as err:
        rules.validate()
    assert err.value.reason is Reason.INVALID_OPTION and err.value.message == message


def test_sm1_sm3_every_italian_card_has_its_french_counterpart_and_back():
    from mazziere.engine.cards import FRENCH_40, ITALIAN_40

    figures = {"F": "J", "C": "Q", "R": "K"}
    suits = {"d": "D", "c": "H", "s": "S", "b": "C"}
    for card in ITALIAN_40:
        rank, suit = str(card)
        french = engine.Card.parse(figures.get(rank, rank) + suits[suit])
        assert r.pack_card(card, r.Pack.FRENCH) == french and r.pack_card(french, r.Pack.ITALIAN) == card
        assert r.pack_card(card, r.Pack.ITALIAN) == card and r.pack_card(french, r.Pack.FRENCH) == french
    assert {r.pack_card(c, r.Pack.FRENCH) for c in ITALIAN_40} == set(FRENCH_40)
    for text in ("8H", "9D", "TS", "TC"):
        assert r.pack_card(engine.Card.parse(text), r.Pack.ITALIAN) is None
