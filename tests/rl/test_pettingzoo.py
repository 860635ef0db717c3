"""PettingZoo's own checks of every game beside ``api_test`` (tests/rl/test_env.py): ``parallel_api_test`` on the
parallel environment (engine/rl/parallel.py) and ``seed_test`` on the AEC one, and the parallel table played as
the AEC table plays it."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, seed_test

from mazziere import engine
from mazziere.engine import rl
from mazziere.engine.rl.env import ADAPTERS
from tests.rl.test_env import EXPECTED_WARNINGS, MOST, SEATS

CASES = [(game_id, preset) for game_id in ADAPTERS for preset in engine.get_game(game_id).presets]


def without_unexpected_warnings(check: Callable[[], None]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check()
    unexpected = {str(w.message) for w in caught if not str(w.message).startswith(EXPECTED_WARNINGS)}
    assert not unexpected, unexpected


@pytest.mark.parametrize(("game_id", "preset"), CASES)
def test_pettingzoo_parallel_api_test_passes(game_id: str, preset: str) -> None:
    table = rl.parallel_env(game_id, SEATS[game_id], preset=preset)
    without_unexpected_warnings(lambda: parallel_api_test(table, num_cycles=300))


@pytest.mark.parametrize("game_id", ADAPTERS)
def test_pettingzoo_parallel_api_test_passes_at_the_most_seats_truncated(game_id: str) -> None:
    table = rl.parallel_env(game_id, MOST[game_id], max_hands=2)
    without_unexpected_warnings(lambda: parallel_api_test(table, num_cycles=200))
    assert table.aec.hands == 2 and not table.agents


@pytest.mark.parametrize(("game_id", "preset"), CASES)
def test_pettingzoo_seed_test_passes(game_id: str, preset: str) -> None:
    without_unexpected_warnings(lambda: seed_test(lambda: rl.env(game_id, SEATS[game_id], preset=preset), 300))


def first_legal(observation: dict[str, Any]) -> int:
    return int(np.flatnonzero(observation["action_mask"])[0])


@pytest.mark.parametrize("game_id", ADAPTERS)
def test_the_parallel_table_plays_as_the_aec_table(game_id: str) -> None:
    """The same seed and the same choices (each time the first legal action) reach the same chips, and the parallel
    rewards add up to each seat's change of chips."""
    aec = rl.raw_env(game_id, SEATS[game_id], max_hands=3)
    aec.reset(seed=5)
    for _agent in aec.agent_iter():
        observation, _, terminated, truncated, _ = aec.last()
        aec.step(None if terminated or truncated else first_legal(observation))
    parallel = rl.parallel_env(game_id, SEATS[game_id], max_hands=3)
    observations, _ = parallel.reset(seed=5)
    start = parallel.aec.table.chips
    won = dict.fromkeys(parallel.possible_agents, 0.0)
    while parallel.agents:
        acting = parallel.agent_to_act
        others = [a for a in parallel.agents if a != acting]
        assert all(not observations[a]["action_mask"].any() for a in others), "only the agent to act may act"
        actions = {agent: first_legal(observations[acting]) if agent == acting else 0 for agent in parallel.agents}
        observations, rewards, _, _, _ = parallel.step(actions)
        for agent, reward in rewards.items():
            won[agent] += reward
    assert parallel.aec.table.chips == aec.table.chips
    assert [won[a] for a in parallel.possible_agents] == [
        float(end - begin) for begin, end in zip(start, parallel.aec.table.chips, strict=True)
    ]


def test_a_step_without_the_action_of_the_agent_to_act_is_refused() -> None:
    table = rl.parallel_env("trentuno", 3)
    table.reset(seed=2)
    with pytest.raises(ValueError, match="is to act"):
        table.step({a: 0 for a in table.agents if a != table.agent_to_act})
