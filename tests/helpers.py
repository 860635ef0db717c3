"""Test-only helpers: stacked decks, random play, crafted states and time limits."""

from __future__ import annotations

import dataclasses
import random
import signal
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import msgspec
import pytest

from mazziere import engine
from mazziere.engine import chance, values
from mazziere.engine.cards import Card, parse_cards
from mazziere.engine.registry import check_state
from mazziere.engine.table import Action, LegalAction
from mazziere.engine.values import field_names, is_value


def with_rules_version(raw: bytes, version: int) -> bytes:
    """State bytes whose rule profile claims another rules version (an older engine's table)."""
    fmt, game, rules, body = msgspec.msgpack.decode(raw, type=tuple[int, str, msgspec.Raw, msgspec.Raw])
    _, preset, overrides = msgspec.msgpack.decode(rules)
    old = msgspec.msgpack.encode((version, preset, overrides))
    return msgspec.msgpack.encode((fmt, game, msgspec.Raw(old), body))


def edit_state_bytes(raw: bytes, **changes: Any) -> bytes:
    """State bytes with some fields of the body replaced by raw MessagePack data (for crafting bad states)."""
    fmt, game, rules, body = msgspec.msgpack.decode(raw)
    names = [n for n in field_names(engine.get_game(game).state_type) if n not in ("game", "rules")]
    for name, value in changes.items():
        if name == "rules":
            rules = value
        else:
            body[names.index(name)] = value
    return msgspec.msgpack.encode([fmt, game, rules, body])


def state_field(raw: bytes, name: str) -> Any:
    """One field of the body of state bytes, as raw MessagePack data."""
    _, game, _, body = msgspec.msgpack.decode(raw)
    names = [n for n in field_names(engine.get_game(game).state_type) if n not in ("game", "rules")]
    return body[names.index(name)]


T = TypeVar("T")


def replace(value: T, **changes: Any) -> T:
    """``value`` (a state, a profile, any engine value) with ``changes``: the one way tests craft values, so
    the engine's value classes can change representation in one place."""
    if is_value(type(value)):
        return values.replace(value, **changes)  # type: ignore[type-var]
    return dataclasses.replace(value, **changes)  # type: ignore[type-var]


def refused_at(state: Any, path: str) -> None:
    """``engine.registry.check_state`` refuses ``state`` as INVALID_STATE, naming ``path`` first."""
    with pytest.raises(engine.Rejected) as caught:
        check_state(state)
    assert caught.value.reason is engine.Reason.INVALID_STATE
    assert caught.value.message.startswith(path), caught.value.message


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Fail with TimeoutError if the block runs longer than ``seconds`` (SIGALRM: main thread, Unix only).

    The signal interrupts even a pure-Python loop that never returns, so a test of a bounded loop fails
    instead of hanging the suite."""

    def expire(_signum: int, _frame: Any) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


T = TypeVar("T")


@contextmanager
def stacked(*decks: str) -> Iterator[None]:
    """Make the next shuffles put these cards on top, in order (index 0 is dealt first).

    Each argument stacks one shuffle (``stacked("7d Rb 3c")``); the rest of the pack follows in its
    usual order. Later shuffles are real. Only for tests: the engine has no such door.
    """
    pending = [parse_cards(d) for d in decks]
    real = chance.shuffled
    mp = pytest.MonkeyPatch()

    def fake(items: Sequence[Any], secret: bytes, draw: int, entropy: bytes = b"") -> tuple[Any, ...]:
        if not pending:
            return real(items, secret, draw, entropy)
        top = pending.pop(0)
        missing = [c for c in top if c not in items]
        assert not missing, f"stacked cards {missing} are not in this pack"
        return (*top, *(c for c in items if c not in top))

    mp.setattr(chance, "shuffled", fake)
    try:
        yield
    finally:
        mp.undo()


FAIRNESS = frozenset({"COMMITTED", "ENTROPY", "SEED"})
"""The event kinds of the fairness record (docs/fairness.md): told beside play, never a rule's own event."""


def play_kinds(events: Sequence[Any]) -> list[str]:
    """The kinds of ``events`` in order, without the fairness record (tests/fairness checks that part)."""
    return [e.kind for e in events if e.kind not in FAIRNESS]


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def random_action(entry: LegalAction, seat: int, rng: random.Random) -> Action:
    """A concrete action for a legal entry, with a random amount in its range."""
    return Action(seat, entry.kind, rng.randint(entry.min_amount, entry.max_amount), entry.target, entry.cards)


def random_step(state: engine.TableState, rng: random.Random) -> Action:
    """Pick a random legal action of a random seat that may act."""
    seat = rng.choice(engine.to_act(state))
    return random_action(rng.choice(engine.legal_actions(state, seat)), seat, rng)
