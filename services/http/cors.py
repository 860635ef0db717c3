"""CORS for pages on other origins (``MAZZIERE_CORS_ORIGINS``): a preflight lists the methods served at the path
it asks about, and allows no other.

Starlette's middleware answers every preflight with one list of methods for the whole gateway, so a page was told
it may ``GET`` a Connect route or ``POST`` to ``/v1/games``. Here the list is read from the routes themselves:
each route whose path matches adds its methods (a static mount serves ``GET`` and ``HEAD``), except routes that
only refuse (Connect's plain 405 for any method but ``POST``). A path nothing serves gets a refused preflight.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import Any

from starlette.datastructures import Headers
from starlette.middleware.cors import ALL_METHODS, CORSMiddleware
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount
from starlette.types import ASGIApp, Receive, Scope, Send

STATIC_METHODS = frozenset({"GET", "HEAD"})
ALLOW_METHODS = "access-control-allow-methods"


def served_methods(routes: Iterable[BaseRoute], path: str, refusals: Collection[Callable[..., Any]] = ()) -> set[str]:
    """The methods some route of ``routes`` serves at ``path`` (a route whose endpoint is in ``refusals`` serves
    nothing: it only refuses)."""
    methods: set[str] = set()
    for route in routes:
        pattern = getattr(route, "path_regex", None)
        if pattern is None or not pattern.match(path):
            continue
        if isinstance(route, Mount):
            methods |= STATIC_METHODS
        elif getattr(route, "endpoint", None) not in refusals:
            methods |= set(getattr(route, "methods", None) or ())
    return methods


class ServedCors(CORSMiddleware):
    """Starlette's CORS middleware, whose preflights name only the methods ``served(path)`` returns."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        served: Callable[[str], Collection[str]],
        allow_origins: Collection[str],
        allow_headers: Collection[str],
        expose_headers: Collection[str],
        max_age: int,
    ) -> None:
        super().__init__(
            app,
            allow_origins=allow_origins,
            allow_methods=ALL_METHODS,
            allow_headers=allow_headers,
            expose_headers=expose_headers,
            max_age=max_age,
        )
        self.served = served

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "OPTIONS":
            headers = Headers(scope=scope)
            if "origin" in headers and "access-control-request-method" in headers:
                await self.preflight_at(scope["path"], headers)(scope, receive, send)
                return
        await super().__call__(scope, receive, send)

    def preflight_at(self, path: str, headers: Headers) -> Response:
        """The preflight's answer as Starlette makes it (origin and headers checked), with the path's methods."""
        answer = self.preflight_response(request_headers=headers)
        methods = sorted(self.served(path))
        if methods:
            answer.headers[ALLOW_METHODS] = ", ".join(methods)
        else:
            del answer.headers[ALLOW_METHODS]
        if answer.status_code == 200 and headers["access-control-request-method"] not in methods:
            refused = {k: v for k, v in answer.headers.items() if k not in ("content-length", "content-type")}
            return PlainTextResponse("Disallowed CORS method", status_code=400, headers=refused)
        return answer
