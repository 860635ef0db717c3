"""The one interface the host reaches TableService through: :class:`TableClient`, in this process
(:class:`LocalTables`) or over a gRPC channel to the engine's replicas (:class:`RemoteTables`).

In process, a host call is admitted once, at the door: its engine work runs without a second admission (a move's
on the event loop, the costlier classes' on the call core's workers of their class), and the answer comes back as
the engine's values written on demand (:class:`WrittenReply`), so each audience's update is written once, from the
engine's values, and never parsed.
Over a channel the answer is the message the channel parsed (:class:`MessageReply`). Both read alike: a
:class:`Reply`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from google.protobuf.message import Message

from mazziere.engine.visibility import Viewer
from mazziere.services.core.admission import CostClass
from mazziere.services.core.backend import Backend
from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Dispatcher
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.table.methods import act_cost
from mazziere.services.table.service import TableService
from mazziere.services.wire import protojson
from mazziere.services.wire.answers import TRANSFER, TRANSFER_JSON, Sent, TableAnswer
from mazziere.services.wire.proto import write_as


class Reply(Protocol):
    """What the host reads of an answer that carries the table (CreateTable's, Act's, GetView's)."""

    table_id: str
    token: bytes
    """The sealed state (empty for GetView)."""
    seq: int
    to_act: tuple[int, ...]
    is_over: bool
    seat_keys: tuple[str, ...]
    """Each seat's key, by seat (CreateTable's)."""

    def action(self) -> bytes:
        """The action played, as an ``Action`` message's bytes (empty if none)."""
        ...

    def update(self, viewer: Viewer) -> bytes:
        """What ``viewer`` sees: a ``SeatUpdate``'s bytes."""
        ...

    def update_json(self, viewer: Viewer) -> dict[str, Any]:
        """What ``viewer`` sees: a ``SeatUpdate``'s JSON object (never changed by the caller)."""
        ...

    def transfers(self) -> list[bytes]:
        """The settlement: each ``Transfer``'s bytes."""
        ...

    def transfers_json(self) -> list[dict[str, Any]]: ...


class TableClient(Protocol):
    """TableService as the host calls it; each method raises ServiceError on a refusal."""

    async def create_table(self, request: svc.CreateTableRequest, call: Call) -> Reply: ...

    async def act(self, request: svc.ActRequest, call: Call) -> Reply: ...

    async def get_view(self, request: svc.GetViewRequest, call: Call) -> Reply: ...

    async def advise(self, request: svc.AdviseRequest, call: Call) -> svc.AdviseResponse: ...

    async def gather(self, request: svc.GatherRequest, call: Call) -> svc.GatherResponse: ...


class WrittenReply:
    """A reply of this process: the engine's values, each viewer's update written once on first use."""

    __slots__ = ("answer", "is_over", "seat_keys", "seq", "table_id", "to_act", "token")

    def __init__(self, answer: TableAnswer[Any]) -> None:
        self.answer = answer
        state = answer.state
        self.table_id: str = state.table_id
        self.token: bytes = answer.head.get("state", b"")
        self.seq: int = state.seq
        self.to_act = answer.to_act()
        self.is_over = answer.is_over()
        self.seat_keys = tuple(key.key for key in answer.head.get("seat_keys", ()))

    def action(self) -> bytes:
        played = self.answer.head.get("action")
        if played is None:
            return b""
        if type(played) is Sent:
            return played.message.SerializeToString()
        return write_as(played, pb.Action.DESCRIPTOR)

    def update(self, viewer: Viewer) -> bytes:
        return self.answer.update(viewer)

    def update_json(self, viewer: Viewer) -> dict[str, Any]:
        return self.answer.update_json(viewer)

    def transfers(self) -> list[bytes]:
        return [TRANSFER(t) for t in self.answer.out.settlement]

    def transfers_json(self) -> list[dict[str, Any]]:
        return [TRANSFER_JSON(t) for t in self.answer.out.settlement]


class MessageReply:
    """A reply from another process: the response message the channel parsed."""

    __slots__ = ("_action", "_settlement", "_updates", "is_over", "seat_keys", "seq", "table_id", "to_act", "token")

    def __init__(self, response: Any, table_id: str = "") -> None:
        updates: Sequence[pb.SeatUpdate] = response.updates if hasattr(response, "updates") else [response.update]
        self._updates = {(u.seat if u.HasField("seat") else None): u for u in updates}
        self.table_id = getattr(response, "table_id", "") or table_id
        self.token = getattr(response, "state", b"")
        self.seq = response.seq
        self.to_act = tuple(response.to_act)
        self.is_over = response.is_over
        keys = getattr(response, "seat_keys", ())
        self.seat_keys = tuple(k.key for k in sorted(keys, key=lambda k: k.seat))
        played = "action" in response.DESCRIPTOR.fields_by_name and response.HasField("action")  # Act's alone
        self._action: Message | None = response.action if played else None
        self._settlement: Sequence[pb.Transfer] = getattr(response, "settlement", ())

    def action(self) -> bytes:
        return b"" if self._action is None else self._action.SerializeToString()

    def update(self, viewer: Viewer) -> bytes:
        return self._updates[viewer].SerializeToString()

    def update_json(self, viewer: Viewer) -> dict[str, Any]:
        return protojson.to_dict(self._updates[viewer])

    def transfers(self) -> list[bytes]:
        return [t.SerializeToString() for t in self._settlement]

    def transfers_json(self) -> list[dict[str, Any]]:
        return [protojson.to_dict(t) for t in self._settlement]


class LocalTables:
    """TableService in this process: its handlers run within the host call's own admission (no second ticket),
    under its deadline: a move's on the event loop, the costlier classes' on the core's workers of their class."""

    def __init__(self, service: TableService, dispatcher: Dispatcher) -> None:
        self.service = service
        self.dispatcher = dispatcher

    async def create_table(self, request: svc.CreateTableRequest, call: Call) -> Reply:
        return WrittenReply(await self._run(CostClass.MOVE, self.service.answer_create_table, request, call))

    async def act(self, request: svc.ActRequest, call: Call) -> Reply:
        return WrittenReply(await self._run(act_cost(request), self.service.answer_act, request, call))

    async def get_view(self, request: svc.GetViewRequest, call: Call) -> Reply:
        return WrittenReply(await self._run(CostClass.MOVE, self.service.answer_get_view, request, call))

    async def advise(self, request: svc.AdviseRequest, call: Call) -> svc.AdviseResponse:
        answer: svc.AdviseResponse = await self._run(CostClass.ADVICE, self.service.advise, request, call)
        return answer

    async def gather(self, request: svc.GatherRequest, call: Call) -> svc.GatherResponse:
        answer: svc.GatherResponse = await self._run(CostClass.MOVE, self.service.gather, request, call)
        return answer

    async def _run(self, cost: CostClass, handler: Any, request: Message, call: Call) -> Any:
        """``handler(request)`` as :meth:`Dispatcher.run` runs it (a move's on the loop, else on the workers of
        ``cost``), under the host call's deadline (and, for the costly classes, the server's budget)."""
        return await self.dispatcher.run(cost, handler, request, call)


class RemoteTables:
    """TableService over a gRPC channel (the engine's replicas): each call a client's, admitted there."""

    def __init__(self, backend: Backend, *, timeout: float, api_key: str = "") -> None:
        self.backend = backend
        self.timeout = timeout
        self.metadata = [("authorization", f"Bearer {api_key}")] if api_key else []

    async def create_table(self, request: svc.CreateTableRequest, call: Call) -> Reply:
        return MessageReply(await self._call("CreateTable", request, call))

    async def act(self, request: svc.ActRequest, call: Call) -> Reply:
        return MessageReply(await self._call("Act", request, call), request.table_id)

    async def get_view(self, request: svc.GetViewRequest, call: Call) -> Reply:
        return MessageReply(await self._call("GetView", request, call), request.table_id)

    async def advise(self, request: svc.AdviseRequest, call: Call) -> svc.AdviseResponse:
        answer: svc.AdviseResponse = await self._call("Advise", request, call)
        return answer

    async def gather(self, request: svc.GatherRequest, call: Call) -> svc.GatherResponse:
        answer: svc.GatherResponse = await self._call("Gather", request, call)
        return answer

    async def _call(self, rpc: str, request: Message, call: Call) -> Any:
        return await self.backend.call(
            rpc, request, Call(metadata=self.metadata), call.time_remaining() or self.timeout
        )
