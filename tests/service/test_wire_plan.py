"""The one plan both writer families follow: every field of a message classified once (how it is written, what one
item of it is), and what each family writes from it agreeing with the parsed message."""

from __future__ import annotations

from typing import NamedTuple

import pytest
from google.protobuf import json_format

from mazziere import engine
from mazziere.engine.cards import Card
from mazziere.engine.events import EventKind
from mazziere.engine.visibility import Audience, TableCard
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.wire import jsondata, proto
from mazziere.services.wire.plan import Kind, Shape, plan


def test_an_events_fields_in_number_order_with_their_shapes_and_items() -> None:
    fields = plan(engine.Event, pb.Event.DESCRIPTOR, ("auto",))
    assert [f.number for f in fields] == sorted(f.number for f in fields)
    classified = {f.name: (f.shape, f.item.kind) for f in fields}
    assert classified["kind"] == (Shape.SCALAR, Kind.TEXT)
    assert classified["seat"] == (Shape.OPTIONAL, Kind.INT32)
    assert classified["cards"] == (Shape.MESSAGES, Kind.TABLE_CARD)
    assert classified["amount"] == (Shape.SCALAR, Kind.INT64)
    assert classified["seen_by"] == (Shape.MESSAGE, Kind.AUDIENCE)
    assert classified["auto"] == (Shape.SET, Kind.BOOL)
    assert classified["at"] == (Shape.PACKED, Kind.INT32)


class Reasonless(NamedTuple):
    payer: int


def test_a_true_field_must_be_a_boolean_of_the_message() -> None:
    with pytest.raises(TypeError, match="not a boolean"):
        plan(Reasonless, pb.Transfer.DESCRIPTOR, ("reason",))
    with pytest.raises(TypeError, match="no field 'nothing'"):
        plan(Reasonless, pb.Transfer.DESCRIPTOR, ("nothing",))


def test_both_families_write_what_the_message_parsed_from_the_bytes_prints() -> None:
    seats = Audience(seats=frozenset({0, 2}))
    event = engine.Event(
        EventKind.HAND_OVER,
        seat=0,
        cards=(TableCard(Card.parse("7d"), seats), TableCard(None, seats)),
        amount=-3,
        seen_by=seats,
        at=(1, 200),
    )
    for true in ((), ("auto",)):
        message = pb.Event.FromString(proto.writer(engine.Event, pb.Event.DESCRIPTOR, true)(event))
        assert message.auto is bool(true) and message.amount == -3 and list(message.at) == [1, 200]
        assert jsondata.writer(engine.Event, pb.Event.DESCRIPTOR, true)(event) == json_format.MessageToDict(message)
