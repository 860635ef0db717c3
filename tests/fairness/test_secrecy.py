"""No seed leaves the engine before its pack is gathered (docs/fairness.md, security.md).

The scramble tests of the conformance harness change hidden cards and the stock; these change the table's
secret, from which every seed not yet revealed is derived. A step that makes no draw and reveals nothing must
then tell every seat and the spectator exactly the same (views, events, legal actions, advice), in a token of
the same length.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from mazziere import engine
from mazziere.engine import wire
from mazziere.engine.bots import advise
from mazziere.engine.visibility import redact
from tests.helpers import random_step

CASES = [(g.id, preset) for g in engine.all_games() for preset in g.presets]


def _told(state: engine.TableState, events: tuple[engine.Event, ...], viewer: int | None) -> object:
    return (
        engine.view(state, viewer),
        redact(events, viewer),
        viewer is not None and engine.legal_actions(state, viewer),
    )


@pytest.mark.parametrize(("game", "preset"), CASES)
def test_the_seeds_not_yet_revealed_change_no_update(game: str, preset: str) -> None:
    rng = random.Random(f"{game}{preset}")
    state = engine.new_table(game, [engine.Seat(f"p{i}", 40) for i in range(4)], seed=b"one", preset=preset).state
    compared = 0
    for _ in range(250):
        if engine.is_over(state):
            break
        other = msgspec.structs.replace(state, seed=b"two")  # the same length: the secret is the server's 32 bytes
        action = random_step(state, rng)
        out, alt = engine.apply(state, action), engine.apply(other, action)
        if not any(e.kind in ("COMMITTED", "SEED") for e in out.events):  # no draw made, nothing revealed
            for viewer in [None, *range(state.seat_count)]:
                assert _told(out.state, out.events, viewer) == _told(alt.state, alt.events, viewer), viewer
            assert len(wire.state_to_bytes(out.state)) == len(wire.state_to_bytes(alt.state))
            compared += 1
        state = out.state
    assert compared > 20


def test_advice_does_not_depend_on_the_secret() -> None:
    state = engine.new_table("sette_e_mezzo", [engine.Seat(n, 50) for n in "abc"], seed=b"one").state
    state = engine.apply(state, engine.Action(state.bank, "DEAL")).state  # type: ignore[attr-defined]
    seat = engine.to_act(state)[0]
    other = msgspec.structs.replace(state, seed=b"two")  # the same length: the secret is the server's 32 bytes
    assert advise(state, seat, samples=50) == advise(other, seat, samples=50)
