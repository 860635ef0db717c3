"""Profiles and states are values: immutable, hashable, equal when equal (every game, every preset).

Caches key on them (the compiled scoring of a profile, the service's memo of recent tokens), and a caller may
keep any state it was given: a state that could change under it, or that would not hash, breaks both.
"""

from __future__ import annotations

from typing import Any

import pytest

from mazziere import engine
from mazziere.engine.table import Seat
from tests.helpers import random_step, replace

PRESETS = [(game.id, name) for game in engine.all_games() for name in game.presets]
SEATS = {"sette_e_mezzo": 3, "saltacavallo": 3, "trentuno": 3}


def _states(game_id: str, preset: str) -> list[engine.TableState]:
    import random

    rng = random.Random(1)
    seats = [Seat(f"p{i}", 50) for i in range(SEATS[game_id])]
    state = engine.new_table(game_id, seats, seed=b"values", preset=preset).state
    states = [state]
    for _ in range(12):
        if engine.is_over(state):
            break
        state = engine.apply(state, random_step(state, rng)).state
        states.append(state)
    return states


def _some_field(value: Any) -> str:
    return next(name for name in ("rules_version", "game", "min_stake", "lives", "ante") if hasattr(value, name))


@pytest.mark.parametrize(("game_id", "preset"), PRESETS, ids=lambda v: str(v))
def test_profiles_are_immutable_and_hashable(game_id: str, preset: str) -> None:
    profile = engine.get_game(game_id).presets[preset]
    same = engine.rules.with_options(profile, {})
    assert same == profile and hash(same) == hash(profile)
    assert len({profile, same}) == 1
    name = _some_field(profile)
    with pytest.raises(AttributeError):
        setattr(profile, name, getattr(profile, name))
    changed = replace(profile, rules_version=profile.rules_version + 1)
    assert changed != profile and profile.rules_version == changed.rules_version - 1


@pytest.mark.parametrize(("game_id", "preset"), PRESETS, ids=lambda v: str(v))
def test_states_are_immutable_and_hashable(game_id: str, preset: str) -> None:
    states = _states(game_id, preset)
    for state in states:
        copy = engine.state_from_bytes(engine.state_to_bytes(state))
        assert copy == state and hash(copy) == hash(state)
        for name in ("seq", "chips", "rules"):
            with pytest.raises(AttributeError):
                setattr(state, name, getattr(state, name))
    assert len(set(states)) == len(states)  # every action makes a new, different state
    before = [engine.state_to_bytes(s) for s in states]
    for state in states[:-1]:
        if not engine.is_over(state):
            engine.apply(
                state, engine.legal_actions(state, engine.to_act(state)[0])[0].example(engine.to_act(state)[0])
            )
    assert [engine.state_to_bytes(s) for s in states] == before  # acting on a state never changes it


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_a_new_table_is_at_sequence_0_and_each_action_adds_one(game_id: str) -> None:
    states = _states(game_id, engine.get_game(game_id).default_preset)
    assert [s.seq for s in states] == list(range(len(states)))
