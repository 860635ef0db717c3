"""Hostile but well-formed requests: every one gets a typed refusal, never INTERNAL."""

from __future__ import annotations

import grpc
import msgspec

from mazziere.services.errors import MAX_MESSAGE
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import sette_e_mezzo_pb2 as sm
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from tests.helpers import edit_state_bytes, state_field
from tests.service.conftest import Running
from tests.service.helpers import Client, error_info
from tests.service.test_errors import act_request, first_move, refused, still_playable

Code = grpc.StatusCode


def seats(n: int = 3, chips: int = 100) -> list[pb.Seat]:
    return [pb.Seat(name=f"p{i}", chips=chips) for i in range(n)]


def test_a_seat_key_with_non_ascii_text_is_simply_wrong(client: Client) -> None:
    table = client.create("sette_e_mezzo", seed=b"keys")
    move = first_move(client, table)
    kid = table.keys[move.seat].split(".")[0]
    for key in (f"{kid}.é", "é.x", f"{kid}.ÿÿÿ"):
        refused(lambda k=key: client.stub.Act(act_request(table, move, seat_key=k)), Code.PERMISSION_DENIED,
                "SEAT_KEY_INVALID")  # fmt: skip
        refused(
            lambda k=key: client.stub.GetView(
                svc.GetViewRequest(table_id=table.table_id, state=table.state, seat=move.seat, seat_key=k)
            ),
            Code.PERMISSION_DENIED,
            "SEAT_KEY_INVALID",
        )
    still_playable(client, table)


def test_an_enum_option_with_an_unknown_number_is_an_invalid_option(client: Client) -> None:
    for number in (99, -5):
        rules = pb.Rules(sette_e_mezzo=sm.SetteEMezzoRules(pack=number))  # type: ignore[arg-type]
        request = svc.CreateTableRequest(game="sette_e_mezzo", seats=seats(), options=rules)
        refused(lambda r=request: client.stub.CreateTable(r), Code.INVALID_ARGUMENT, "INVALID_OPTION")


def test_amounts_that_could_overflow_are_refused_at_the_door(client: Client) -> None:
    huge = svc.CreateTableRequest(game="sette_e_mezzo", seats=seats(2, 2**63 - 1))
    refused(lambda: client.stub.CreateTable(huge), Code.INVALID_ARGUMENT, "INVALID_SEATS")
    rules = pb.Rules(sette_e_mezzo=sm.SetteEMezzoRules(max_stake=2**62))
    big_option = svc.CreateTableRequest(game="sette_e_mezzo", seats=seats(), options=rules)
    refused(lambda: client.stub.CreateTable(big_option), Code.INVALID_ARGUMENT, "INVALID_OPTION")
    long_name = svc.CreateTableRequest(game="sette_e_mezzo", seats=[pb.Seat(name="x" * 5000, chips=5)] * 2)
    refused(lambda: client.stub.CreateTable(long_name), Code.INVALID_ARGUMENT, "INVALID_SEATS")


def test_echoed_input_is_bounded_so_the_refusal_stays_typed(client: Client) -> None:
    exc = refused(
        lambda: client.stub.CreateTable(svc.CreateTableRequest(game="x" * 20_000, seats=seats())),
        Code.INVALID_ARGUMENT,
        "UNKNOWN_GAME",
    )
    assert len(exc.details()) <= MAX_MESSAGE  # type: ignore[attr-defined]
    table = client.create("sette_e_mezzo", seed=b"long")
    move = first_move(client, table)
    move.kind = "K" * 20_000
    refused(lambda: client.stub.Act(act_request(table, move)), Code.FAILED_PRECONDITION, "ILLEGAL_ACTION")


def test_a_trusted_callers_inconsistent_plain_state_is_never_an_internal_error(trusted: Running) -> None:
    stub = trusted.stub
    created = stub.CreateTable(svc.CreateTableRequest(game="sette_e_mezzo", seats=seats()))
    good = created.state
    hands = state_field(good, "hands")
    broken = {
        msgspec.msgpack.encode([[], [], [], []]): "INVALID_STATE",
        msgspec.msgpack.encode([2, {}, [], []]): "INVALID_STATE",
        b'{"game": "sette_e_mezzo"}': "RULES_VERSION_UNSUPPORTED",
        edit_state_bytes(good, names=[]): "INVALID_STATE",
        edit_state_bytes(good, seq=-1): "INVALID_STATE",
        edit_state_bytes(good, chips=[2**63, 100, 100]): None,
        edit_state_bytes(good, turn=40, bank=40): None,
        edit_state_bytes(good, hands=hands[:1]): None,
    }
    for raw, reason in broken.items():
        calls = [
            lambda r=raw: stub.GetView(svc.GetViewRequest(table_id=created.table_id, state=r, seat=0)),
            lambda r=raw: stub.Act(
                svc.ActRequest(table_id=created.table_id, state=r, action=pb.Action(seat=0, kind="DEAL"))
            ),
        ]
        for call in calls:
            try:
                call()
            except grpc.RpcError as exc:
                assert exc.code() in (Code.INVALID_ARGUMENT, Code.FAILED_PRECONDITION), exc.details()  # type: ignore[attr-defined]
                info = error_info(exc)
                assert info is not None and (reason is None or info.reason == reason), (raw[:60], info)


def test_a_seed_is_at_most_64_bytes(client: Client) -> None:
    from mazziere import engine

    assert engine.MAX_SEED == 64
    client.create("trentuno", seed=b"s" * 64)
    for seed in (b"s" * 65, b"s" * 100_000):
        exc = refused(lambda s=seed: client.create("trentuno", seed=s), Code.INVALID_ARGUMENT, "INVALID_SEED")
        assert "64" in exc.details()  # type: ignore[attr-defined]
        replay = svc.ReplayRequest(create=svc.CreateTableRequest(game="trentuno", seats=seats(), seed=seed))
        refused(lambda r=replay: client.stub.Replay(r), Code.INVALID_ARGUMENT, "INVALID_SEED")
    try:
        engine.new_table("trentuno", [engine.Seat("a", 5), engine.Seat("b", 5)], seed=b"s" * 65)
    except engine.Rejected as exc:
        assert exc.reason == engine.Reason.INVALID_SEED
    else:
        raise AssertionError("the engine took a 65-byte seed")
