"""Every refusal: the right status code, the right ErrorInfo reason, and nothing changed."""

from __future__ import annotations

import random
from dataclasses import replace

import grpc
import pytest

from mazziere.services.errors import DOMAIN
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from tests.service.conftest import Running
from tests.service.helpers import Client, Table, error_info

Code = grpc.StatusCode


def refused(call: object, code: grpc.StatusCode, reason: str | None) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()  # type: ignore[operator]
    exc = caught.value
    assert exc.code() == code, exc.details()  # type: ignore[attr-defined]
    if reason is not None:
        info = error_info(exc)
        assert info is not None and info.reason == reason and info.domain == DOMAIN
    return exc


def act_request(table: Table, action: pb.Action, **changes: object) -> svc.ActRequest:
    request = svc.ActRequest(
        table_id=table.table_id,
        state=table.state,
        expected_seq=table.seq,
        action=action,
        seat_key=table.keys[action.seat],
    )
    for name, value in changes.items():
        if name == "viewers":
            request.viewers.extend(value)  # type: ignore[attr-defined]
        else:
            setattr(request, name, value)
    return request


@pytest.fixture
def table(client: Client) -> Table:
    return client.create("sette_e_mezzo", seed=b"errors")


def first_move(client: Client, table: Table) -> pb.Action:
    seat = table.to_act[0]
    entry = client.legal(table, seat)[0]
    return pb.Action(seat=seat, kind=entry.kind, amount=entry.min_amount)


def still_playable(client: Client, table: Table) -> None:
    """Nothing changed: the caller's token still plays the move it could play before."""
    before = Table(**vars(table))
    resp = client.act(table, first_move(client, before))
    assert resp.seq == before.seq + 1


def test_a_token_of_the_first_format_is_refused_as_an_old_version(client: Client, table: Table) -> None:
    """Tokens of the first format (version byte 1: JSON states, unpadded) name the reason, never crash."""
    move = first_move(client, table)
    old = b"\x01" + table.state[1:]
    exc = refused(
        lambda: client.stub.Act(act_request(table, move, state=old)), Code.INVALID_ARGUMENT, "RULES_VERSION_UNSUPPORTED"
    )
    assert "earlier version" in exc.details()  # type: ignore[attr-defined]
    still_playable(client, table)


def test_forged_and_garbage_tokens(client: Client, table: Table) -> None:
    stub, move = client.stub, first_move(client, table)
    forged = bytearray(table.state)
    forged[-5] ^= 1
    refused(lambda: stub.Act(act_request(table, move, state=bytes(forged))), Code.INVALID_ARGUMENT, "INVALID_TOKEN")
    head = bytearray(table.state)
    head[-40] ^= 1  # inside the ciphertext
    refused(lambda: stub.Act(act_request(table, move, state=bytes(head))), Code.INVALID_ARGUMENT, "INVALID_TOKEN")
    for garbage in (b"\x00garbage", b"\x01", bytes(200), b"\x01\x05abc"):
        refused(lambda g=garbage: stub.Act(act_request(table, move, state=g)), Code.INVALID_ARGUMENT, "INVALID_TOKEN")
    refused(lambda: stub.Act(act_request(table, move, state=b"")), Code.INVALID_ARGUMENT, "INVALID_REQUEST")
    refused(
        lambda: stub.Act(act_request(table, move, state=b'{"game":"trentuno"}')),
        Code.INVALID_ARGUMENT,
        "PLAIN_STATE_REFUSED",
    )
    # A header rewritten to another sequence number breaks the tag.
    bumped = bytearray(table.state)
    seq_at = 2 + bumped[1] + 1 + bumped[2 + bumped[1]]
    bumped[seq_at + 7] ^= 1
    refused(lambda: stub.Act(act_request(table, move, state=bytes(bumped))), Code.INVALID_ARGUMENT, "INVALID_TOKEN")
    refused(
        lambda: stub.GetView(svc.GetViewRequest(table_id=table.table_id, state=bytes(forged))),
        Code.INVALID_ARGUMENT,
        "INVALID_TOKEN",
    )
    still_playable(client, table)


def test_a_token_of_another_table(client: Client, table: Table) -> None:
    other = client.create("sette_e_mezzo", seed=b"errors")
    move = first_move(client, table)
    refused(lambda: client.stub.Act(act_request(table, move, state=other.state)), Code.INVALID_ARGUMENT, "WRONG_TABLE")
    refused(
        lambda: client.stub.GetView(svc.GetViewRequest(table_id=table.table_id, state=other.state)),
        Code.INVALID_ARGUMENT,
        "WRONG_TABLE",
    )
    still_playable(client, table)


def test_seat_keys(client: Client, table: Table) -> None:
    stub, move = client.stub, first_move(client, table)
    other = client.create("sette_e_mezzo", seed=b"errors")
    wrong_seat = table.keys[(move.seat + 1) % table.seats]
    for key in (wrong_seat, other.keys[move.seat], table.keys[move.seat][:-2] + "AA", "k9.xyz", "nonsense"):
        refused(
            lambda k=key: stub.Act(act_request(table, move, seat_key=k)), Code.PERMISSION_DENIED, "SEAT_KEY_INVALID"
        )
        refused(
            lambda k=key: stub.GetView(
                svc.GetViewRequest(table_id=table.table_id, state=table.state, seat=move.seat, seat_key=k)
            ),
            Code.PERMISSION_DENIED,
            "SEAT_KEY_INVALID",
        )
    refused(lambda: stub.Act(act_request(table, move, seat_key="")), Code.PERMISSION_DENIED, "SEAT_KEY_MISSING")
    refused(
        lambda: stub.GetView(svc.GetViewRequest(table_id=table.table_id, state=table.state, seat=move.seat)),
        Code.PERMISSION_DENIED,
        "SEAT_KEY_MISSING",
    )
    # Asking for another seat's update needs that seat's key too.
    viewers = [pb.SeatKey(seat=(move.seat + 1) % table.seats, key=table.keys[move.seat])]
    refused(lambda: stub.Act(act_request(table, move, viewers=viewers)), Code.PERMISSION_DENIED, "SEAT_KEY_INVALID")
    # The spectator needs no key.
    spectator = stub.GetView(svc.GetViewRequest(table_id=table.table_id, state=table.state))
    assert not spectator.update.HasField("seat") and not spectator.update.legal_actions
    still_playable(client, table)


def test_stale_and_replayed_sequence_numbers(client: Client, table: Table) -> None:
    stub = client.stub
    old = Table(**vars(table))
    move = first_move(client, table)
    refused(lambda: stub.Act(act_request(table, move, expected_seq=table.seq + 1)), Code.ABORTED, "STALE_SEQUENCE")
    client.act(table, move)
    # The old token, sent by a caller who knows the table has moved on, is refused.
    refused(lambda: stub.Act(act_request(old, move, expected_seq=table.seq)), Code.ABORTED, "STALE_SEQUENCE")
    # So is a move made on the old view against the new token.
    nxt = first_move(client, table)
    refused(lambda: stub.Act(act_request(table, nxt, expected_seq=old.seq)), Code.ABORTED, "STALE_SEQUENCE")
    still_playable(client, table)


def test_moves_the_rules_forbid(client: Client, table: Table) -> None:
    stub, move = client.stub, first_move(client, table)
    bogus = pb.Action(seat=move.seat, kind="FLY_TO_THE_MOON")
    refused(lambda: stub.Act(act_request(table, bogus)), Code.FAILED_PRECONDITION, "ILLEGAL_ACTION")
    idle = next(s for s in range(table.seats) if s not in table.to_act)
    refused(
        lambda: stub.Act(act_request(table, pb.Action(seat=idle, kind=move.kind))),
        Code.FAILED_PRECONDITION,
        "NOT_YOUR_TURN",
    )
    bad_card = pb.Action(seat=move.seat, kind=move.kind, cards=["ZZ"])
    refused(lambda: stub.Act(act_request(table, bad_card)), Code.INVALID_ARGUMENT, "INVALID_CARD")
    refused(
        lambda: stub.Act(
            svc.ActRequest(
                table_id=table.table_id, state=table.state, expected_seq=table.seq, action=pb.Action(seat=99, kind="X")
            )
        ),
        Code.INVALID_ARGUMENT,
        "INVALID_SEAT",
    )
    refused(lambda: stub.Act(svc.ActRequest(table_id=table.table_id, state=table.state)), Code.INVALID_ARGUMENT, None)
    still_playable(client, table)


def test_stake_out_of_range(client: Client) -> None:
    table = client.create("sette_e_mezzo", seed=b"stakes")
    rng = random.Random(1)
    for _ in range(30):
        seat = table.to_act[0]
        staking = [e for e in client.legal(table, seat) if e.max_amount > 0]
        if staking:
            entry = staking[0]
            too_much = pb.Action(seat=seat, kind=entry.kind, amount=entry.max_amount + 1)
            refused(
                lambda a=too_much: client.stub.Act(act_request(table, a)),
                Code.FAILED_PRECONDITION,
                "STAKE_OUT_OF_RANGE",
            )
            return
        client.act(table, client.random_action(table, rng))
    pytest.fail("no stake was asked in 30 moves")


def test_bad_creation_requests(client: Client) -> None:
    stub = client.stub
    seats = [pb.Seat(name=f"p{i}", chips=10) for i in range(3)]

    def create(**kw: object) -> object:
        return stub.CreateTable(svc.CreateTableRequest(seats=seats, **kw))  # type: ignore[arg-type]

    refused(lambda: create(game="scopa"), Code.INVALID_ARGUMENT, "UNKNOWN_GAME")
    refused(lambda: create(game="trentuno", preset="NOPE"), Code.INVALID_ARGUMENT, "UNKNOWN_PRESET")
    refused(
        lambda: create(game="trentuno", options=pb.Rules(trentuno={"rules_version": 9})),
        Code.INVALID_ARGUMENT,
        "UNKNOWN_OPTION",
    )
    refused(
        lambda: create(game="trentuno", options=pb.Rules(trentuno={"max_rounds": 0})),
        Code.INVALID_ARGUMENT,
        "INVALID_OPTION",
    )
    refused(
        lambda: create(game="trentuno", options=pb.Rules(saltacavallo={"lives": 2})),
        Code.INVALID_ARGUMENT,
        "INVALID_REQUEST",
    )
    refused(lambda: create(game="trentuno", seed=b""), Code.INVALID_ARGUMENT, "INVALID_SEED")
    refused(
        lambda: stub.CreateTable(svc.CreateTableRequest(game="trentuno", seats=seats[:1])),
        Code.INVALID_ARGUMENT,
        "INVALID_SEATS",
    )
    refused(
        lambda: stub.Replay(svc.ReplayRequest(create=svc.CreateTableRequest(game="trentuno", seats=seats))),
        Code.INVALID_ARGUMENT,
        "INVALID_REQUEST",
    )


def test_options_override_the_preset(client: Client) -> None:
    table = client.create(
        "sette_e_mezzo",
        preset="NAPOLETANO",
        options=pb.Rules(sette_e_mezzo={"burn_ranks": {"values": []}, "matta_card": "", "max_stake": 3}),
    )
    rules = client.unseal(table.state).rules
    assert rules.burn_ranks == frozenset() and rules.matta_card is None and rules.max_stake == 3
    assert rules.natural_rule.value == "S000"  # the rest is the preset's


def test_an_oversized_request(client: Client, table: Table) -> None:
    move = first_move(client, table)
    big = act_request(table, move, state=table.state + bytes(300 * 1024))
    refused(lambda: client.stub.Act(big), Code.RESOURCE_EXHAUSTED, None)
    still_playable(client, table)


def test_an_expired_deadline(client: Client, table: Table) -> None:
    """A microsecond deadline: an Act fast enough may still beat it, but a late one is DEADLINE_EXCEEDED."""
    move = first_move(client, table)
    codes = set()
    for _ in range(20):
        try:
            client.stub.Act(act_request(table, move), timeout=1e-6)
            codes.add(Code.OK)
        except grpc.RpcError as exc:
            codes.add(exc.code())  # type: ignore[attr-defined]
    assert Code.DEADLINE_EXCEEDED in codes and codes <= {Code.DEADLINE_EXCEEDED, Code.OK}
    still_playable(client, table)


def test_a_replay_cut_short_by_its_deadline(running: Running) -> None:
    from mazziere.services.core.call import Call

    request = svc.ReplayRequest(
        create=svc.CreateTableRequest(game="trentuno", seed=b"x", seats=[pb.Seat(name="a", chips=9)] * 3),
        actions=[pb.Action(seat=0, kind="DEAL")] * 3,
    )
    with pytest.raises(Exception) as caught:
        running.app.table.replay(request, replace(Call(), time_remaining=lambda: 0.0))
    assert getattr(caught.value, "reason", "") == "DEADLINE_EXCEEDED"
