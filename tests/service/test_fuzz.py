"""Seeded, bounded fuzzing of every method with random and mutated protobuf bodies.

Whatever the bytes, the answer is OK or a typed refusal: never INTERNAL or UNKNOWN, and the server's memory
stays flat. The bodies are mutations of real requests (bit flips, truncations, insertions, splices, repeated
fields) and random messages built from the descriptors, so most of them parse and reach the handlers."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from tests.ports import free_port
from tests.service.test_process import ROOT, metric, server_env
from tests.service.test_wire import rss_mib

Code = grpc.StatusCode
SEED = 20261130
ROUNDS = 2
PER_METHOD = 150
"""Bodies per method and round: 2 x 150 x 7 methods = 2,100 calls, a few seconds."""
BAD = (Code.INTERNAL, Code.UNKNOWN)


def random_message(cls: type[Message], rng: random.Random, depth: int = 0) -> Message:
    """A message with random values in random fields (nested up to three levels)."""
    msg = cls()
    for fd in cls.DESCRIPTOR.fields:
        if rng.random() < 0.5:
            continue
        count = rng.choice((1, 1, 2, 5)) if fd.is_repeated else 1
        for _ in range(count):
            if fd.type == FieldDescriptor.TYPE_MESSAGE:
                if depth >= 3 or fd.message_type.full_name.startswith("google.protobuf."):
                    continue
                value: Any = random_message(_class(fd), rng, depth + 1)
                if fd.is_repeated:
                    getattr(msg, fd.name).add().CopyFrom(value)
                else:
                    getattr(msg, fd.name).CopyFrom(value)
                continue
            value = _scalar(fd, rng)
            if fd.is_repeated:
                getattr(msg, fd.name).append(value)
            else:
                setattr(msg, fd.name, value)
    return msg


def _class(fd: Any) -> type[Message]:
    from google.protobuf.message_factory import GetMessageClass

    return GetMessageClass(fd.message_type)


def _scalar(fd: Any, rng: random.Random) -> Any:
    if fd.type == FieldDescriptor.TYPE_STRING:
        return rng.choice(["", "sette_e_mezzo", "trentuno", "saltacavallo", "DEAL", "HIT", "x" * rng.randrange(300),
                           "é\u0000\U0001f0a1", "k1.AAAA", "t_" + os.urandom(6).hex()])  # fmt: skip
    if fd.type == FieldDescriptor.TYPE_BYTES:
        return rng.choice([b"", b"{", b"\x01", os.urandom(rng.randrange(1, 200)), b'{"game":"trentuno"}'])
    if fd.type == FieldDescriptor.TYPE_BOOL:
        return rng.random() < 0.5
    if fd.type == FieldDescriptor.TYPE_ENUM:
        return rng.choice([v.number for v in fd.enum_type.values] + [99])
    if fd.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return rng.choice([0.0, -1.5, 1e300, float("nan")])
    unsigned = fd.type in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED32,
                           FieldDescriptor.TYPE_FIXED64)  # fmt: skip
    wide = fd.cpp_type in (FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64)
    top = (2**64 - 1 if unsigned else 2**63 - 1) if wide else (2**32 - 1 if unsigned else 2**31 - 1)
    low = 0 if unsigned else -top - 1
    return rng.choice([0, 1, 2, 3, 7, 40, low, top, rng.randint(low, top)])


def mutate(body: bytes, rng: random.Random, others: list[bytes]) -> bytes:
    data = bytearray(body)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        if op == 0 and data:  # flip a bit
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        elif op == 1 and data:  # truncate
            del data[rng.randrange(len(data)) :]
        elif op == 2:  # insert random bytes
            i = rng.randrange(len(data) + 1)
            data[i:i] = os.urandom(rng.randint(1, 8))
        elif op == 3 and data:  # set a byte to an edge value
            data[rng.randrange(len(data))] = rng.choice((0x00, 0x7F, 0x80, 0xFF))
        elif op == 4:  # splice in part of another request
            other = rng.choice(others)
            data += other[rng.randrange(len(other) + 1) :]
        elif op == 5 and data:  # repeat a slice (a field given twice)
            i = rng.randrange(len(data))
            data += data[i : i + rng.randint(1, 40)]
    return bytes(data)


def seed_requests(channel: grpc.Channel) -> dict[str, list[bytes]]:
    """Real, valid requests for every method, on a real table."""
    create = svc.CreateTableRequest(
        game="sette_e_mezzo", seats=[pb.Seat(name=f"p{i}", chips=50) for i in range(3)], seed=b"fuzz"
    )
    made = svc.CreateTableResponse.FromString(
        channel.unary_unary("/mazziere.v1.TableService/CreateTable")(create.SerializeToString(), timeout=10)
    )
    seat = made.to_act[0]
    key = {k.seat: k.key for k in made.seat_keys}
    legal = made.updates[seat + 1].legal_actions[0]
    action = pb.Action(seat=seat, kind=legal.kind, amount=legal.min_amount)
    act = svc.ActRequest(
        table_id=made.table_id, state=made.state, expected_seq=made.seq, action=action, seat_key=key[seat],
        viewers=[pb.SeatKey(seat=s, key=k) for s, k in key.items()], include_spectator=True,
    )  # fmt: skip
    view = svc.GetViewRequest(table_id=made.table_id, state=made.state, seat=seat, seat_key=key[seat])
    auto = svc.ActRequest(table_id=made.table_id, state=made.state, auto_play="best", seat_key=key[seat])
    advise = svc.AdviseRequest(table_id=made.table_id, state=made.state, seat=seat, seat_key=key[seat])
    replay = svc.ReplayRequest(create=create, table_id=made.table_id, actions=[action, action])
    return {
        "ListGames": [b""],
        "CreateTable": [create.SerializeToString()],
        "Act": [act.SerializeToString(), auto.SerializeToString()],
        "GetView": [view.SerializeToString(), svc.GetViewRequest(table_id=made.table_id, state=made.state).SerializeToString()],  # noqa: E501
        "Replay": [replay.SerializeToString()],
        "StreamReplay": [replay.SerializeToString()],
        "Advise": [advise.SerializeToString()],
    }  # fmt: skip


REQUEST_CLASSES: dict[str, type[Message]] = {
    "ListGames": svc.ListGamesRequest,
    "CreateTable": svc.CreateTableRequest,
    "Act": svc.ActRequest,
    "GetView": svc.GetViewRequest,
    "Replay": svc.ReplayRequest,
    "StreamReplay": svc.StreamReplayRequest,
    "Advise": svc.AdviseRequest,
    "Gather": svc.GatherRequest,
}


def sender(channel: grpc.Channel, method: str) -> Callable[[bytes], Any]:
    """Starts a call of ``method`` with a body; :func:`outcome` reads how it ended."""
    path = f"/mazziere.v1.TableService/{method}"
    if method == "StreamReplay":
        stream = channel.unary_stream(path)
        return lambda body: ("stream", stream(body, timeout=20))
    unary = channel.unary_unary(path)
    return lambda body: ("unary", unary.future(body, timeout=20))


def outcome(pending: tuple[str, Any]) -> Code:
    kind, call = pending
    try:
        if kind == "unary":
            call.result()
        else:
            for _ in call:  # read every message: a stream ends only once it is read
                pass
    except grpc.RpcError as exc:
        return exc.code()  # type: ignore[attr-defined,no-any-return]
    return Code.OK


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads RSS from /proc")
def test_random_and_mutated_bodies_never_make_an_internal_error(tmp_path: Path) -> None:
    port, metrics_port = free_port(), free_port()
    env = server_env(port, metrics_port, log_calls="false")
    log = tmp_path / "server.log"
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "mazziere.services.cli", "serve"], env=env, cwd=ROOT, stderr=err)
    rng = random.Random(SEED)
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.max_receive_message_length", 64 << 20)])
        grpc.channel_ready_future(channel).result(timeout=20)
        seeds = seed_requests(channel)
        everything = [body for bodies in seeds.values() for body in bodies]
        seen: dict[Code, int] = {}
        sizes = []
        for _ in range(ROUNDS):
            for method, bodies in seeds.items():
                send = sender(channel, method)
                batch = []
                for i in range(PER_METHOD):
                    if i % 3 == 0:
                        body = random_message(REQUEST_CLASSES[method], rng).SerializeToString()
                    elif i % 3 == 1:
                        body = mutate(rng.choice(bodies), rng, everything)
                    else:
                        body = mutate(random_message(REQUEST_CLASSES[method], rng).SerializeToString(), rng, everything)
                    batch.append((body, send(body)))
                    if len(batch) == 25 or i == PER_METHOD - 1:
                        for sent, pending in batch:
                            code = outcome(pending)
                            seen[code] = seen.get(code, 0) + 1
                            assert code not in BAD, (method, sent[:200])
                        batch = []
            sizes.append(rss_mib(proc.pid))
        assert seen.get(Code.INVALID_ARGUMENT, 0) > 0 and len(seen) >= 3, seen  # it reached past the parser
        assert sizes[-1] - sizes[0] < 15, sizes  # the second round allocates nothing the first did not
        assert metric(metrics_port, 'grpc_server_handled_total{grpc_code="INTERNAL"') == 0
        channel.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert "call_failed" not in log.read_text()
