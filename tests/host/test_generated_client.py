"""The host over REST through a client another tool generates from the OpenAPI document: openapi-python-client
writes a typed Python package (a module per operation, a model per schema, the capability as an API-key client),
and that package plays the same whole hosted hand as ``test_host_rest.py``'s client.

The generator is installed from the registry into a virtual environment of its own (its dependencies are not the
server's), so the test is long (``pytest -m long``): about a minute, mostly the install.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from tests.host.test_host_rest import BASE_URL, hosting, play_a_hand

pytestmark = pytest.mark.long
GENERATOR = "openapi-python-client==0.29.1"
PACKAGE = "generated_mazziere_rest"
INSTALL_SECONDS = 600
"""A bound on the generator's install (downloads included); not a speed check."""


def run(*args: str | Path) -> None:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=INSTALL_SECONDS)
    assert done.returncode == 0, f"{' '.join(map(str, args))}:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The package openapi-python-client writes from the server's OpenAPI document, imported."""
    scratch = tmp_path_factory.mktemp("openapi-client")
    venv = scratch / "venv"
    run(sys.executable, "-m", "venv", venv)
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", GENERATOR)
    document = scratch / "openapi.json"
    document.write_text(json.dumps(_openapi_document(scratch / "data")))
    run(venv / "bin" / "openapi-python-client", "generate", "--path", document, "--output-path", scratch / PACKAGE,
        "--meta", "none")  # fmt: skip
    sys.path.insert(0, str(scratch))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(scratch))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _openapi_document(data_dir: Path) -> Any:
    async def fetch() -> Any:
        async with hosting(data_dir) as transport, httpx.AsyncClient(transport=transport, base_url=BASE_URL) as http:
            return (await http.get("/openapi.json")).json()

    return asyncio.run(fetch())


class GeneratedApi:
    """The generated package's operations behind the interface the hand is played through: each call goes through
    the operation's module (``api.host_service.play``), its request model and its typed answer."""

    def __init__(self, package: ModuleType, transport: httpx.ASGITransport) -> None:
        self.package = package
        self.transport = transport

    def _client(self, secret: str, params: dict[str, str]) -> Any:
        args = {"base_url": BASE_URL, "httpx_args": {"transport": self.transport, "params": params}}
        if secret:
            return self.package.AuthenticatedClient(
                token=secret, prefix="", auth_header_name="X-Table-Capability", **args
            )
        return self.package.Client(**args)

    async def call(self, operation: str, body: dict[str, Any], secret: str = "", **params: str) -> httpx.Response:
        module_name = re.sub(r"(?<!^)(?=[A-Z])", "_", operation).lower()
        endpoint = importlib.import_module(f"{self.package.__name__}.api.host_service.{module_name}")
        models = importlib.import_module(f"{self.package.__name__}.models")
        request = getattr(models, f"{operation}Request").from_dict(body)
        answer = await endpoint.asyncio_detailed(client=self._client(secret, params), body=request)
        expected = getattr(models, f"{operation}Response") if answer.status_code == 200 else models.Error
        assert isinstance(answer.parsed, expected), (operation, answer.status_code, answer.content)
        return httpx.Response(answer.status_code, json=answer.parsed.to_dict())

    async def ok(self, operation: str, body: dict[str, Any], secret: str = "") -> dict[str, Any]:
        answer = await self.call(operation, body, secret)
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        return result


async def test_a_whole_hosted_hand_through_a_generated_openapi_client(generated: ModuleType, tmp_path: Path) -> None:
    async with hosting(tmp_path) as transport:
        await play_a_hand(GeneratedApi(generated, transport))
