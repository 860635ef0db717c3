"""The contract and the engine agree: every engine field has its proto field, every reason its enum value."""

from __future__ import annotations

import typing
from typing import Any

import pytest

from mazziere import engine
from mazziere.engine.codec import is_record, record_fields
from mazziere.engine.ledger import Transfer
from mazziere.engine.table import Event, LegalAction
from mazziere.services.errors import all_reasons
from mazziere.services.gen.mazziere.v1 import errors_pb2
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.table.games import served_games
from mazziere.services.wire.codec import enum_prefix, to_plain
from tests.service.helpers import Client


def _dataclasses_in(kind: Any, seen: set[type]) -> None:
    """Every dataclass reachable from ``kind``'s type hints."""
    for arg in typing.get_args(kind):
        _dataclasses_in(arg, seen)
    if is_record(kind) and kind not in seen:
        seen.add(kind)
        for hint in typing.get_type_hints(kind).values():
            _dataclasses_in(hint, seen)


def _check(kind: type, desc: Any, path: str) -> None:
    hints = typing.get_type_hints(kind)
    for name in record_fields(kind):
        assert name in desc.fields_by_name, f"{desc.full_name} lacks {path}.{name} ({kind.__name__})"
        fd = desc.fields_by_name[name]
        hint = hints[name]
        inner = [a for a in (hint, *typing.get_args(hint)) if is_record(a)]
        for sub in typing.get_args(hint):
            inner += [a for a in typing.get_args(sub) if is_record(a)]
        if inner and fd.message_type is not None:
            target = fd.message_type
            while len(target.fields) == 1 and target.fields[0].name in ("value", "values"):
                target = target.fields[0].message_type
            if target.full_name != "mazziere.v1.TableCard":
                _check(inner[0], target, f"{path}.{name}")
        enums = [a for a in (hint, *typing.get_args(hint)) if isinstance(a, type) and issubclass(a, engine_enum())]
        if enums and fd.enum_type is not None:
            prefix = enum_prefix(fd.enum_type.name)
            names = {v.name.removeprefix(prefix) for v in fd.enum_type.values}
            missing = {str(m.value) for m in enums[0]} - names
            assert not missing, f"{fd.enum_type.full_name} lacks {missing} for {path}.{name}"


def engine_enum() -> type:
    from enum import Enum

    return Enum


@pytest.mark.parametrize("game_id", [g.id for g in engine.all_games()])
def test_every_game_view_and_rules_field_has_its_proto_field(game_id: str) -> None:
    if game_id not in served_games():
        pytest.skip(f"{game_id} has no messages in the contract yet")
    game = engine.get_game(game_id)
    state = engine.new_table(game_id, [engine.Seat(f"p{i}", 50) for i in range(4)], seed=b"c").state
    view_type = type(engine.view(state, 0))
    _check(view_type, pb.TableView.DESCRIPTOR.fields_by_name[game_id].message_type, game_id)
    _check(game.rules_type, pb.Rules.DESCRIPTOR.fields_by_name[game_id].message_type, game_id)


@pytest.mark.parametrize(
    ("kind", "message"), [(Event, pb.Event), (LegalAction, pb.LegalAction), (Transfer, pb.Transfer)]
)
def test_shared_values_have_their_proto_fields(kind: type, message: Any) -> None:
    _check(kind, message.DESCRIPTOR, kind.__name__)
    plain = to_plain(message())
    assert set(plain) - SERVICE_FIELDS.get(message, set()) <= set(record_fields(kind))


SERVICE_FIELDS = {pb.Event: {"auto"}}
"""Fields the service sets itself, which the engine's values do not have (Event.auto marks an auto-played move)."""


def test_the_action_message_is_the_engine_action() -> None:
    assert [f.name for f in pb.Action.DESCRIPTOR.fields] == list(record_fields(engine.Action))


def test_every_reason_is_in_the_proto_enum_and_back() -> None:
    prefix = "ERROR_REASON_"
    proto = {v.name.removeprefix(prefix) for v in errors_pb2.ErrorReason.DESCRIPTOR.values if v.number}
    assert proto == set(all_reasons())


def test_list_games_describes_every_option_and_preset(client: Client) -> None:
    games = {g.id: g for g in client.stub.ListGames(svc.ListGamesRequest()).games}
    assert set(games) == set(served_games())
    for game_id, info in games.items():
        game = engine.get_game(game_id)
        assert [p.name for p in info.presets] == list(game.presets)
        assert {o.name for o in info.options} == set(record_fields(game.rules_type)) - {"rules_version"}
        assert all(o.doc and o.type for o in info.options)
        assert list(info.action_kinds) == list(game.action_kinds)
        for preset in info.presets:
            assert preset.rules.WhichOneof("game") == game_id
        enum_options = [o for o in info.options if o.type == "enum"]
        assert all(o.choices for o in enum_options)
