"""The rule profile: options, validation, presets."""

from __future__ import annotations

from typing import Any

import pytest

from mazziere import engine
from mazziere.engine.games.saltacavallo import CUCU, NAPOLETANO, AllDeadHand, FirstDealer, Reshuffle, SaltacavalloRules
from mazziere.engine.rules import describe, with_options
from mazziere.engine.table import Seat
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
        "sit_out",
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


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"lives": 1}, None),
        ({"lives": 99}, None),
        ({"lives": 0}, "lives must be 1..99, not 0"),
        ({"lives": 100}, "lives must be 1..99, not 100"),
        ({"coin": 10**9}, None),
        ({"coin": 10**9 + 1}, "coin must be 1..1000000000 chips, not 1000000001"),
        ({"min_seats": 2}, None),
        ({"min_seats": 4}, "min_seats must be 2 or 3, not 4"),
        ({"first_dealer_seat": 19}, None),
        ({"first_dealer_seat": 20}, "first_dealer_seat must be 0..19, not 20"),
        (
            {"end_at_two_split": True, "min_seats": 2},
            "end_at_two_split stops the game at two seats, so it needs min_seats 3",
        ),
    ],
    ids=str,
)
def test_sc2_sc3_sc4_sc15_options_at_and_past_their_bounds(changes: dict[str, Any], message: str | None) -> None:
    rules = SaltacavalloRules(**changes)
    if message is None:
        rules.validate()
        return
    with pytest.raises(engine.Rejected) as err:
        rules.validate()
    assert err.value.reason is engine.Reason.INVALID_OPTION and err.value.message == message
