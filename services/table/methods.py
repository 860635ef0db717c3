"""TableService's methods as the call core serves them, made from the contract: each RPC's handler (the method of
:class:`~mazziere.services.table.service.TableService` named after it), its request message and its cost class.
A new RPC needs its handler and, if it costs more than a move, a line in :data:`COSTS`."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from google.protobuf.message_factory import GetMessageClass

from mazziere.services.core.admission import CostClass
from mazziere.services.core.dispatch import Method, a_move, always
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.table.service import TableService

TABLE_SERVICE = svc.DESCRIPTOR.services_by_name["TableService"]
SERVICE_NAME = TABLE_SERVICE.full_name
SAMPLING_POLICIES = frozenset({"best"})
"""Auto-play policies that sample deals (tens to hundreds of milliseconds a move); the others are cheap."""


def act_cost(request: svc.ActRequest) -> CostClass:
    return CostClass.BOT if request.auto_play in SAMPLING_POLICIES else CostClass.MOVE


COSTS: dict[str, Callable[[Any], CostClass]] = {
    "Act": act_cost,
    "Advise": always(CostClass.ADVICE),
    "Replay": always(CostClass.REPLAY),
    "StreamReplay": always(CostClass.REPLAY),
}
"""What a call of each RPC costs, where more than a move."""


def handler_name(rpc: str) -> str:
    """The handler of an RPC: ``CreateTable`` -> ``create_table``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", rpc).lower()


def table_methods(service: TableService) -> list[Method]:
    """Every RPC of TableService with its handler: ``answer_<name>`` where the answer is written on demand
    (:class:`~mazziere.services.wire.answers.Written`, each transport taking the form it sends), else ``<name>``."""
    methods = []
    for rpc in TABLE_SERVICE.methods:
        name = handler_name(rpc.name)
        handler = getattr(service, f"answer_{name}", None) or getattr(service, name)
        methods.append(
            Method(
                SERVICE_NAME,
                rpc.name,
                handler,
                GetMessageClass(rpc.input_type),
                cost=COSTS.get(rpc.name, a_move),
                streaming=rpc.server_streaming,
                creates_table=rpc.name == "CreateTable",
            )
        )
    return methods
