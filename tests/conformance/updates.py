"""The service's fast update (protobuf bytes written by :mod:`services.wire.proto`) against a plain reference."""

from __future__ import annotations

from google.protobuf.message_factory import GetMessageClass

from mazziere import engine
from mazziere.engine.table import Event, TableState
from mazziere.engine.visibility import Viewer, redact
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.table.games import served_games
from mazziere.services.wire.answers import seat_update
from mazziere.services.wire.codec import to_proto

_VIEW_FIELDS = pb.TableView.DESCRIPTOR.fields_by_name


def reference_update(state: TableState, viewer: Viewer, events: tuple[Event, ...]) -> pb.SeatUpdate:
    """The update built message by message with the generic converter (slow, plain, obviously right)."""

    view_class = GetMessageClass(_VIEW_FIELDS[state.game].message_type)
    return pb.SeatUpdate(
        seat=viewer,
        view=pb.TableView(**{state.game: to_proto(engine.view(state, viewer), view_class)}),
        events=[to_proto(e, pb.Event) for e in redact(events, viewer)],
        legal_actions=[]
        if viewer is None
        else [to_proto(a, pb.LegalAction) for a in engine.legal_actions(state, viewer)],
        next_draw=state.draws,
        commitment=state.commitment.hex(),
    )


def check_updates(state: TableState, events: tuple[Event, ...]) -> None:
    """Every viewer's fast update equals the reference, field for field (for the games the contract serves)."""
    if state.game not in served_games():
        return
    for viewer in [None, *range(state.seat_count)]:
        fast = pb.SeatUpdate.FromString(seat_update(state, viewer, events))
        assert fast == reference_update(state, viewer, events), f"the fast update of {viewer} differs"
