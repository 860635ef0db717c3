"""The games as PettingZoo parallel environments: :class:`MazziereParallelEnv`, a turn-based table in the parallel
API, over the AEC environment.

Every live agent hands in an action each step, as the parallel API has it, but the games are played in turns: only
the action of the agent to act (:attr:`MazziereParallelEnv.agent_to_act`, the one whose ``action_mask`` is not all
zeros) is played, and the others' are ignored. Rewards are the chips each seat won or lost in the step; a table that
ends (or is truncated) ends for every agent at once, and the finished agents leave ``agents`` after the step that
reports them. PettingZoo's own conversion (``aec_to_parallel``) needs every agent to act once a cycle, which a
card table does not, hence this one.

>>> from mazziere.engine import rl
>>> table = rl.parallel_env("trentuno", seats=3, max_hands=1)
>>> observations, infos = table.reset(seed=1)
>>> while table.agents:
...     legal = observations[table.agent_to_act]["action_mask"].nonzero()[0]
...     actions = {agent: int(legal[0]) for agent in table.agents}
...     observations, rewards, terminations, truncations, infos = table.step(actions)
>>> table.unwrapped.aec.hands
1
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv  # type: ignore[import-untyped]

from mazziere.engine.rl.env import MazziereEnv

Observation = dict[str, np.ndarray]


class MazziereParallelEnv(ParallelEnv):  # type: ignore[misc]
    """The parallel face of ``aec``, a :class:`MazziereEnv` (its settings and seeding are the AEC table's)."""

    def __init__(self, aec: MazziereEnv) -> None:
        self.aec = aec
        self.metadata = {**aec.metadata, "is_parallelizable": True}
        self.possible_agents = aec.possible_agents[:]
        self.agents = aec.possible_agents[:]
        self.render_mode = aec.render_mode

    # -- the spaces: the AEC table's own objects -----------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.aec.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.aec.action_space(agent)

    @property
    def agent_to_act(self) -> str:
        """The agent whose action the next step plays."""
        return str(self.aec.agent_selection)

    # -- a new table and one turn ----------------------------------------------------------------------

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        self.aec.reset(seed=seed, options=options)
        self.agents = self.aec.agents[:]
        observations = {agent: self.aec.observe(agent) for agent in self.agents}
        infos = {agent: dict(self.aec.infos[agent]) for agent in self.agents}
        self._leave()
        return observations, infos

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Observation], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        acting = self.agent_to_act
        if acting not in actions:
            raise ValueError(f"{acting} is to act: its action is missing from {sorted(actions)}")
        live = self.agents[:]
        self.aec.step(actions[acting])
        aec = self.aec
        rewards = {agent: float(aec.rewards.get(agent, 0.0)) for agent in live}
        terminations = {agent: bool(aec.terminations[agent]) for agent in live}
        truncations = {agent: bool(aec.truncations[agent]) for agent in live}
        observations = {agent: aec.observe(agent) for agent in live}
        infos = {agent: dict(aec.infos[agent]) for agent in live}
        self._leave()
        return observations, rewards, terminations, truncations, infos

    def _leave(self) -> None:
        """Finished agents leave: the AEC table's steps for them (``None``), then ``agents`` as it has them."""
        aec = self.aec
        while aec.agents and (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            aec.step(None)
        self.agents = aec.agents[:]

    # -- rendering -------------------------------------------------------------------------------------

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()
