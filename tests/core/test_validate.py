"""engine.registry.check_state: the shared header checks, on the toy game and across games."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mazziere import engine
from mazziere.engine import registry
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.registry import check_state
from mazziere.engine.table import Seat
from tests.core.toy import Toy
from tests.helpers import replace


@pytest.fixture(autouse=True)
def toy_registered() -> Iterator[None]:
    registry.register(Toy())
    yield
    registry.GAMES.pop("toy")


def toy() -> Any:
    return engine.new_table("toy", [Seat("a", 10), Seat("b", 10)], seed=b"toy").state


def refused(state: Any) -> str:
    with pytest.raises(Rejected) as caught:
        check_state(state)
    assert caught.value.reason is Reason.INVALID_STATE
    return caught.value.message


def test_a_game_without_its_own_check_gets_the_header_checks() -> None:
    check_state(toy())
    assert refused(replace(toy(), names=())).startswith("state.names")
    assert refused(replace(toy(), chips=(1,))).startswith("state.chips")
    assert refused(replace(toy(), seq=-1)).startswith("state.seq")
    assert refused(replace(toy(), draws=-1)).startswith("state.draws")
    assert refused(replace(toy(), pot=-1)).startswith("state.pot")
    assert refused(replace(toy(), rules=replace(toy().rules, max_bet=0))).startswith("state.rules: max_bet")


def test_the_dealing_fields_must_be_ones_play_could_make() -> None:
    """docs/fairness.md: the seats' entropy for the next draw, the packs kept, and a stock left of the last pack."""
    state = toy()
    assert refused(replace(state, entropy=b"\x00\x05ab")).startswith("state.entropy: not a run")
    assert refused(replace(state, entropy=b"\x07\x01a")).startswith("state.entropy: contributions from seats [7]")
    assert refused(replace(state, entropy=b"\x00\x01a\x00\x01b")).startswith("state.entropy: contributions")
    assert refused(replace(state, packs=(*state.packs, state.packs[-1]))).startswith("state.packs[1].draw")
    assert refused(replace(state, packs=())).startswith(f"state.stock: {len(state.stock)} cards, but no pack is kept")
    assert refused(replace(state, stock=(*state.stock, *state.stock[:1]))).startswith("state.stock: not what is left")


def test_a_state_of_no_game_or_of_another_game_is_refused() -> None:
    assert refused(replace(toy(), game="nope")).startswith("state.game")
    assert refused(replace(toy(), game="trentuno")).startswith("state: a ToyState is not a trentuno state")


@pytest.mark.parametrize("game_id", ["sette_e_mezzo", "saltacavallo", "trentuno"])
def test_a_profile_of_another_game_is_refused(game_id: str) -> None:
    seats = [Seat(f"p{i}", 50) for i in range(4)]
    state = engine.new_table(game_id, seats, seed=b"v").state
    check_state(toy())  # its profile now known valid (for the toy game)
    assert refused(replace(state, rules=toy().rules)).startswith("state.rules: a ToyRules is not a")
