"""Property-based fuzzing of the whole API from its own OpenAPI document (schemathesis).

Every generated request, valid or not, must get an answer that is not a 5xx, whose status is documented, and
whose body matches the documented schema. Bounded: a fixed number of examples per route, derandomized.

Two of schemathesis' checks do not apply. ``positive_data_acceptance``: a well-formed request is still refused
(400) when its token or move is not a real one, which random data never is. ``negative_data_rejection``: the
document describes what the gateway prints, and proto3 JSON reads more, as the spec says (``null`` for any
field, the proto field names, numbers for 64-bit integers, enum numbers).
"""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import negative_data_rejection, positive_data_acceptance

from mazziere.services.gateway.app import create_app
from tests.gateway.conftest import BASE, Gateway


class _NoBackend:
    """The document does not depend on the backend; the calls go to the running gateway."""

    async def call(self, rpc: str, request: Any, request_id: str) -> Any:
        raise AssertionError("not called")

    async def ready(self) -> bool:
        return False

    async def close(self) -> None:
        return None


schema = schemathesis.openapi.from_dict(create_app(_NoBackend(), BASE).openapi())


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_the_api_matches_its_document(case: Any, gateway: Gateway) -> None:
    case.call_and_validate(base_url=gateway.url, excluded_checks=[positive_data_acceptance, negative_data_rejection])
