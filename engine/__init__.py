"""Mazziere's rules engine: pure functions over immutable table states.

>>> from mazziere import engine
>>> out = engine.new_table("sette_e_mezzo", [engine.Seat("Ada", 100), engine.Seat("Bruno", 100)], seed=b"demo")
>>> state = out.state
>>> engine.is_over(state)
False

Everything a caller needs is here: :func:`new_table`, :func:`legal_actions`, :func:`to_act`, :func:`apply`,
:func:`view`, :func:`is_over`, and the byte codec :func:`state_to_bytes` / :func:`state_from_bytes`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mazziere.engine import _loader as _loader  # first: the compiled or the pure engine (engine/_loader.py)
from mazziere.engine import dealing, games, registry, wire
from mazziere.engine.cards import Card, parse_cards
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.registry import all_games, get_game
from mazziere.engine.rules import with_options
from mazziere.engine.table import Action, Event, LegalAction, Outcome, Seat, TableState
from mazziere.engine.visibility import Viewer, redact

__all__ = [
    "Action",
    "Card",
    "Event",
    "LegalAction",
    "Outcome",
    "Reason",
    "Rejected",
    "Seat",
    "TableState",
    "all_games",
    "apply",
    "gather",
    "get_game",
    "is_over",
    "legal_actions",
    "new_table",
    "parse_cards",
    "state_from_bytes",
    "state_to_bytes",
    "to_act",
    "view",
]


for _game in games.BUILT_IN:
    registry.register(_game)

_GAMES = registry.GAMES
"""Games by id, read in place by the calls below (:func:`get_game` only names a missing one)."""
_last_legal: tuple[TableState | None, int, tuple[LegalAction, ...]] = (None, -1, ())
"""The last answer of :func:`legal_actions` with its state and seat: :func:`apply` on that very state (states
never change) checks the action against it instead of working the legal actions out again."""

MAX_CHIPS = 10**12
"""The most chips a seat may bring: every later amount (doubles, triples, pots) stays far inside 64 bits."""
MAX_NAME = 100
MAX_SEED = 64
"""The longest seed a table takes, in bytes (the server draws 32)."""


def new_table(
    game_id: str,
    seats: Sequence[Seat],
    *,
    seed: bytes,
    preset: str | None = None,
    options: Mapping[str, Any] | None = None,
    table_id: str = "",
) -> Outcome:
    """A new table of ``game_id`` under a preset (default: the game's first) with option overrides.

    >>> out = new_table("trentuno", [Seat("Ada", 50), Seat("Bruno", 50), Seat("Carla", 50)], seed=b"demo")
    >>> [str(event.kind) for event in out.events], to_act(out.state)
    (['COMMITTED', 'COMMITTED', 'SEED', 'DEALER'], (2,))
    """
    game = get_game(game_id)
    name = preset or game.default_preset
    if name not in game.presets:
        raise Rejected(
            Reason.UNKNOWN_PRESET, f"{game_id} has no preset {name!r}; presets are: {', '.join(game.presets)}"
        )
    rules = with_options(game.presets[name], options or {})
    if not seed or len(seed) > MAX_SEED:
        raise Rejected(Reason.INVALID_SEED, f"a table needs a seed of 1 to {MAX_SEED} bytes, not {len(seed)}")
    for i, seat in enumerate(seats):
        if not isinstance(seat.name, str) or len(seat.name) > MAX_NAME:
            raise Rejected(Reason.INVALID_SEATS, f"seat {i}'s name must be text of at most {MAX_NAME} characters")
        if not isinstance(seat.chips, int) or not 0 <= seat.chips <= MAX_CHIPS:
            raise Rejected(
                Reason.INVALID_SEATS, f"seat {i} ({seat.name!r}) has {seat.chips} chips; need 0 to {MAX_CHIPS}"
            )
    return game.start(rules, tuple(seats), seed, table_id)


def legal_actions(state: TableState, seat: int) -> tuple[LegalAction, ...]:
    """What ``seat`` may do now (empty when it is not its turn).

    >>> state = new_table("sette_e_mezzo", [Seat("Ada", 100), Seat("Bruno", 100)], seed=b"demo").state
    >>> [entry.kind for entry in legal_actions(state, 0)], legal_actions(state, 1)
    (['DEAL'], ())
    """
    global _last_legal
    legal = (_GAMES.get(state.game) or get_game(state.game)).legal_actions(state, seat)
    _last_legal = (state, seat, legal)
    return legal


def to_act(state: TableState) -> tuple[int, ...]:
    """The seats that may act now.

    >>> to_act(new_table("saltacavallo", [Seat(n, 100) for n in "abc"], seed=b"demo").state)
    (0,)
    """
    return (_GAMES.get(state.game) or get_game(state.game)).to_act(state)


def apply(state: TableState, action: Action) -> Outcome:
    """Check and play one action. Raises :class:`Rejected` and leaves ``state`` as it was.

    >>> state = new_table("sette_e_mezzo", [Seat("Ada", 100), Seat("Bruno", 100)], seed=b"demo").state
    >>> out = apply(state, Action(0, "DEAL"))
    >>> [str(event.kind) for event in out.events], out.state.seq, to_act(out.state)
    (['COMMITTED', 'SHUFFLED', 'DEALT', 'DEALT'], 1, (1,))
    >>> apply(out.state, Action(1, "STAKE", 999))
    Traceback (most recent call last):
    ...
    mazziere.engine.errors.Rejected: STAKE_OUT_OF_RANGE: STAKE amount 999 is outside [1, 10]
    """
    asked, seat, legal = _last_legal
    game = _GAMES.get(state.game) or get_game(state.game)
    return game.apply(state, action, legal if asked is state and seat == action.seat else None)


def view(state: TableState, viewer: Viewer) -> Any:
    """The table as ``viewer`` (a seat, or ``None`` for a spectator) may see it.

    >>> state = new_table("sette_e_mezzo", [Seat("Ada", 100), Seat("Bruno", 100)], seed=b"demo").state
    >>> state = apply(state, Action(0, "DEAL")).state
    >>> view(state, 1).seats[1].cards, view(state, 1).seats[0].cards
    ((TableCard(Card.parse('Rb'), Audience(seats={1})),), (TableCard(None, Audience(seats={0})),))
    """
    return redact((_GAMES.get(state.game) or get_game(state.game)).view(state, viewer), viewer)


def gather(state: TableState) -> Outcome:
    """The table closed for good: every pack kept is gathered and its seed revealed (``SEED`` events,
    docs/fairness.md). Play must not go on from the state it returns: the stock is no longer secret.

    >>> state = new_table("trentuno", [Seat(n, 10) for n in "abc"], seed=b"demo").state
    >>> state = apply(state, Action(state.dealer, "DEAL")).state
    >>> [str(e.kind) for e in gather(state).events]
    ['SEED']
    """
    events: list[Event] = []
    return Outcome(dealing.gather(state, events), tuple(events))


def is_over(state: TableState) -> bool:
    """True once the game has ended and no action is possible.

    >>> is_over(new_table("trentuno", [Seat(n, 10) for n in "abc"], seed=b"demo").state)
    False
    """
    return (_GAMES.get(state.game) or get_game(state.game)).is_over(state)


def state_to_bytes(state: TableState) -> bytes:
    """The canonical bytes of a state (the same game always gives the same bytes): see :mod:`engine.wire`.

    >>> state = new_table("trentuno", [Seat(n, 10) for n in "abc"], seed=b"demo").state
    >>> state_from_bytes(state_to_bytes(state)) == state
    True
    """
    return wire.state_to_bytes(state)


def state_from_bytes(raw: bytes) -> TableState:
    """Read a state written by :func:`state_to_bytes`; raise :class:`Rejected` (INVALID_STATE) if it is not one,
    or if its values do not fit together (:func:`engine.registry.check_state`).

    >>> state_from_bytes(b"not a state")
    Traceback (most recent call last):
    ...
    mazziere.engine.errors.Rejected: INVALID_STATE: ...
    """
    state = wire.state_from_bytes(raw)
    registry.check_state(state)
    return state
