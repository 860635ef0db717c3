"""Every answer that carries the table is written once, from the engine's values, in the form its transport sends:
gRPC and Connect's proto codec get its protobuf bytes (no message is built, parsed or serialized again), REST and
Connect's JSON codec its JSON, a caller in the process that reads fields the message parsed once; each is written
on the move worker that ran the call, and the bytes are those the message serializes to."""

from __future__ import annotations

import base64
import json
import random
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from mazziere.services.core.call import Call
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import service_pb2_grpc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.http.errors import HTTP_STATUS
from mazziere.services.table.games import served_games
from mazziere.services.table.sealing import Keyring
from mazziere.services.table.service import TableService
from mazziere.services.wire.answers import Holding, TableAnswer, Written
from tests.gateway.conftest import BASE, Gateway
from tests.service.helpers import Client, error_info

GAMES = sorted(served_games())


@pytest.fixture(scope="module")
def served() -> Iterator[Gateway]:
    g = Gateway(replace(BASE, cors_origins=""))
    yield g
    g.close()


class Writes:
    """How often answers were written as protobuf bytes, as JSON, or parsed into a message, and on which threads."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count: Counter[str] = Counter()
        self.threads: set[str] = set()
        for cls, name, label in (
            (TableAnswer, "write", "protobuf"),
            (TableAnswer, "data", "json"),
            (Written, "message", "message"),
        ):
            monkeypatch.setattr(cls, name, self._spy(getattr(cls, name), label))

    def _spy(self, real: Any, label: str) -> Any:
        def spy(answer: Any, *args: Any) -> Any:
            self.count[label] += 1
            self.threads.add(threading.current_thread().name)
            return real(answer, *args)

        return spy

    def reset(self) -> None:
        self.count.clear()
        self.threads.clear()


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> Writes:
    return Writes(monkeypatch)


def test_grpc_sends_each_answer_as_written_and_parses_none(served: Gateway, writes: Writes) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{served.grpc_port}") as channel:
        client = Client(service_pb2_grpc.TableServiceStub(channel), served.app.keyring)
        table = client.create("sette_e_mezzo", seed=b"copies")
        assert writes.count == {"protobuf": 1}
        writes.reset()
        seat = table.to_act[0]
        client.act(table, pb.Action(seat=seat, kind="DEAL"), all_viewers=True)
        assert writes.count == {"protobuf": 1}  # one answer, every viewer's update in it
        assert writes.threads == {t for t in writes.threads if t.startswith("mazziere-move")}
        writes.reset()
        client.auto(table, "random")
        client.legal(table, table.to_act[0])  # a GetView
        assert writes.count == {"protobuf": 2}
        writes.reset()
        create = svc.CreateTableRequest(game="trentuno", seats=[pb.Seat(name=n, chips=9) for n in "abc"], seed=b"r")
        deal = pb.Action(seat=0, kind="DEAL")
        steps = client.stub.Replay(svc.ReplayRequest(create=create, table_id="t_r", actions=[deal])).steps
        streamed = [m.step for m in client.stub.StreamReplay(svc.StreamReplayRequest(create=create, table_id="t_r"))]
        assert len(steps) == 2 and len(streamed) == 1 and streamed[0] == steps[0]
        assert writes.count == {"protobuf": 3}  # two steps in one answer, one streamed
        assert writes.threads == {t for t in writes.threads if t.startswith("mazziere-replay")}


def test_rest_writes_a_moves_json_in_one_pass_on_the_worker(served: Gateway, writes: Writes) -> None:
    api = served.api
    table = api.create("trentuno", seats=3)
    api.act(table, {"seat": table.to_act[0], "kind": "DEAL"})
    api.view(table, None)
    assert writes.count == {"json": 3}  # no protobuf bytes, no message
    assert writes.threads and all(t.startswith("mazziere-move") for t in writes.threads), writes.threads


def test_connect_takes_the_form_of_its_codec(served: Gateway, writes: Writes) -> None:
    table = served.api.create("sette_e_mezzo", seats=2)
    request = svc.GetViewRequest(table_id=table.table_id, state=base64.b64decode(table.state), seat=0)
    request.seat_key = table.keys[0]
    writes.reset()
    for media, label, content in (
        ("application/json", "json", json.dumps(json_format.MessageToDict(request)).encode()),
        ("application/proto", "protobuf", request.SerializeToString()),
    ):
        resp = served.http.post(
            "/mazziere.v1.TableService/GetView",
            content=content,
            headers={"content-type": media, "connect-protocol-version": "1"},
        )
        assert resp.status_code == 200, resp.text
        assert writes.count == {label: 1}
        writes.reset()


def test_a_rest_replay_is_refused_by_its_protobuf_size_as_over_grpc() -> None:
    """The message limit counts protobuf bytes whatever the transport: REST's refusal names the same size."""
    create = svc.CreateTableRequest(
        game="sette_e_mezzo", seats=[pb.Seat(name=f"p{i}", chips=9) for i in range(6)], seed=b"seed"
    )
    core = TableService(Keyring([("k", bytes(32))]))
    bank = core.create_table(create, Call()).to_act[0]
    request = svc.ReplayRequest(create=create, table_id="t_big", actions=[pb.Action(seat=bank, kind="DEAL")])
    size = core.answer_replay(request, Call()).ByteSize()
    small = Gateway(replace(BASE, cors_origins="", max_message_bytes=size - 1))
    try:
        with grpc.insecure_channel(f"127.0.0.1:{small.grpc_port}") as channel, pytest.raises(grpc.RpcError) as caught:
            service_pb2_grpc.TableServiceStub(channel).Replay(request, timeout=10)
        info = error_info(caught.value)
        assert info is not None and info.reason == "RESPONSE_TOO_LARGE" and info.metadata["size"] == str(size)
        rest = small.http.post("/v1/tables:replay", json=json_format.MessageToDict(request))
        assert rest.status_code == HTTP_STATUS[grpc.StatusCode.RESOURCE_EXHAUSTED], rest.text
        [detail] = rest.json()["error"]["details"]
        assert detail["reason"] == "RESPONSE_TOO_LARGE" and detail["metadata"]["size"] == str(size)
    finally:
        small.close()


def test_a_caller_in_the_process_gets_messages() -> None:
    """The plain methods answer messages (the written bytes parsed once); the served ones answer them written."""
    core = TableService(Keyring([("k", bytes(32))]), trusted_mode=True)
    create = svc.CreateTableRequest(game="trentuno", seats=[pb.Seat(name=n, chips=5) for n in "abc"], seed=b"m")
    table = core.create_table(create, Call())
    assert isinstance(table, svc.CreateTableResponse) and table.updates
    written = core.answer_create_table(create, Call())
    assert isinstance(written, TableAnswer) and len(written.message().updates) == len(table.updates) == 4
    deal = pb.Action(seat=table.to_act[0], kind="DEAL")
    request = svc.ActRequest(table_id=table.table_id, state=table.state, action=deal)
    assert isinstance(core.act(request, Call()), svc.ActResponse)
    assert isinstance(core.answer_act(request, Call()), TableAnswer)
    view = svc.GetViewRequest(table_id=table.table_id, state=table.state)
    assert core.get_view(view, Call()) == core.answer_get_view(view, Call()).message()
    replay = svc.ReplayRequest(create=create, table_id="t", actions=[deal])
    assert isinstance(core.answer_replay(replay, Call()), Holding)
    assert core.replay(replay, Call()) == core.answer_replay(replay, Call()).message()
    assert len(core.replay(replay, Call()).steps) == 2
    streamed = svc.StreamReplayRequest(create=create, table_id="t", actions=replay.actions)
    assert [m.step for m in core.stream_replay(streamed, Call())] == list(core.replay(replay, Call()).steps)


@pytest.mark.parametrize("game", GAMES)
def test_the_written_bytes_are_the_messages_own(game: str) -> None:
    """On whole games: what gRPC sends is exactly what the message it parses to serializes to (the bytes the server
    sent when it parsed and serialized the answer again), every field in number order."""
    core = TableService(Keyring([("k", bytes(32))]))
    rng = random.Random(game)
    create = svc.CreateTableRequest(game=game, seats=[pb.Seat(name=f"p{i}", chips=5) for i in range(4)], seed=b"w")
    first = core.answer_create_table(create, Call())
    table = _same_bytes(first)
    keys = {k.seat: k.key for k in table.seat_keys}
    state, seq, to_act, over = table.state, table.seq, list(table.to_act), table.is_over
    actions = []
    while not over and len(actions) < 400:
        seat = rng.choice(to_act)
        request = svc.ActRequest(
            table_id=table.table_id,
            state=state,
            expected_seq=seq,
            seat_key=keys[seat],
            viewers=[pb.SeatKey(seat=s, key=keys[s]) for s in range(4) if s != seat],
            include_spectator=True,
        )
        if rng.random() < 0.3:
            request.auto_play, request.auto_seat = "random", seat
        else:
            view = svc.GetViewRequest(table_id=table.table_id, state=state, seat=seat, seat_key=keys[seat])
            entry = rng.choice(_same_bytes(core.answer_get_view(view, Call())).update.legal_actions)
            request.action.CopyFrom(pb.Action(seat=seat, kind=entry.kind, amount=entry.min_amount, cards=entry.cards))
            if entry.HasField("target"):
                request.action.target = entry.target
        answer = _same_bytes(core.answer_act(request, Call()))
        actions.append(answer.action)
        state, seq, to_act, over = answer.state, answer.seq, list(answer.to_act), answer.is_over
    assert over
    replay = _same_bytes(core.answer_replay(svc.ReplayRequest(create=create, table_id="t", actions=actions), Call()))
    assert len(replay.steps) == len(actions) + 1


def _same_bytes(answer: Written[Any]) -> Any:
    message = answer.message()
    assert answer.SerializeToString() == message.SerializeToString()
    assert answer.ByteSize() == message.ByteSize()
    return message


def test_an_echoed_action_keeps_what_the_caller_sent() -> None:
    """An Act names its move: the answer sends the request's own Action back (fields this server does not know
    included, as a message copied from the request did)."""
    core = TableService(Keyring([("k", bytes(32))]), trusted_mode=True)
    create = svc.CreateTableRequest(game="trentuno", seats=[pb.Seat(name=n, chips=5) for n in "abc"], seed=b"e")
    table = core.create_table(create, Call())
    deal = pb.Action(seat=table.to_act[0], kind="DEAL").SerializeToString()
    action = pb.Action.FromString(deal + b"\xf8\x3f\x05")  # and field 1023, unknown here
    request = svc.ActRequest(table_id=table.table_id, state=table.state, action=action)
    answer = core.answer_act(request, Call())
    assert answer.message().action.SerializeToString() == action.SerializeToString()
    assert json.loads(answer.json())["action"] == json_format.MessageToDict(action)


def test_no_transport_asks_for_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a caller in the process that reads fields parses a written answer (the host, tests): not gRPC, REST or
    Connect."""
    asked: list[str] = []
    real = Written.message

    def message(self: Any) -> Any:
        asked.append(type(self).__name__)
        return real(self)

    monkeypatch.setattr(Written, "message", message)
    g = Gateway(replace(BASE, cors_origins=""))
    try:
        with grpc.insecure_channel(f"127.0.0.1:{g.grpc_port}") as channel:
            Client(service_pb2_grpc.TableServiceStub(channel), g.app.keyring).create("saltacavallo")
        table = g.api.create("saltacavallo", seats=3)
        g.api.view(table, None)
        body = json.dumps({"game": "trentuno", "seats": [{"name": n, "chips": "5"} for n in "abc"]})
        for media in ("application/json", "application/proto"):
            content = body.encode() if media.endswith("json") else _proto(body)
            resp = g.http.post(
                "/mazziere.v1.TableService/CreateTable",
                content=content,
                headers={"content-type": media, "connect-protocol-version": "1"},
            )
            assert resp.status_code == 200, resp.text
        assert asked == []
    finally:
        g.close()


def _proto(body: str) -> bytes:
    return json_format.Parse(body, svc.CreateTableRequest()).SerializeToString()
