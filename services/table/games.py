"""The games this server serves, as ListGames tells them: each game's presets, options and actions, and the
server's version."""

from __future__ import annotations

from functools import cache
from importlib import metadata
from typing import Any

from google.protobuf import struct_pb2
from google.protobuf.message_factory import GetMessageClass

from mazziere import engine
from mazziere.engine.rules import describe
from mazziere.engine.table import TableState
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.wire.answers import VIEW_FIELDS
from mazziere.services.wire.codec import to_proto

RULES_FIELDS = pb.Rules.DESCRIPTOR.fields_by_name
DISTRIBUTION = "mazziere"
"""The server's distribution, whose installed metadata names the version that ListGames and ``--version`` report."""
UNKNOWN_VERSION = "0+unknown"
"""The version reported when the code runs without its distribution's metadata (a copy of the folders)."""


@cache
def server_version() -> str:
    """The installed ``mazziere`` distribution's version (``importlib.metadata``), or :data:`UNKNOWN_VERSION`."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return UNKNOWN_VERSION


def served_games() -> list[str]:
    """The registered games that the contract has messages for."""
    return [g.id for g in engine.all_games() if g.id in VIEW_FIELDS and g.id in RULES_FIELDS]


def preset_of(state: TableState) -> str:
    """The name of the preset the table plays, or ``custom``."""
    for name, rules in engine.get_game(state.game).presets.items():
        if rules == state.rules:
            return str(name)
    return "custom"


def game_info(game: Any) -> pb.GameInfo:
    """A game as ListGames describes it."""
    field: Any = RULES_FIELDS[game.id]
    rules_class: Any = GetMessageClass(field.message_type)
    options = []
    for o in describe(game.rules_type):
        default = struct_pb2.Value()
        _set_value(default, o.default)
        options.append(pb.OptionInfo(name=o.name, type=o.type, default_value=default, doc=o.doc, choices=o.choices))
    return pb.GameInfo(
        id=game.id,
        title=game.title,
        presets=[
            pb.PresetInfo(name=name, rules=pb.Rules(**{game.id: to_proto(rules, rules_class)}))
            for name, rules in game.presets.items()
        ],
        options=options,
        action_kinds=list(game.action_kinds),
    )


def _set_value(target: struct_pb2.Value, data: Any) -> None:
    if data is None:
        target.null_value = struct_pb2.NULL_VALUE
    elif isinstance(data, bool):
        target.bool_value = data
    elif isinstance(data, int | float):
        target.number_value = data
    elif isinstance(data, str):
        target.string_value = data
    elif isinstance(data, list):
        target.list_value.SetInParent()
        for item in data:
            _set_value(target.list_value.values.add(), item)
    else:
        target.struct_value.update(data)
