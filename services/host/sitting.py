"""Sitting out the seat of a person who left, at a table that follows presence (``follow_presence``).

Where the game allows it (the option ``sit_out`` of Sette e mezzo and Saltacavallo, which such a table opens with
unless its opener set it), the host sits an away person's seat out of the next hands at the hand boundary, instead
of playing its turns cautiously, and sits it in again at the boundary once its person is back. The engine offers
these moves to the seat that deals, between hands (``SIT_OUT``/``SIT_IN`` with a ``target``), so the host reads
them from that seat's legal actions and plays them for it; where they are not offered (Trentuno, the seat that
deals, a table opened with ``sit_out`` off) the away seat is played cautiously as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb

SIT_OUT = "SIT_OUT"
SIT_IN = "SIT_IN"
OPTION = "sit_out"
"""The rule option that lets seats sit out, in every game that has one."""


def with_sit_out(request: hpb.OpenTableRequest) -> pb.Rules:
    """The options a table opens with: at a table that follows presence, the game's ``sit_out`` on, unless the
    opener set it (a game without the option is left as it is)."""
    options = pb.Rules()
    options.CopyFrom(request.options)
    if not request.follow_presence:
        return options
    field = pb.Rules.DESCRIPTOR.fields_by_name.get(request.game)
    if field is None or field.message_type is None or OPTION not in field.message_type.fields_by_name:
        return options
    if options.WhichOneof("game") not in (None, request.game):
        return options  # another game's options: the table's creation refuses them
    profile = getattr(options, request.game)
    if not profile.HasField(OPTION):
        setattr(profile, OPTION, True)
    return options


def sit_move(legal: Mapping[int, Sequence[pb.LegalAction]], gone: Iterable[int]) -> pb.Action | None:
    """The next sitting move the host plays, from each acting seat's legal actions: a seat sitting out whose
    person is back sits in first; then an away person's seat sits out. None when there is nothing to do."""
    away = frozenset(gone)
    for seat, entries in legal.items():
        for entry in entries:
            if entry.kind == SIT_IN and entry.target not in away:
                return pb.Action(seat=seat, kind=SIT_IN, target=entry.target)
    for seat, entries in legal.items():
        for entry in entries:
            if entry.kind == SIT_OUT and entry.target in away:
                return pb.Action(seat=seat, kind=SIT_OUT, target=entry.target)
    return None
