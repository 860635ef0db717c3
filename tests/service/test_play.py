"""Whole hands through the API, and a scan of everything sent to each seat for cards it must not know."""

from __future__ import annotations

import base64
import dataclasses
import random
from typing import Any

import pytest

from mazziere import engine
from mazziere.engine.cards import Card
from mazziere.engine.codec import is_record, record_fields
from mazziere.engine.table import TableState
from mazziere.engine.visibility import TableCard, Viewer, redact
from mazziere.services.core.call import Call
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.table.games import served_games
from mazziere.services.table.sealing import Keyring
from mazziere.services.table.service import TableService
from tests.service.conftest import KEYS, Running
from tests.service.helpers import CHIPS, Client, visible_cards

GAMES = sorted(served_games())


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_hand_through_the_api(client: Client, game: str) -> None:
    table = client.create(game, seed=b"hand-" + game.encode())
    rng = random.Random(7)
    kinds = []
    for _action, resp in client.steps(table, rng):
        spectator = resp.updates[1]
        assert not spectator.HasField("seat") and not spectator.legal_actions
        kinds += [e.kind for e in spectator.events]
        if "HAND_OVER" in kinds:
            break
    assert "HAND_OVER" in kinds
    # Chips are conserved across the hand, as the spectator sees them.
    state = client.unseal(table.state)
    assert sum(state.chips) + state.pot == table.seats * CHIPS


def _admitted(value: Any, viewer: Viewer, out: set[str]) -> None:
    """Cards in ``value`` (a state or events) whose audience admits ``viewer``."""
    if isinstance(value, TableCard):
        if value.card is not None and value.seen_by.admits(viewer):
            out.add(str(value.card))
    elif isinstance(value, tuple | list):
        for v in value:
            _admitted(v, viewer, out)
    elif is_record(type(value)):
        for name in record_fields(type(value)):
            _admitted(getattr(value, name), viewer, out)


def _stock(state: TableState) -> set[str]:
    stock = getattr(state, "stock", ())
    return {str(c) for c in stock if isinstance(c, Card)}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_no_seat_ever_receives_a_card_it_must_not_know(client: Client, game: str, seed: int) -> None:
    table = client.create(game, seed=f"leak-{game}-{seed}".encode())
    rng = random.Random(seed)
    before = client.unseal(table.state)
    checked = 0
    for action, resp in client.steps(table, rng, limit=120):
        after = client.unseal(resp.state)
        # The truth, test side: replay the action on the unsealed state.
        truth = engine.apply(before, engine.codec.from_data(engine.Action, _plain(action)))
        assert engine.state_to_bytes(truth.state) == engine.state_to_bytes(after)
        stock = _stock(after)
        for update in resp.updates:
            viewer: Viewer = update.seat if update.HasField("seat") else None
            known: set[str] = set()
            _admitted(after, viewer, known)
            shown = set(visible_cards(update.view))
            assert shown <= known, f"{game} seat {viewer} sees {shown - known}"
            assert not shown & stock, f"{game} seat {viewer} sees stock cards {shown & stock}"
            event_known: set[str] = set()
            _admitted([e for e in truth.events if e.seen_by.admits(viewer)], viewer, event_known)
            event_shown: set[str] = set()
            for event in update.events:
                event_shown.update(visible_cards(event))
            assert event_shown <= event_known, f"{game} seat {viewer} is told {event_shown - event_known}"
            # The service's redaction is the engine's: the same events in the same order.
            expected = redact(truth.events, viewer)
            assert [e.kind for e in update.events] == [e.kind for e in expected]
            checked += 1
        before = after
    assert checked > 20


def _plain(action: Any) -> dict[str, Any]:
    data = {"seat": action.seat, "kind": action.kind, "amount": action.amount, "cards": list(action.cards)}
    if action.HasField("target"):
        data["target"] = action.target
    return data


@pytest.mark.parametrize("game", GAMES)
def test_replay_gives_every_intermediate_outcome(client: Client, game: str) -> None:
    table = client.create(game, seed=b"replay")
    rng = random.Random(3)
    actions, seqs = [], []
    for action, resp in client.steps(table, rng, limit=40):
        actions.append(action)
        seqs.append(resp.seq)
    request = svc.CreateTableRequest(game=game, seed=b"replay")
    request.seats.extend(pb.Seat(name=f"p{i}", chips=CHIPS) for i in range(table.seats))
    replay = client.stub.Replay(svc.ReplayRequest(create=request, table_id=table.table_id, actions=actions))
    assert [s.seq for s in replay.steps] == [0, *seqs]
    assert len(replay.steps[-1].updates) == table.seats + 1
    # Same seed, same actions, same table id: the same state.
    final = client.unseal(table.state)
    assert replay.steps[-1].is_over == engine.is_over(final)
    assert replay.steps[-1].to_act == list(engine.to_act(final))


def test_trusted_mode_takes_plain_states_and_needs_no_keys(trusted: Running) -> None:
    stub = trusted.stub
    created = stub.CreateTable(
        svc.CreateTableRequest(game="trentuno", seats=[pb.Seat(name=f"p{i}", chips=20) for i in range(3)])
    )
    assert not created.seat_keys
    state = engine.state_from_bytes(created.state)  # plain engine bytes
    seat = engine.to_act(state)[0]
    entry = engine.legal_actions(state, seat)[0]
    resp = stub.Act(
        svc.ActRequest(
            table_id=created.table_id,
            state=created.state,
            expected_seq=0,
            action=pb.Action(seat=seat, kind=entry.kind, amount=entry.min_amount),
        )
    )
    assert engine.state_from_bytes(resp.state).seq == 1
    view = stub.GetView(svc.GetViewRequest(table_id=created.table_id, state=resp.state, seat=1))
    assert view.seq == 1


def test_a_rotated_key_still_opens_old_tokens(running: Running) -> None:
    old = running.client.create("trentuno")
    # A new server whose first key is new and whose others are the running server's.
    rotated = Keyring.parse(f"k3:{base64.b64encode(bytes(range(32))).decode()},{KEYS}")
    core = TableService(rotated)

    resp = core.get_view(
        svc.GetViewRequest(table_id=old.table_id, state=old.state, seat=0, seat_key=old.keys[0]), Call()
    )
    assert resp.seq == 0
    assert rotated.seal(b"x", "t", 0)[2:4] == b"k3"


def test_a_caller_holding_tokens_can_peek_at_the_stock(client: Client) -> None:
    """The documented limit of a stateless engine (docs/security.md, the security model): an older token still
    plays, so a caller who holds tokens can HIT, see the card, and act otherwise on the same token. Only a host
    that keeps the tokens itself, with a compare-and-set on seq, prevents it."""
    table = client.create("sette_e_mezzo", 2, seed=b"peek")
    client.act(table, pb.Action(seat=table.to_act[0], kind="DEAL"))
    seat = table.to_act[0]
    before = dataclasses.replace(table)
    client.act(table, pb.Action(seat=seat, kind="STAKE", amount=1))
    assert table.to_act == [seat]
    saved = dataclasses.replace(table)
    hit = client.act(table, pb.Action(seat=seat, kind="HIT"))
    drawn = [e for e in hit.updates[0].events if e.kind == "HIT"]
    assert drawn and drawn[0].cards[0].card  # the caller now knows the next card of the stock
    rolled_back = dataclasses.replace(saved)
    stood = client.act(rolled_back, pb.Action(seat=seat, kind="STAND"))  # and plays on as if it had not drawn it
    assert stood.seq == hit.seq == saved.seq + 1
    assert before.seq + 2 == stood.seq
