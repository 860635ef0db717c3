"""Security headers on every HTTP answer of the gateway.

A pure ASGI middleware adds them to each ``http.response.start`` message, whatever route, error handler or
middleware made it; bodies pass through untouched, so a stream stays a stream. A header the answer already has is
left as it is (``/docs`` sets its own Content-Security-Policy). Every answer gets:

- ``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY`` and ``Referrer-Policy: no-referrer``;
- a Content-Security-Policy: :data:`WEB_POLICY` for the web table, :data:`API_POLICY` (load nothing) elsewhere;
- ``Cache-Control: no-store``, except the static files of the web table and of Swagger UI: answers carry state
  tokens and seat keys, which no browser or proxy cache should keep.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

API_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
"""JSON, protobuf and error answers load nothing and may be framed by nobody."""
WEB_POLICY = "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
"""The web table: its script, style sheet, icon and API calls from this origin only; no inline script or style."""

_COMMON = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]
_NO_STORE = (b"cache-control", b"no-store")
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)


def docs_policy(html: bytes) -> str:
    """The CSP of Swagger UI's page ``html``: its files from here, each of its inline scripts by its SHA-256, the
    ``data:`` images its style sheet holds, and the OpenAPI document fetched from here."""
    hashes = "".join(
        f" 'sha256-{base64.b64encode(hashlib.sha256(script).digest()).decode()}'"
        for script in _INLINE_SCRIPT.findall(html)
    )
    return (
        f"default-src 'self'; script-src 'self'{hashes}; img-src 'self' data:; object-src 'none'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


class SecurityHeaders:
    """Adds the headers to every HTTP answer; ``web``: the web table's path; ``static``: path prefixes of static
    files, which may be cached."""

    def __init__(self, app: ASGIApp, *, web: str, static: Sequence[str]) -> None:
        self.app = app
        self.web = web
        self.static = tuple(static)
        self.by_kind = {
            (of_web, cached): [
                *_COMMON,
                (b"content-security-policy", (WEB_POLICY if of_web else API_POLICY).encode()),
                *([] if cached else [_NO_STORE]),
            ]
            for of_web in (False, True)
            for cached in (False, True)
        }
        """The headers of an answer by (of the web table, a static file)."""

    def headers_for(self, path: str) -> list[tuple[bytes, bytes]]:
        web = path == self.web or path.startswith(self.web + "/")
        return self.by_kind[web, path.startswith(self.static)]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self.headers_for(scope.get("path", ""))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in extra if name not in present]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)
