"""Sitting out the seat of a person who left, at a table that follows presence (``follow_presence``).

Where the game allows it (the option ``sit_out`` of Sette e mezzo and Saltacavallo, which such a table opens with
unless its opener set it), the host sits an away person's seat out of the next hands at the hand boundary, instead
of playing its turns cautiously, and sits it in again at the boundary once its person is back. The engine offers
these moves to the seat that deals, between hands (``SIT_OUT``/``SIT_IN`` with a ``target``), so the host reads
them from that seat's legal actions and plays them for it; where they are not offered (Trentuno, the seat that
deals, a table opened with ``sit_out`` off) the away seat is played cautiously as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence

from mazziere.services.core.call import Call
from mazziere.services.core.logs import get_logger
from mazziere.services.errors import ServiceError, ServiceReason
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.host.settings import Settings
from mazziere.services.host.store import TableRecord
from mazziere.services.table.client import Reply, TableClient

Gone = Callable[[TableRecord], Awaitable[frozenset[int]]]
"""The person seats of a table away past the grace (the host's attendance)."""
Move = Callable[[str, int, pb.Action], Awaitable[None]]
"""The host's move: a table, the seq it is played at, the action."""
Reread = Callable[[str], Awaitable[TableRecord]]
"""The table, read again from the store."""
Legal = dict[int, list[pb.LegalAction]]

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
    person is back sits in first; then an away person's seat sits out, unless it is the last seat dealt in beside
    the bank (a bank alone would have nobody to deal to: that seat is played cautiously instead). None when there
    is nothing to do."""
    away = frozenset(gone)
    for seat, entries in legal.items():
        for entry in entries:
            if entry.kind == SIT_IN and entry.target not in away:
                return pb.Action(seat=seat, kind=SIT_IN, target=entry.target)
    for seat, entries in legal.items():
        dealt_in = {entry.target for entry in entries if entry.kind == SIT_OUT}
        for entry in entries:
            if entry.kind == SIT_OUT and entry.target in away and len(dealt_in) > 1:
                return pb.Action(seat=seat, kind=SIT_OUT, target=entry.target)
    return None


def check_person_move(action: pb.Action, settings: Settings) -> None:
    """A person's own SIT_OUT or SIT_IN is refused at a table that follows presence: the host sits seats out and in,
    by who is there."""
    if action.kind in (SIT_OUT, SIT_IN) and settings.follow_presence:
        raise ServiceError.of(
            ServiceReason.INVALID_REQUEST,
            "at a table that follows presence the host sits seats out and in, by who is there",
        )


class Sitter:
    """The host's sitting moves at the tables that follow presence: it finds them in the legal actions of the seats
    to act (from a move's reply, or read from the engine) and plays them with the host's ``move``."""

    def __init__(self, tables: TableClient, gone: Gone, move: Move, reread: Reread) -> None:
        self.tables = tables
        self.gone = gone
        self.move = move
        self.reread = reread
        self.log = get_logger("mazziere.host.sitting")

    async def after(self, record: TableRecord, reply: Reply) -> bool:
        """After a move at ``record``'s table: the next sitting move, if the move ended a hand (``reply``: its
        answer, which holds every seat's legal actions)."""
        legal = {seat: _legal(reply.update(seat)) for seat in reply.to_act}
        return await self._sit(record, reply.seq, legal)

    async def due(self, record: TableRecord, to_act: Sequence[int]) -> bool:
        """When the turn of a seat to act falls due: a sitting move first, if the table is between hands."""
        return await self._sit(record, record.seq, await self._legal(record, to_act))

    async def now(self, record: TableRecord, returned: bool) -> TableRecord:
        """A person came (a Watch, a look at the table; ``returned``: their coming changed the table's state, as a
        person back from away does): between hands their seat sits in again (and any away person's seat sits out)
        at once, not at the next boundary. The record, as it is now. With nobody back and nobody away there is
        nothing to do, and the engine is not asked (a look at the table costs no engine call)."""
        settings = Settings.decode(record.settings)
        if record.closed or not settings.follow_presence:
            return record
        if not returned and not await self.gone(record):
            return record
        try:
            view = await self.tables.get_view(svc.GetViewRequest(table_id=record.table_id, state=record.token), Call())
            if view.is_over or not await self.due(record, view.to_act):
                return record
        except ServiceError as exc:
            self.log.info("sit_move_refused", table_id=record.table_id, reason=exc.reason)
            return record
        return await self.reread(record.table_id)

    async def _sit(self, record: TableRecord, seq: int, legal: Legal) -> bool:
        """Play the sitting move the acting seats' ``legal`` actions offer for who is gone, at ``seq``; the move's
        own follow-up makes the next. Whether a move was made (a refusal, such as a move made first elsewhere, is
        no error: the table plays on as it is)."""
        if not any(entry.kind in (SIT_OUT, SIT_IN) for entries in legal.values() for entry in entries):
            return False  # not between hands, or the game offers no sitting move: no presence read
        try:
            action = sit_move(legal, await self.gone(record))
            if action is None:
                return False
            await self.move(record.table_id, seq, action)
        except ServiceError as exc:
            self.log.info("sit_move_refused", table_id=record.table_id, reason=exc.reason)
            return False
        return True

    async def _legal(self, record: TableRecord, to_act: Sequence[int]) -> Legal:
        """The legal actions of each seat to act, read from the engine with the seat's key."""
        legal: Legal = {}
        for seat in to_act:
            request = svc.GetViewRequest(table_id=record.table_id, state=record.token, seat=seat)
            request.seat_key = record.seat_keys[seat]
            legal[seat] = _legal((await self.tables.get_view(request, Call())).update(seat))
        return legal


def _legal(update: bytes) -> list[pb.LegalAction]:
    """The legal actions of a seat's update (a ``SeatUpdate``'s bytes)."""
    return list(pb.SeatUpdate.FromString(update).legal_actions)
