"""TableService's methods as the call core serves them: each handler, its request message and its cost class."""

from __future__ import annotations

from mazziere.services.core.admission import CostClass
from mazziere.services.core.dispatch import Method, always
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.table.service import TableService

TABLE_SERVICE = svc.DESCRIPTOR.services_by_name["TableService"]
SERVICE_NAME = TABLE_SERVICE.full_name
SAMPLING_POLICIES = frozenset({"best"})
"""Auto-play policies that sample deals (tens to hundreds of milliseconds a move); the others are cheap."""


def act_cost(request: svc.ActRequest) -> CostClass:
    return CostClass.BOT if request.auto_play in SAMPLING_POLICIES else CostClass.MOVE


def table_methods(service: TableService) -> list[Method]:
    """The served handlers: those of the answers that carry the table answer them written on demand
    (:class:`~mazziere.services.wire.answers.Written`), each transport taking the form it sends."""
    replay = always(CostClass.REPLAY)
    return [
        Method(SERVICE_NAME, "ListGames", service.list_games, svc.ListGamesRequest),
        Method(SERVICE_NAME, "CreateTable", service.answer_create_table, svc.CreateTableRequest, creates_table=True),
        Method(SERVICE_NAME, "Act", service.answer_act, svc.ActRequest, cost=act_cost),
        Method(SERVICE_NAME, "GetView", service.answer_get_view, svc.GetViewRequest),
        Method(SERVICE_NAME, "Replay", service.answer_replay, svc.ReplayRequest, cost=replay),
        Method(
            SERVICE_NAME,
            "StreamReplay",
            service.answer_stream_replay,
            svc.StreamReplayRequest,
            cost=replay,
            streaming=True,
        ),
        Method(SERVICE_NAME, "Advise", service.advise, svc.AdviseRequest, cost=always(CostClass.ADVICE)),
        Method(SERVICE_NAME, "Gather", service.gather, svc.GatherRequest),
    ]
