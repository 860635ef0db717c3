"""The three games registered with OpenSpiel as Python games, so its algorithms and tools run on them.

Importing this module registers ``python_mazziere_sette_e_mezzo``, ``python_mazziere_saltacavallo`` and
``python_mazziere_trentuno``; load one with ``pyspiel.load_game(name)`` or ``pyspiel.load_game(name, {...})``.
Parameters: ``players`` (seats), ``preset`` ("": the game's first), ``chips`` (each seat's; 0: the game's
default), ``max_hands`` (hands or deals before the game stops; 0: play until the table's game is over) and
``stake_levels`` (Sette e mezzo). Actions, the legal mask and the observation tensor are the PettingZoo
environment's (:mod:`engine.rl.adapter`).

Chance: the engine draws every card from the table's seed, so the game opens with four chance nodes of 256 equally
likely outcomes each, the seed's bytes (2**32 deals); nobody observes them. After that every node is a seat's
decision. The utility is in chips: ``returns()`` is each seat's change of chips over the game, given at the end
(OpenSpiel's terminal reward model, which MCTS needs; ``chips_won()`` gives it at any point).

>>> game = pyspiel.load_game("python_mazziere_trentuno", {"players": 3})
>>> state = game.new_initial_state()
>>> for byte in b"demo":
...     state.apply_action(byte)
>>> state.current_player(), [state.action_to_string(a) for a in state.legal_actions()]
(2, ['DEAL'])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found]

from mazziere import engine
from mazziere.engine.rl.adapter import Adapter, Legal
from mazziere.engine.rl.env import ADAPTERS, make_adapter, table_seats
from mazziere.engine.rl.sette_e_mezzo import HAND_ROOM
from mazziere.engine.table import Seat

SEED_BYTES = 4
"""Chance nodes at the start of a game: one byte of the table's seed each."""
NOMINAL_HANDS = 10_000
"""``max_hands`` 0 plays to the end of the game, whose length has no bound: GameInfo assumes this many hands."""
CHANCE_OUTCOMES = [(byte, 1 / 256) for byte in range(256)]
DEFAULTS: dict[str, Any] = {"players": 4, "preset": "", "chips": 0, "max_hands": 1, "stake_levels": 10}
SEATS = {"sette_e_mezzo": (2, 12), "saltacavallo": (2, 20), "trentuno": (3, 9)}
"""The fewest and most seats of each game (Saltacavallo's 2 needs the option ``min_seats`` 2)."""


def _moves_per_hand(adapter: Adapter) -> int:
    """More moves than one hand (or deal) can take."""
    n = adapter.seats
    if adapter.game_id == "sette_e_mezzo":
        return 1 + n * (2 + 2 * HAND_ROOM)
    if adapter.game_id == "saltacavallo":
        return 3 * n + 8
    return 1 + n * (int(adapter.rules.max_rounds) + 2)


def game_type(game_id: str) -> Any:
    low, high = SEATS[game_id]
    return pyspiel.GameType(
        short_name=f"python_mazziere_{game_id}",
        long_name=f"Mazziere {engine.get_game(game_id).title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=DEFAULTS,
    )


class MazziereGame(pyspiel.Game):  # type: ignore[misc]
    """One of the engine's games as an OpenSpiel game (the subclasses below name which)."""

    game_id = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        settings = {**DEFAULTS, **(params or {})}
        players = int(settings["players"])
        preset = settings["preset"] or None
        adapter = make_adapter(self.game_id, players, preset, None, int(settings["stake_levels"]))
        seats = table_seats(adapter, int(settings["chips"]) or None)
        self.spec = Spec(self.game_id, adapter, seats, preset, int(settings["max_hands"]))
        hands = self.spec.max_hands or NOMINAL_HANDS
        total = sum(seat.chips for seat in seats)
        reach = total + 3 * getattr(adapter.rules, "max_stake", 0) * players * hands  # Sette e mezzo's bank debt
        info = pyspiel.GameInfo(
            num_distinct_actions=len(adapter.names),
            max_chance_outcomes=256,
            num_players=players,
            min_utility=-float(reach),
            max_utility=float(reach),
            utility_sum=None,
            max_game_length=_moves_per_hand(adapter) * hands,
        )
        super().__init__(game_type(self.game_id), info, settings)

    def new_initial_state(self) -> MazziereState:
        return MazziereState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> Observer:
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            raise ValueError("these games give the seat's view now, not a perfect-recall information state")
        return Observer(self.spec.adapter, params)


class Shared:
    """Deep-copied as itself. OpenSpiel clones a Python state by deep-copying each of its attributes; these never
    change once made (the engine's states are immutable), so a clone shares them and costs a few µs."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Shared:
        return self


@dataclass(frozen=True)
class Spec(Shared):
    """What every state of one game shares. Pickled (OpenSpiel's serialization) as the settings that make it."""

    game_id: str
    adapter: Adapter
    seats: list[Seat]
    preset: str | None
    max_hands: int

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        seats = tuple((seat.name, seat.chips) for seat in self.seats)
        return _spec, (self.game_id, seats, self.preset, self.max_hands, self.adapter.stake_levels)


def _spec(game_id: str, seats: tuple[tuple[str, int], ...], preset: str | None, hands: int, levels: int) -> Spec:
    adapter = make_adapter(game_id, len(seats), preset, None, levels)
    return Spec(game_id, adapter, [Seat(name, chips) for name, chips in seats], preset, hands)


@dataclass(frozen=True)
class Now(Shared):
    """A table after the seed: the engine's state, the seat to move and its legal actions, the seats that passed
    (Saltacavallo), hands played, and whether the game has stopped. Pickled as the state's bytes
    (:func:`engine.state_to_bytes`), the passes and the hands: the rest follows from them."""

    spec: Spec
    table: Any
    seat: int
    legal: Legal
    passed: frozenset[int]
    hands: int
    over: bool

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _load, (self.spec, engine.state_to_bytes(self.table), tuple(sorted(self.passed)), self.hands)


def _load(spec: Spec, raw: bytes, passed: tuple[int, ...], hands: int) -> Now:
    return _now(spec, engine.state_from_bytes(raw), frozenset(passed), hands)


def _now(spec: Spec, table: Any, passed: frozenset[int], hands: int) -> Now:
    if engine.is_over(table) or (spec.max_hands and hands >= spec.max_hands):
        return Now(spec, table, -1, {}, passed, hands, True)
    seat = spec.adapter.pick(table, passed)
    return Now(spec, table, seat, spec.adapter.legal(table, seat, passed), passed, hands, False)


class MazziereState(pyspiel.State):  # type: ignore[misc]
    """A table: the seed's chance nodes, then the engine's state (:class:`Now`)."""

    def __init__(self, game: MazziereGame) -> None:
        super().__init__(game)
        self.spec = game.spec
        self.seed = b""
        self.now: Now | None = None

    def current_player(self) -> int:
        now = self.now
        if now is None:
            return int(pyspiel.PlayerId.CHANCE)
        return int(pyspiel.PlayerId.TERMINAL) if now.over else now.seat

    def _legal_actions(self, player: int) -> list[int]:
        now = self.now
        return sorted(now.legal) if now is not None and player == now.seat else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return CHANCE_OUTCOMES

    def _apply_action(self, action: int) -> None:
        spec, now = self.spec, self.now
        if now is None:
            self.seed += bytes((action,))
            if len(self.seed) == SEED_BYTES:
                table = engine.new_table(spec.game_id, spec.seats, seed=self.seed, preset=spec.preset).state
                self.now = _now(spec, table, frozenset(), 0)
            return
        move = now.legal[action]
        table, passed, hands = now.table, now.passed, now.hands
        if move is None:  # the seat lets its optional moves go until the next deal
            passed = passed | {now.seat}
        else:
            out = engine.apply(table, move)
            table = out.state
            if move.kind == "DEAL":
                passed = frozenset()
            hands += sum(1 for event in out.events if event.kind == "HAND_OVER")
        self.now = _now(spec, table, passed, hands)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed byte {action}"
        return self.spec.adapter.names[action]

    def is_terminal(self) -> bool:
        return self.now is not None and self.now.over

    def returns(self) -> list[float]:
        """Each seat's change of chips, once the game has stopped (zeros before: OpenSpiel's terminal rewards)."""
        return self.chips_won() if self.is_terminal() else [0.0] * len(self.spec.seats)

    def chips_won(self) -> list[float]:
        """Each seat's change of chips so far."""
        if self.now is None:
            return [0.0] * len(self.spec.seats)
        return [float(now - seat.chips) for now, seat in zip(self.now.table.chips, self.spec.seats, strict=True)]

    def __str__(self) -> str:
        return f"seed {self.seed.hex()}" if self.now is None else repr(engine.view(self.now.table, None))


class Observer:
    """The observation of a seat: the PettingZoo environment's vector (``tensor``, by segment in ``dict``)."""

    def __init__(self, adapter: Adapter, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self.adapter = adapter
        self.tensor = np.zeros(adapter.layout.size, np.float32)
        self.dict = {s.name: self.tensor[s.start : s.start + s.size] for s in adapter.layout.segments}

    def set_from(self, state: MazziereState, player: int) -> None:
        self.tensor.fill(0.0)
        if state.now is not None:
            self.adapter.write(self.tensor, engine.view(state.now.table, player), player)

    def string_from(self, state: MazziereState, player: int) -> str:
        return str(state) if state.now is None else repr(engine.view(state.now.table, player))


def _game_class(game_id: str) -> type[MazziereGame]:
    return type(f"{''.join(w.title() for w in game_id.split('_'))}Game", (MazziereGame,), {"game_id": game_id})


GAMES = {game_id: _game_class(game_id) for game_id in ADAPTERS}
"""The OpenSpiel game class of each game, by game id."""
for _game_id, _cls in GAMES.items():
    if f"python_mazziere_{_game_id}" not in pyspiel.registered_names():
        pyspiel.register_game(game_type(_game_id), _cls)
