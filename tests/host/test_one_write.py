"""A hosted move is admitted once and each audience's update is written once per wire format, then handed as it
is to every watcher of that audience: nothing the server wrote is parsed again on the way from the engine to a
watcher.

The test plays a hosted hand in process, watched by every audience in both formats (protobuf, as gRPC and
Connect's proto codec send it, and protobuf JSON, as REST and Connect's JSON codec do; two JSON watchers share one
audience), and counts, for each Play, every parse and serialization the server's own code makes: protobuf's
``FromString``, ``ParseFromString``, ``MergeFromString`` and ``SerializeToString`` of every message of the
contract, ``json_format``, the project's JSON reader and message printer, the state decoder, and the writers of a
seat's update and of a hosted update.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from mazziere import engine
from mazziere.services.app import App
from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Method
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import service_pb2, table_pb2
from mazziere.services.grpc.server import ServerThread
from mazziere.services.host import updates
from mazziere.services.host.host import HOST_SERVICE
from mazziere.services.table.sealing import Keyring
from mazziere.services.wire import answers, jsondata, protojson
from tests.host.test_host import host_config

PLAYS = 6
CONTRACT = (service_pb2, table_pb2, hpb)


def _message_classes() -> Iterator[type[Message]]:
    for module in CONTRACT:
        stack = [getattr(module, name) for name in module.DESCRIPTOR.message_types_by_name]
        while stack:
            cls = stack.pop()
            yield cls
            stack += [getattr(cls, name) for name in cls.DESCRIPTOR.nested_types_by_name]


class Tally:
    """Calls made by the server's own code (a caller in ``mazziere.``), by what was called."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.on = False

    def wrap(self, name: str, fn: Callable[..., Any], key: Callable[..., str] | None = None) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            if self.on and sys._getframe(1).f_globals.get("__name__", "").startswith("mazziere."):
                self.calls[name if key is None else f"{name}[{key(*args, **kwargs)}]"] += 1
            return fn(*args, **kwargs)

        return counted

    def take(self) -> Counter[str]:
        taken, self.calls = self.calls, Counter()
        return taken


@contextmanager
def counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[Tally]:
    tally = Tally()
    for cls in _message_classes():
        name = cls.DESCRIPTOR.name
        monkeypatch.setattr(cls, "FromString", staticmethod(tally.wrap(f"parse {name}", cls.FromString)))
        for method in ("ParseFromString", "MergeFromString"):
            monkeypatch.setattr(cls, method, tally.wrap(f"parse {name}", getattr(cls, method)))
        monkeypatch.setattr(cls, "SerializeToString", tally.wrap(f"serialize {name}", cls.SerializeToString))
    for fn in ("Parse", "ParseDict", "MessageToDict", "MessageToJson"):
        monkeypatch.setattr(json_format, fn, tally.wrap(f"json_format.{fn}", getattr(json_format, fn)))
    monkeypatch.setattr(protojson, "parse", tally.wrap("parse JSON", protojson.parse))
    monkeypatch.setattr(protojson, "to_dict", tally.wrap("print a message", protojson.to_dict))
    monkeypatch.setattr(engine, "state_from_bytes", tally.wrap("decode a state", engine.state_from_bytes))
    by_viewer = {"key": lambda state, viewer, *a, **k: "spectators" if viewer is None else str(viewer)}
    monkeypatch.setattr(answers, "seat_update", tally.wrap("SeatUpdate bytes", answers.seat_update, **by_viewer))
    monkeypatch.setattr(
        answers, "seat_update_json", tally.wrap("SeatUpdate JSON", answers.seat_update_json, **by_viewer)
    )
    hosted = {"key": lambda writing, viewer: "spectators" if viewer is None else str(viewer)}
    monkeypatch.setattr(updates.Writing, "wire", tally.wrap("HostedUpdate bytes", updates.Writing.wire, **hosted))
    monkeypatch.setattr(updates.Writing, "data", tally.wrap("HostedUpdate JSON", updates.Writing.data, **hosted))
    monkeypatch.setattr(jsondata, "encode", tally.wrap("JSON text", jsondata.encode))
    yield tally


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[App, ServerThread]]:
    config = host_config(tmp_path, turn_seconds=3600, heartbeat_seconds=3600)
    app = App(config, keyring=Keyring.parse(config.seal_keys), hosting=True)
    assert app.host is not None
    server = ServerThread(app.grpc)
    server.start()
    server.run(app.host.start())
    yield app, server
    server.run(app.host.stop())
    server.shutdown()


def test_a_play_writes_each_audience_once_per_format_and_parses_nothing_it_wrote(
    app: tuple[App, ServerThread], monkeypatch: pytest.MonkeyPatch
) -> None:
    hosted, server = app
    with counting(monkeypatch) as tally:
        per_play = server.run(_hand(hosted, tally))
    audiences = ["0", "1", "2", "spectators"]
    for seen in per_play:
        assert not {name: n for name, n in seen.items() if name.startswith(("parse", "json_format", "decode"))}
        for audience in audiences:
            for written in ("SeatUpdate bytes", "SeatUpdate JSON", "HostedUpdate bytes", "HostedUpdate JSON"):
                assert seen[f"{written}[{audience}]"] == 1, (written, audience, seen)
        assert seen["JSON text"] == len(audiences)  # one WatchResponse's JSON per audience, for all its watchers
        assert seen["print a message"] == 0
        serialized = {name: n for name, n in seen.items() if name.startswith("serialize")}
        assert serialized == {"serialize Action": 1}  # the action played, kept in the table's log


async def _hand(app: App, tally: Tally) -> list[Counter[str]]:
    """A 3-person table watched by every audience in both formats; :data:`PLAYS` moves, each counted alone."""
    dispatcher = app.dispatcher
    method = {name: dispatcher.method(HOST_SERVICE.full_name, name) for name in ("OpenTable", "Play", "Watch")}
    opening = hpb.OpenTableRequest(
        game="sette_e_mezzo", seats=[hpb.HostedSeat(name=n, chips=50) for n in ("Ada", "Bruno", "Carla")]
    )
    opened = hpb.OpenTableResponse.FromString(
        await dispatcher.unary(_known(method["OpenTable"]), opening, Call(), 10.0, wire=True)
    )
    invites = {str(i.seat): i.capability for i in opened.invites} | {"spectators": opened.spectators.capability}
    received: dict[tuple[str, str, int], list[bytes]] = {}
    watchers = []
    for audience, capability in invites.items():
        for form, copies in (("proto", 1), ("json", 2)):
            for copy in range(copies):
                items = received[(audience, form, copy)] = []
                call = Call(metadata=[("x-table-capability", capability)])
                watch = hpb.WatchRequest(table_id=opened.table_id)

                async def write(item: bytes, items: list[bytes] = items) -> None:
                    items.append(item)

                stream = dispatcher.stream(
                    _known(method["Watch"]),
                    watch,
                    call,
                    None,
                    write,
                    wire=form == "proto",
                    encode=protojson.to_json if form == "json" else None,
                )
                watchers.append(asyncio.create_task(stream))
    await _until(lambda: all(received.values()))
    await asyncio.sleep(0.2)  # the arrivals' presence news reach every watcher before the first move
    per_play = []
    for seq in range(PLAYS):
        seat, action = _next_move(received, seq)
        play = hpb.PlayRequest(table_id=opened.table_id, expected_seq=seq, action=action)
        call = Call(metadata=[("x-table-capability", invites[str(seat)])])
        tally.on = True
        await dispatcher.unary(_known(method["Play"]), play, call, 10.0, wire=True)
        await _until(lambda seq=seq: all(len(_updates(key, items)) > seq + 1 for key, items in received.items()))
        tally.on = False
        per_play.append(tally.take())
    for task in watchers:
        task.cancel()
    await asyncio.gather(*watchers, return_exceptions=True)
    return per_play


def _known(method: Method | None) -> Method:
    assert method is not None
    return method


def _updates(key: tuple[str, str, int], items: list[bytes]) -> list[Any]:
    """The updates a watcher received (its presence items left out), as messages or JSON objects."""
    if key[1] == "proto":
        return [m.update for m in map(hpb.WatchResponse.FromString, items) if m.HasField("update")]
    return [data["update"] for data in map(json.loads, items) if "update" in data]


def _next_move(received: dict[tuple[str, str, int], list[bytes]], seq: int) -> tuple[int, table_pb2.Action]:
    """The seat to act at ``seq`` and the first move its own (protobuf) watcher lists."""
    spectators = ("spectators", "proto", 0)
    seat = _updates(spectators, received[spectators])[seq].to_act[0]
    mine = (str(seat), "proto", 0)
    entry = _updates(mine, received[mine])[seq].update.legal_actions[0]
    return seat, table_pb2.Action(seat=seat, kind=entry.kind, amount=entry.min_amount)


async def _until(ready: Callable[[], bool], seconds: float = 20.0) -> None:
    async with asyncio.timeout(seconds):
        while not ready():
            await asyncio.sleep(0.005)
