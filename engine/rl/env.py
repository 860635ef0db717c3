"""A PettingZoo AEC environment over any of the engine's games: one agent per seat, one seat moving at a time.

* **Agents** ``player_0 .. player_{N-1}``, seat by seat; ``agent_selection`` is the seat :func:`engine.to_act`
  names (:meth:`Adapter.pick` when it names several).
* **Observations** ``{"observation": float32 vector of the seat's view, "action_mask": int8 mask}``; the mask is
  all zeros for a seat that may not act now.
* **Actions** a fixed ``Discrete`` space per game (:mod:`engine.rl.sette_e_mezzo`, :mod:`engine.rl.saltacavallo`,
  :mod:`engine.rl.trentuno`); an action outside the mask raises ``ValueError``.
* **Rewards** in chips: after every move each seat is rewarded with its change of chips, so what ``last()`` gives a
  seat is its change since its own last move (and, once the game ends, since then).
* **Episodes** end when the game is over (every agent terminated) or, with ``max_hands``, after that many hands or
  deals (every agent truncated). ``reset(seed=...)`` seeds the tables: the same seed plays the same games.

>>> env = MazziereEnv("trentuno", seats=3)
>>> env.reset(seed=7)
>>> env.agent_selection, int(env.action_space(env.agent_selection).n)
('player_1', 13)
>>> observation, reward, terminated, truncated, info = env.last()
>>> observation["observation"].shape, int(observation["action_mask"].sum())
((205,), 1)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from mazziere import engine
from mazziere.engine.rl.adapter import Adapter, Legal
from mazziere.engine.rl.saltacavallo import SaltacavalloAdapter
from mazziere.engine.rl.sette_e_mezzo import SetteEMezzoAdapter
from mazziere.engine.rl.trentuno import TrentunoAdapter
from mazziere.engine.rules import with_options
from mazziere.engine.table import Seat

ADAPTERS: dict[str, type[Adapter]] = {a.game_id: a for a in (SetteEMezzoAdapter, SaltacavalloAdapter, TrentunoAdapter)}
"""The adapter of each game, by game id."""
MAX_TOTAL_CHIPS = 2**24
"""The most chips a table may hold in all: every number of an observation stays exact in float32."""


def make_adapter(game_id: str, seats: int, preset: str | None, options: dict[str, Any] | None, levels: int) -> Adapter:
    """The adapter of ``game_id`` for a table of ``seats`` under ``preset`` with ``options``."""
    if game_id not in ADAPTERS:
        raise ValueError(f"no environment for {game_id!r}; games: {', '.join(ADAPTERS)}")
    game = engine.get_game(game_id)
    rules = with_options(game.presets[preset or game.default_preset], options or {})
    return ADAPTERS[game_id](seats, rules, levels)


def table_seats(adapter: Adapter, chips: int | None) -> list[Seat]:
    """The seats of a new table: ``player_i`` with ``chips`` each (the game's default: :attr:`Adapter.default_chips`,
    or all a Saltacavallo seat's lives need)."""
    need = getattr(adapter.rules, "lives", 0) * getattr(adapter.rules, "coin", 0)
    each = max(adapter.default_chips, need) if chips is None else chips
    if each * adapter.seats > MAX_TOTAL_CHIPS:
        raise ValueError(f"{adapter.seats} seats of {each} chips exceed {MAX_TOTAL_CHIPS:,} chips in all")
    return [Seat(f"player_{s}", each) for s in range(adapter.seats)]


class MazziereEnv(AECEnv):  # type: ignore[misc]
    """One table of ``game_id`` with ``seats`` seats, played to the end (or for ``max_hands`` hands).

    ``preset`` and ``options`` pick the rules as :func:`engine.new_table` does; ``chips`` is what each seat brings;
    ``stake_levels`` cuts Sette e mezzo's stake and raise ranges into that many levels.
    """

    render_modes: ClassVar[tuple[str, ...]] = ("ansi", "human")

    def __init__(
        self,
        game_id: str,
        seats: int = 4,
        *,
        preset: str | None = None,
        options: dict[str, Any] | None = None,
        chips: int | None = None,
        max_hands: int | None = None,
        stake_levels: int = 10,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.render_modes:
            raise ValueError(f"render_mode must be one of {self.render_modes}, not {render_mode!r}")
        self.game_id = game_id
        self.preset = preset
        self.options = dict(options or {})
        self.adapter = make_adapter(game_id, seats, preset, options, stake_levels)
        self.seats = table_seats(self.adapter, chips)
        self.max_hands = max_hands
        self.render_mode = render_mode
        self.metadata: dict[str, Any] = {
            "render_modes": list(self.render_modes),
            "name": f"mazziere_{game_id}_v0",
            "is_parallelizable": False,
        }
        self.possible_agents = [f"player_{s}" for s in range(seats)]
        self.agents = self.possible_agents[:]
        low, high = self.adapter.layout.bounds()
        count = len(self.adapter.names)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (count,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(count) for agent in self.possible_agents}
        self._rng, _ = seeding.np_random(None)
        self._seated = False

    # -- the spaces ---------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- a new table --------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or not self._seated:
            self._rng, _ = seeding.np_random(seed)
            self._seated = True
        table_seed = self._rng.bytes(16)
        self.table = engine.new_table(
            self.game_id, self.seats, seed=table_seed, preset=self.preset, options=self.options
        ).state
        self.hands = 0
        self.passed: frozenset[int] = frozenset()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        if engine.is_over(self.table):  # nobody can play (a table of seats without enough chips)
            self.terminations = dict.fromkeys(self.agents, True)
            self.legal: Legal = {}
            self.agent_selection = self.agents[0]
        else:
            self._select()

    def _select(self) -> None:
        seat = self.adapter.pick(self.table, self.passed)
        self.agent_selection = self.possible_agents[seat]
        self.legal = self.adapter.legal(self.table, seat, self.passed)

    # -- what a seat sees ---------------------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        selected = agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent])
        mask = self.adapter.mask(self.legal) if selected else np.zeros(len(self.adapter.names), np.int8)
        return {"observation": self.adapter.observe(self.table, seat), "action_mask": mask}

    # -- one move -----------------------------------------------------------------------------------

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        number = int(action)
        if number not in self.legal:
            names = [self.adapter.names[i] for i in sorted(self.legal)]
            raise ValueError(f"{agent} may not play action {number} now; legal: {sorted(self.legal)} ({names})")
        move = self.legal[number]
        seat = self.possible_agents.index(agent)
        before = self.table.chips
        if move is None:  # the environment's PASS: the seat lets its optional moves go until the next deal
            self.passed = self.passed | {seat}
        else:
            out = engine.apply(self.table, move)
            self.table = out.state
            if move.kind == "DEAL":
                self.passed = frozenset()
            self.hands += sum(1 for event in out.events if event.kind == "HAND_OVER")
        after = self.table.chips
        self.rewards = {a: float(after[s] - before[s]) for s, a in enumerate(self.possible_agents)}
        self._cumulative_rewards[agent] = 0.0
        if engine.is_over(self.table):
            self.terminations = dict.fromkeys(self.agents, True)
            self.legal = {}
        elif self.max_hands is not None and self.hands >= self.max_hands:
            self.truncations = dict.fromkeys(self.agents, True)
            self.legal = {}
        else:
            self._select()
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    # -- rendering ----------------------------------------------------------------------------------

    def render(self) -> str | None:
        """``ansi``: the spectator's view of the table as text (``human`` prints it)."""
        if self.render_mode is None:
            return None
        text = f"{self.game_id} seq {self.table.seq}: {engine.view(self.table, None)!r}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""
