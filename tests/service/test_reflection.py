"""Server reflection under both names (v1 and v1alpha), on both servers, and the error reasons found through it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2 as rpb

from tests.service.conftest import BASE, KEYS, Running

NAMES = ("grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection")


def reflect(channel: grpc.Channel, service: str, *requests: rpb.ServerReflectionRequest) -> list[Any]:
    """One reflection stream on ``service`` (v1 and v1alpha share their messages on the wire)."""
    info = channel.stream_stream(
        f"/{service}/ServerReflectionInfo",
        request_serializer=rpb.ServerReflectionRequest.SerializeToString,
        response_deserializer=rpb.ServerReflectionResponse.FromString,
    )
    return list(info(iter(requests), timeout=20))


def files(response: Any) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    assert response.WhichOneof("message_response") == "file_descriptor_response", response
    protos = [
        descriptor_pb2.FileDescriptorProto.FromString(b)
        for b in response.file_descriptor_response.file_descriptor_proto
    ]
    return {p.name: p for p in protos}


@pytest.fixture
def channel() -> Iterator[grpc.Channel]:
    running = Running(replace(BASE, seal_keys=KEYS))
    try:
        yield running.channel
    finally:
        running.close()


@pytest.mark.parametrize("service", NAMES)
def test_reflection_lists_every_service_and_finds_the_error_reasons(channel: grpc.Channel, service: str) -> None:
    listed, by_symbol, by_name, service_file = reflect(
        channel,
        service,
        rpb.ServerReflectionRequest(list_services=""),
        rpb.ServerReflectionRequest(file_containing_symbol="mazziere.v1.ErrorReason"),
        rpb.ServerReflectionRequest(file_by_filename="mazziere/v1/errors.proto"),
        rpb.ServerReflectionRequest(file_containing_symbol="mazziere.v1.TableService"),
    )
    names = {s.name for s in listed.list_services_response.service}
    assert names == {"mazziere.v1.TableService", "grpc.health.v1.Health", *NAMES}

    for response in (by_symbol, by_name):  # what `grpcurl describe mazziere.v1.ErrorReason` asks for
        errors = files(response)["mazziere/v1/errors.proto"]
        assert errors.package == "mazziere.v1"
        (reason,) = [e for e in errors.enum_type if e.name == "ErrorReason"]
        assert "ERROR_REASON_STALE_SEQUENCE" in {v.name for v in reason.value}

    table = files(service_file)
    assert "mazziere/v1/service.proto" in table and "mazziere/v1/table.proto" in table  # with its imports


def test_reflection_answers_an_unknown_symbol_with_not_found(channel: grpc.Channel) -> None:
    for service in NAMES:
        (answer,) = reflect(channel, service, rpb.ServerReflectionRequest(file_containing_symbol="no.Such"))
        assert answer.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]
