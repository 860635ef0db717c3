"""The three games registered with OpenSpiel (engine/rl/openspiel.py): loaded by name, played to the end, checked
by OpenSpiel's own random-simulation test, and run by its RL environment and its Python MCTS."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import mcts

from mazziere import engine
from mazziere.engine.rl import openspiel
from mazziere.engine.rl.env import ADAPTERS

NAMES = [f"python_mazziere_{game_id}" for game_id in ADAPTERS]


def play_out(state: pyspiel.State, rng: random.Random) -> int:
    """Random play to the end; the number of decisions."""
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probabilities)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    return decisions


def test_sette_e_mezzo_loads_by_name_and_plays_a_random_game_to_the_end() -> None:
    game = pyspiel.load_game("python_mazziere_sette_e_mezzo")
    state = game.new_initial_state()
    assert play_out(state, random.Random(1)) > 0
    assert state.now.hands == 1  # the default game is one hand
    assert sum(state.returns()) == 0 and any(state.returns())


@pytest.mark.parametrize("name", NAMES)
def test_a_whole_game_plays_until_the_engine_says_it_is_over(name: str) -> None:
    game = pyspiel.load_game(name, {"players": 3, "max_hands": 0})
    state = game.new_initial_state()
    play_out(state, random.Random(2))
    assert engine.is_over(state.now.table)
    chips = state.now.table.chips
    assert state.returns() == [float(c - seat.chips) for c, seat in zip(chips, state.spec.seats, strict=True)]


@pytest.mark.parametrize("name", NAMES)
def test_openspiels_random_simulation_test_passes(name: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(name, {"players": 3}), num_sims=5, serialize=True, verbose=False)


@pytest.mark.parametrize("name", NAMES)
def test_a_clone_shares_the_past_and_not_the_future(name: str) -> None:
    state = pyspiel.load_game(name).new_initial_state()
    for byte in b"seed":
        state.apply_action(byte)
    state.apply_action(state.legal_actions()[0])
    twin = state.clone()
    assert str(twin) == str(state) and twin.history() == state.history()
    twin.apply_action(twin.legal_actions()[-1])
    assert twin.history() != state.history() and state.now.table.seq + 1 == twin.now.table.seq


@pytest.mark.parametrize("name", NAMES)
def test_the_observation_tensor_is_the_pettingzoo_observation(name: str) -> None:
    game = pyspiel.load_game(name)
    state = game.new_initial_state()
    for byte in b"tens":
        state.apply_action(byte)
    state.apply_action(state.legal_actions()[0])
    for player in range(game.num_players()):
        expected = game.spec.adapter.observe(state.now.table, player)
        assert np.array_equal(np.asarray(state.observation_tensor(player), np.float32), expected)
        assert state.observation_string(player) == repr(engine.view(state.now.table, player))


def test_the_seed_bytes_are_chance_nodes_nobody_observes() -> None:
    state = pyspiel.load_game("python_mazziere_trentuno").new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 256
    assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
    for byte in b"demo":
        state.apply_action(byte)
    assert state.now.table.seed == b"demo" and not state.is_chance_node()


@pytest.mark.parametrize("name", NAMES)
def test_openspiels_rl_environment_and_python_mcts_run_on_the_games(name: str) -> None:
    game = pyspiel.load_game(name, {"players": 3})
    env = rl_environment.Environment(game)
    step = env.reset()
    while not step.last():
        player = step.observations["current_player"]
        step = env.step([random.Random(player).choice(step.observations["legal_actions"][player])])
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 10, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(int(rng.randint(256)) if state.is_chance_node() else bot.step(state))


def test_registration_names_every_game_once() -> None:
    assert sorted(openspiel.GAMES) == sorted(ADAPTERS)
    assert set(NAMES) <= set(pyspiel.registered_names())
