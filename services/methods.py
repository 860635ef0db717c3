"""TableService's methods as the call core serves them: each handler, its request message and its cost class."""

from __future__ import annotations

from mazziere.services.core.admission import CostClass
from mazziere.services.core.dispatch import Method, always
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.servicer import TableCore

SERVICE_NAME = "mazziere.v1.TableService"
SAMPLING_POLICIES = frozenset({"best"})
"""Auto-play policies that sample deals (tens to hundreds of milliseconds a move); the others are cheap."""


def act_cost(request: svc.ActRequest) -> CostClass:
    return CostClass.BOT if request.auto_play in SAMPLING_POLICIES else CostClass.MOVE


def table_methods(core: TableCore) -> list[Method]:
    """The served handlers: those of the answers that carry the table answer them written on demand
    (:class:`~mazziere.services.servicer.Written`), each transport taking the form it sends."""
    replay = always(CostClass.REPLAY)
    return [
        Method(SERVICE_NAME, "ListGames", core.list_games, svc.ListGamesRequest),
        Method(SERVICE_NAME, "CreateTable", core.answer_create_table, svc.CreateTableRequest, creates_table=True),
        Method(SERVICE_NAME, "Act", core.answer_act, svc.ActRequest, cost=act_cost),
        Method(SERVICE_NAME, "GetView", core.answer_get_view, svc.GetViewRequest),
        Method(SERVICE_NAME, "Replay", core.answer_replay, svc.ReplayRequest, cost=replay),
        Method(
            SERVICE_NAME,
            "StreamReplay",
            core.answer_stream_replay,
            svc.StreamReplayRequest,
            cost=replay,
            streaming=True,
        ),
        Method(SERVICE_NAME, "Advise", core.advise, svc.AdviseRequest, cost=always(CostClass.ADVICE)),
        Method(SERVICE_NAME, "Gather", core.gather, svc.GatherRequest),
    ]
