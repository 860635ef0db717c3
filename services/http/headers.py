"""Security headers on every HTTP answer of the gateway.

A pure ASGI middleware adds them to each ``http.response.start`` message, whatever route, error handler or
middleware made it; bodies pass through untouched, so a stream stays a stream. A header the answer already has is
left as it is (``/docs`` sets its own Content-Security-Policy). Every answer gets:

- ``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY`` and ``Referrer-Policy: no-referrer``;
- ``Cross-Origin-Opener-Policy: same-origin`` (a page opened from another site, say an invite link from a chat,
  shares no window with it) and ``Cross-Origin-Resource-Policy: same-origin`` (no other site embeds an answer as
  a script, an image or a frame; calls from allowed origins are CORS requests, which this does not touch);
- a Content-Security-Policy: :data:`WEB_POLICY` for the web table, :data:`API_POLICY` (load nothing) elsewhere;
- a Permissions-Policy: :data:`PAGE_PERMISSIONS` for the two pages (the web table, which copies invite links, and
  Swagger UI at ``/docs``), :data:`API_PERMISSIONS` (every feature off) elsewhere;
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

_FEATURES_OFF = (
    "accelerometer",
    "autoplay",
    "camera",
    "clipboard-read",
    "display-capture",
    "encrypted-media",
    "fullscreen",
    "geolocation",
    "gyroscope",
    "magnetometer",
    "microphone",
    "midi",
    "payment",
    "picture-in-picture",
    "publickey-credentials-get",
    "screen-wake-lock",
    "sync-xhr",
    "usb",
    "xr-spatial-tracking",
)
"""Browser features nothing served here uses (each one Chromium knows: an unknown name is a console warning)."""
API_PERMISSIONS = ", ".join(f"{feature}=()" for feature in (*_FEATURES_OFF, "clipboard-write"))
"""Every feature off: an answer of the API is no page."""
PAGE_PERMISSIONS = ", ".join([*(f"{feature}=()" for feature in _FEATURES_OFF), "clipboard-write=(self)"])
"""The pages: every feature off but writing to the clipboard, from this origin only (the web table's "copy the
invite link")."""

_COMMON = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
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
    """Adds the headers to every HTTP answer; ``web``: the web table's path; ``pages``: the paths of the other
    pages (the documentation's); ``static``: path prefixes of static files, which may be cached."""

    def __init__(self, app: ASGIApp, *, web: str, static: Sequence[str], pages: Sequence[str] = ()) -> None:
        self.app = app
        self.web = web
        self.pages = frozenset(pages)
        self.static = tuple(static)
        self.by_kind = {
            (of_web, page, cached): [
                *_COMMON,
                (b"content-security-policy", (WEB_POLICY if of_web else API_POLICY).encode()),
                (b"permissions-policy", (PAGE_PERMISSIONS if of_web or page else API_PERMISSIONS).encode()),
                *([] if cached else [_NO_STORE]),
            ]
            for of_web in (False, True)
            for page in (False, True)
            for cached in (False, True)
        }
        """The headers of an answer by (of the web table, the documentation's page, a static file)."""

    def headers_for(self, path: str) -> list[tuple[bytes, bytes]]:
        web = path == self.web or path.startswith(self.web + "/")
        return self.by_kind[web, path in self.pages, path.startswith(self.static)]

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
