"""A sealed token's length tells nothing hidden: states are padded before sealing (docs/security.md)."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from mazziere import engine
from mazziere.services.table.sealing import PAD_TO, Keyring
from tests.conformance.harness import scramble_hidden
from tests.helpers import replace

KEYS = Keyring.ephemeral()
TABLE = "t_0123456789abcdef01234567"


@pytest.mark.parametrize(
    ("game", "seats"), [("sette_e_mezzo", 2), ("sette_e_mezzo", 5), ("saltacavallo", 4), ("trentuno", 4)]
)
def test_token_length_depends_only_on_public_facts(game: str, seats: int) -> None:
    """200 deals: at every step the token keeps its length when everything hidden changes (the cards nobody may
    see, the stock's order, the table's secret and so every seed and commitment not yet revealed)."""
    rng = random.Random(game)
    for seed in range(200):
        people = [engine.Seat(f"p{i}", 100) for i in range(seats)]
        state = engine.new_table(game, people, seed=seed.to_bytes(4, "big"), table_id=TABLE).state
        for _ in range(30):
            if engine.is_over(state):
                break
            other = replace(scramble_hidden(state, None, rng), seed=rng.randbytes(4), commitment=rng.randbytes(32))
            assert len(sealed(state)) == len(sealed(other)), (seed, state.seq)
            seat = engine.to_act(state)[0]
            state = engine.apply(state, engine.legal_actions(state, seat)[-1].example(seat)).state


def sealed(state: engine.TableState) -> bytes:
    return KEYS.seal(engine.state_to_bytes(state), TABLE, state.seq)


def test_the_bank_hidden_card_cannot_be_read_from_the_token() -> None:
    """Heads-up Sette e mezzo right after the deal: the bank's face-down card never changes the token's length."""
    by_card: dict[str, set[int]] = defaultdict(set)
    for seed in range(300):
        people = [engine.Seat("a", 100), engine.Seat("b", 100)]
        state = engine.new_table("sette_e_mezzo", people, seed=seed.to_bytes(4, "big"), table_id=TABLE).state
        state = engine.apply(state, engine.Action(state.turn, "DEAL")).state
        hidden = state.hands[state.bank].cards[0].card
        by_card[str(hidden)].add(len(KEYS.seal(engine.state_to_bytes(state), TABLE, state.seq)))
    assert len(set.union(*by_card.values())) == 1


def test_padding_round_trips_every_length() -> None:
    for n in range(0, 3 * PAD_TO):
        payload = bytes([n % 251]) * n
        token = KEYS.seal(payload, TABLE, 1)
        assert KEYS.open(token)[1] == payload
        assert (len(token) - len(KEYS.seal(b"", TABLE, 1))) % PAD_TO == 0
