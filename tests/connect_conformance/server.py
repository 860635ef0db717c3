"""The server under test of the Connect conformance suite (``connectconformance --mode server``).

``python -m tests.connect_conformance.server GENERATED`` (``GENERATED``: the folder holding the suite's Python
code, made by the test) reads a size-prefixed ``ServerCompatRequest`` from stdin, serves
``ConformanceService`` on 127.0.0.1 at a free port through the project's own pieces (the call core's
Dispatcher with the reference handler's Methods, InProcessBackend, the Connect and gRPC-Web routes of
``services/http/connect.py``, uvicorn as ``mazziere serve`` runs it), writes a size-prefixed
``ServerCompatResponse`` to stdout and serves until SIGTERM.
"""

from __future__ import annotations

import asyncio
import importlib
import signal
import sys
from pathlib import Path
from typing import Any, BinaryIO

from fastapi import FastAPI
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from mazziere.services.core.admission import Admission, CostClass, Tenants
from mazziere.services.core.backend import InProcessBackend
from mazziere.services.core.dispatch import Dispatcher
from mazziere.services.core.metrics import Metrics
from mazziere.services.core.observe import Observer
from mazziere.services.http import connect
from mazziere.services.http.server import RestServer, bind
from tests.connect_conformance.service import SERVICE_NAME, conformance_methods

HOST = "127.0.0.1"
WORKERS = 32
"""Threads for the handlers, which mostly sleep (response delays): more than the suite's parallel calls."""
MAX_BODY = 1 << 20
TIMEOUT_SECONDS = 30.0


def read_prefixed(stream: BinaryIO) -> bytes:
    """One message as the suite frames it: a 4-byte big-endian length, then that many bytes."""
    size = int.from_bytes(stream.read(4), "big")
    data = stream.read(size)
    if len(data) != size:
        raise SystemExit(f"stdin ended after {len(data)} of {size} bytes")
    return data


def write_prefixed(stream: BinaryIO, data: bytes) -> None:
    stream.write(len(data).to_bytes(4, "big") + data)
    stream.flush()


def make_app(pb: Any, *, max_body: int) -> FastAPI:
    """ConformanceService through the call core and the Connect routes, as TableService is served."""
    dispatcher = Dispatcher(
        conformance_methods(pb),
        Observer(Metrics(), games=(), log_calls=False),
        Admission({CostClass.MOVE: 4 * WORKERS}, Tenants(), per_table=1),
        {CostClass.MOVE: WORKERS},
        budget_seconds=TIMEOUT_SECONDS,
        write_seconds=TIMEOUT_SECONDS,
        max_message_bytes=MAX_BODY,
    )

    async def ready() -> bool:
        return True

    service = pb.DESCRIPTOR.services_by_name["ConformanceService"]
    assert service.full_name == SERVICE_NAME
    backend = InProcessBackend(dispatcher, service, timeout=TIMEOUT_SECONDS, ready=ready)
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    connect.add_routes(app.router, backend, max_body=max_body, read_timeout=10.0, service=service)
    app.add_exception_handler(StarletteHTTPException, _plain)
    return app


async def _plain(request: Request, exc: Exception) -> Response:
    """A path nobody serves: a plain 404, as a bare HTTP server answers (``mazziere serve`` answers its REST
    error envelope there, which is no Connect error either)."""
    assert isinstance(exc, StarletteHTTPException)
    return PlainTextResponse(str(exc.detail), exc.status_code, headers=exc.headers)


async def serve(app: FastAPI, response: Any) -> None:
    sock = bind(HOST, 0)
    server = RestServer(app, sock)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: setattr(server, "should_exit", True))
    running = asyncio.ensure_future(server.run_on_socket())
    while not server.started:
        if running.done():
            running.result()
            raise SystemExit("the server stopped before it started")
        await asyncio.sleep(0.01)
    write_prefixed(sys.stdout.buffer, response(host=HOST, port=sock.getsockname()[1]).SerializeToString())
    await running


def main(generated: str) -> None:
    sys.path.insert(0, str(Path(generated).resolve()))
    compat = importlib.import_module("connectrpc.conformance.v1.server_compat_pb2")
    pb = importlib.import_module("connectrpc.conformance.v1.service_pb2")
    request = compat.ServerCompatRequest.FromString(read_prefixed(sys.stdin.buffer))
    if request.use_tls:
        raise SystemExit("TLS is not served here: the config claims no TLS")
    limit = request.message_receive_limit or MAX_BODY
    asyncio.run(serve(make_app(pb, max_body=limit), compat.ServerCompatResponse))


if __name__ == "__main__":
    main(*sys.argv[1:])
