"""The PettingZoo environments (engine/rl): PettingZoo's own API test on every game and preset, and what
docs/rl.md promises of them: observations that tell views apart, legal masks the engine accepts, rewards in chips,
seeded tables."""

from __future__ import annotations

import doctest
import importlib
import random
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test

from mazziere import engine
from mazziere.engine import rl
from mazziere.engine.rl.env import ADAPTERS, MazziereEnv

SEATS = {"sette_e_mezzo": 4, "saltacavallo": 5, "trentuno": 4}
MOST = {"sette_e_mezzo": 12, "saltacavallo": 20, "trentuno": 9}
CASES = [(game_id, preset) for game_id in ADAPTERS for preset in engine.get_game(game_id).presets]
EXPECTED_WARNINGS = (
    "Observation is not a NumPy array",  # the observation is PettingZoo's dict of "observation" and "action_mask"
    "Observation space for each agent probably should be gymnasium.spaces.box",  # its space is a Dict of two Boxes
)
MODULES = ["adapter", "encoding", "env", "openspiel", "parallel", "saltacavallo", "sette_e_mezzo", "trentuno"]


def run_api_test(table: Any, cycles: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(table, num_cycles=cycles)
    unexpected = {str(w.message) for w in caught if not str(w.message).startswith(EXPECTED_WARNINGS)}
    assert not unexpected, unexpected


@pytest.mark.parametrize(("game_id", "preset"), CASES)
def test_pettingzoo_api_test_passes(game_id: str, preset: str) -> None:
    run_api_test(rl.env(game_id, SEATS[game_id], preset=preset), 300)


@pytest.mark.parametrize("game_id", ADAPTERS)
def test_pettingzoo_api_test_passes_on_the_raw_env_at_the_most_seats_truncated(game_id: str) -> None:
    run_api_test(rl.raw_env(game_id, MOST[game_id], max_hands=2), 200)


def random_play(table: MazziereEnv, seed: int, steps: int) -> Iterator[str]:
    """Random legal moves (``None`` for finished agents) for ``steps`` moves, resetting when a game ends."""
    rng = random.Random(seed)
    table.reset(seed=seed)
    for _ in range(steps):
        if not table.agents:
            table.reset()
        agent = table.agent_selection
        yield agent
        observation, _, terminated, truncated, _ = table.last()
        legal = np.flatnonzero(observation["action_mask"])
        table.step(None if terminated or truncated else int(rng.choice(legal)))


@pytest.mark.parametrize(("game_id", "preset"), CASES)
def test_different_views_give_different_observations(game_id: str, preset: str) -> None:
    table = rl.raw_env(game_id, SEATS[game_id], preset=preset)
    seen: dict[bytes, tuple[int, str]] = {}
    for _ in random_play(table, 3, 400):
        if table.agents:
            for seat in range(len(table.possible_agents)):
                view = (seat, repr(engine.view(table.table, seat)))
                observation = table.adapter.observe(table.table, seat).tobytes()
                assert seen.setdefault(observation, view) == view, f"two views, one observation: {view}"
    assert len(seen) > 100


@pytest.mark.parametrize(("game_id", "preset"), CASES)
def test_every_legal_number_plays_and_every_legal_kind_has_one(game_id: str, preset: str) -> None:
    table = rl.raw_env(game_id, SEATS[game_id], preset=preset)
    for _ in random_play(table, 5, 300):
        if not table.agents or table.terminations[table.agent_selection] or table.truncations[table.agent_selection]:
            continue
        seat = table.possible_agents.index(table.agent_selection)
        assert seat in engine.to_act(table.table)
        kinds = {entry.kind for entry in engine.legal_actions(table.table, seat)}
        moves = [move for move in table.legal.values() if move is not None]
        assert {move.kind for move in moves} == kinds
        for move in moves:
            engine.apply(table.table, move)  # raises Rejected if the engine refuses it


@pytest.mark.parametrize("game_id", ADAPTERS)
def test_an_action_outside_the_mask_is_refused(game_id: str) -> None:
    table = rl.raw_env(game_id, SEATS[game_id])
    table.reset(seed=1)
    mask = table.last()[0]["action_mask"]
    with pytest.raises(ValueError, match="may not play"):
        table.step(int(np.flatnonzero(mask == 0)[0]))


@pytest.mark.parametrize(("game_id", "preset"), CASES)
def test_rewards_add_up_to_each_seats_change_of_chips(game_id: str, preset: str) -> None:
    table = rl.raw_env(game_id, SEATS[game_id], preset=preset)
    rng = random.Random(2)
    table.reset(seed=2)
    start = dict(zip(table.possible_agents, table.table.chips, strict=True))
    total = dict.fromkeys(table.possible_agents, 0.0)
    for agent in table.agent_iter():
        observation, reward, terminated, truncated, _ = table.last()
        total[agent] += reward
        legal = np.flatnonzero(observation["action_mask"])
        table.step(None if terminated or truncated else int(rng.choice(legal)))
    assert engine.is_over(table.table)
    assert total == {a: float(table.table.chips[s] - start[a]) for s, a in enumerate(table.possible_agents)}
    assert any(total.values())


@pytest.mark.parametrize("game_id", ADAPTERS)
def test_the_seed_replays_a_table_and_another_seed_deals_another(game_id: str) -> None:
    def observations(seed: int) -> list[bytes]:
        table = rl.raw_env(game_id, SEATS[game_id])
        return [table.last()[0]["observation"].tobytes() for _ in random_play(table, seed, 60) if table.agents]

    assert observations(11) == observations(11)
    assert observations(11) != observations(12)


def test_max_hands_truncates_after_that_many_hands() -> None:
    table = rl.raw_env("sette_e_mezzo", 3, max_hands=2, chips=1000)
    table.reset(seed=4)
    for _ in table.agent_iter():
        _, _, terminated, truncated, _ = table.last()
        assert not terminated
        table.step(None if truncated else int(table.last()[0]["action_mask"].nonzero()[0][0]))
    assert table.hands == 2 and not engine.is_over(table.table)


def test_stakes_are_cut_into_levels_over_the_legal_range() -> None:
    def stakes(table: MazziereEnv) -> list[int]:
        table.reset(seed=1)
        while table.table.phase.value != "STAKE":
            table.step(int(table.last()[0]["action_mask"].nonzero()[0][0]))
        return [m.amount for m in table.legal.values() if m is not None and m.kind == "STAKE"]

    assert stakes(rl.raw_env("sette_e_mezzo", 2)) == list(range(1, 11))
    wide = rl.raw_env("sette_e_mezzo", 2, options={"max_stake": 100}, chips=1000)
    assert stakes(wide) == [1, 12, 23, 34, 45, 56, 67, 78, 89, 100]
    assert stakes(rl.raw_env("sette_e_mezzo", 2, chips=4)) == [1, 2, 3, 4]
    assert stakes(rl.raw_env("sette_e_mezzo", 2, stake_levels=4)) == [1, 4, 7, 10]


def test_trentuno_exchanges_name_a_hand_place_and_a_widow_place() -> None:
    table = rl.raw_env("trentuno", 3)
    table.reset(seed=3)
    table.step(0)  # DEAL
    seat = table.possible_agents.index(table.agent_selection)
    hand = [tc.card for tc in table.table.hands[seat]]
    widow = [tc.card for tc in table.table.widow]
    for h in range(3):
        for w in range(3):
            move = table.legal[1 + 3 * h + w]
            assert move is not None and move.kind == "EXCHANGE" and move.cards == (hand[h], widow[w])
    assert {table.adapter.names[i] for i in (10, 11)} == {"TAKE_ALL", "STOP"}


def test_saltacavallo_dead_seats_choose_a_giver_or_pass_before_the_deal() -> None:
    table = rl.raw_env("saltacavallo", 5)
    for _ in random_play(table, 8, 3000):
        state = table.table
        if table.agents and len(engine.to_act(state)) > 1 and not table.passed:
            break
    else:
        pytest.fail("no table with a dead seat that may be revived")
    seat = table.possible_agents.index(table.agent_selection)
    assert seat != state.dealer and state.lives[seat] == 0
    names = {table.adapter.names[i] for i in table.legal}
    assert "PASS" in names and names - {"PASS"} and all(n.startswith("REVIVE_FROM_") for n in names - {"PASS"})
    dead = [s for s in engine.to_act(state) if s != state.dealer]
    for _ in dead:
        table.step(4)  # PASS
    assert table.possible_agents.index(table.agent_selection) == state.dealer
    assert table.table is state  # passing changes nothing in the engine
    table.step(0)  # DEAL
    assert not table.passed


@pytest.mark.parametrize("module", MODULES)
def test_the_examples_in_the_docstrings_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(f"mazziere.engine.rl.{module}"), optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed


def test_the_package_example_runs() -> None:
    result = doctest.testmod(rl, optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed
