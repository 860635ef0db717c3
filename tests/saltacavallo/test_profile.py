"""The rule profile: options, validation, presets."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.games.saltacavallo import CUCU, NAPOLETANO, AllDeadHand, FirstDealer, Reshuffle, SaltacavalloRules
from engine.rules import describe, with_options
from engine.table import Seat
from tests.helpers import with_rules_version


def test_presets_napoletano_first_and_cucu() -> None:
    game = engine.get_game("saltacavallo")
    assert list(game.presets) == ["NAPOLETANO", "CUCU"] and game.default_preset == "NAPOLETANO"
    assert SaltacavalloRules() == NAPOLETANO
    assert NAPOLETANO.revival and not NAPOLETANO.drawn_king_keeps_own and not NAPOLETANO.drawn_horse_draws_again
    assert NAPOLETANO.first_dealer is FirstDealer.SECOND_DENARI and NAPOLETANO.reshuffle is Reshuffle.EVERY_HAND
    assert NAPOLETANO.all_dead_hand is AllDeadHand.REPLAY and NAPOLETANO.lives == 3
    assert not CUCU.revival and CUCU.drawn_king_keeps_own and CUCU.drawn_horse_draws_again
    for rules in game.presets.values():
        rules.validate()
        assert rules.rules_version == 1


def test_every_option_is_described() -> None:
    names = {o.name for o in describe(SaltacavalloRules)}
    assert names == {
        "lives",
        "coin",
        "min_seats",
        "first_dealer",
        "first_dealer_seat",
        "reshuffle",
        "drawn_king_keeps_own",
        "drawn_horse_draws_again",
        "all_dead_hand",
        "revival",
        "revival_dealer_exempt",
        "end_at_two_split",
    }
    assert all(o.doc for o in describe(SaltacavalloRules))
    for enum in (FirstDealer, Reshuffle, AllDeadHand):
        assert all(m.value == m.name for m in enum)


@pytest.mark.parametrize(
    "options",
    [
        {"lives": 0},
        {"lives": 100},
        {"coin": 0},
        {"min_seats": 1},
        {"min_seats": 4},
        {"first_dealer_seat": 20},
        {"first_dealer_seat": -1},
        {"first_dealer": "FIRST_ACE"},
        {"reshuffle": "NEVER"},
        {"revival": "yes"},
        {"min_seats": 2, "end_at_two_split": True},
    ],
)
def test_invalid_options_are_rejected(options: dict[str, Any]) -> None:
    with pytest.raises(engine.Rejected) as err:
        with_options(NAPOLETANO, options)
    assert err.value.reason is engine.Reason.INVALID_OPTION


def test_unknown_option_and_preset() -> None:
    seats = [Seat(f"p{i}", 10) for i in range(3)]
    with pytest.raises(engine.Rejected) as err:
        engine.new_table("saltacavallo", seats, seed=b"s", options={"jokers": True})
    assert err.value.reason is engine.Reason.UNKNOWN_OPTION
    with pytest.raises(engine.Rejected) as err:
        engine.new_table("saltacavallo", seats, seed=b"s", preset="MILANESE")
    assert err.value.reason is engine.Reason.UNKNOWN_PRESET


def test_state_round_trips_and_old_versions_are_refused() -> None:
    state = engine.new_table("saltacavallo", [Seat(f"p{i}", 10) for i in range(3)], seed=b"s", preset="CUCU").state
    raw = engine.state_to_bytes(state)
    assert engine.state_from_bytes(raw) == state
    old = with_rules_version(raw, 0)
    with pytest.raises(engine.Rejected) as err:
        engine.state_from_bytes(old)
    assert err.value.reason is engine.Reason.RULES_VERSION_UNSUPPORTED
