"""Security headers on every answer of the REST port: the API's, the web table's, the documentation's, errors';
and CORS preflights that name only the methods served where they ask."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import httpx
import pytest

from mazziere.services.config import Config
from mazziere.services.core.backend import Backend
from mazziere.services.http import web as gateway_web
from mazziere.services.http.app import create_app
from mazziere.services.http.headers import API_PERMISSIONS, PAGE_PERMISSIONS, SecurityHeaders
from tests.gateway.conftest import BASE, ORIGIN, Gateway

CREATE = {"game": "sette_e_mezzo", "seats": [{"name": "a", "chips": "50"}, {"name": "b", "chips": "50"}]}
REPLAY = {"create": {**CREATE, "seed": "c2Vk"}, "actions": [{"kind": "DEAL"}]}
JSON = {"content-type": "application/json"}


def envelope(payload: bytes) -> bytes:
    return b"\x00" + len(payload).to_bytes(4, "big") + payload


def check_common(resp: httpx.Response, *, page: bool = False) -> str:
    """The headers every answer has (``page``: one of the two pages, the web table or the documentation, whose
    Permissions-Policy lets them write to the clipboard); returns its Content-Security-Policy."""
    where = f"{resp.request.method} {resp.request.url.path} ({resp.status_code})"
    assert resp.headers.get("x-content-type-options") == "nosniff", where
    assert resp.headers.get("x-frame-options") == "DENY", where
    assert resp.headers.get("referrer-policy") == "no-referrer", where
    assert resp.headers.get("cross-origin-opener-policy") == "same-origin", where
    assert resp.headers.get("cross-origin-resource-policy") == "same-origin", where
    permissions = resp.headers.get("permissions-policy", "")
    assert permissions == (PAGE_PERMISSIONS if page else API_PERMISSIONS), where
    features = dict(item.split("=") for item in permissions.split(", "))
    assert features.pop("clipboard-write") == ("(self)" if page else "()"), where
    assert {"camera", "microphone", "geolocation", "payment", "usb"} <= set(features), where
    assert set(features.values()) == {"()"}, where
    policy = resp.headers.get("content-security-policy", "")
    assert "frame-ancestors 'none'" in policy and "unsafe" not in policy, (where, policy)
    assert len(resp.headers.get_list("content-security-policy")) == 1, where
    return policy


def api_answers(gw: Gateway) -> Iterator[httpx.Response]:
    """An answer of every kind the API gives: plain, with tokens and seat keys, streamed, refused, and not routed."""
    http = gw.http
    yield http.get("/v1/games")
    created = http.post("/v1/tables", json=CREATE)
    assert "seatKeys" in created.json()
    yield created
    yield http.post("/v1/tables:view", json={"tableId": created.json()["tableId"], "state": created.json()["state"]})
    yield http.post("/v1/tables:act", content=b'{"expectedSeq": "--1"}', headers=JSON)
    yield http.post("/v1/tables:streamReplay", json=REPLAY)
    yield http.post("/v1/tables", content=b"{}", headers={"content-type": "text/plain"})  # 415
    connect = "/mazziere.v1.TableService/"
    yield http.post(connect + "CreateTable", json=CREATE)
    yield http.post(connect + "Act", content=b"[]", headers=JSON)
    yield http.post(
        connect + "ListGames", content=envelope(b"{}"), headers={"content-type": "application/grpc-web+json"}
    )
    replay = envelope(json.dumps(REPLAY).encode())
    yield http.post(connect + "StreamReplay", content=replay, headers={"content-type": "application/connect+json"})
    yield http.post(connect + "ListGames", content=b"", headers={"content-type": "text/plain"})  # 415
    yield http.options("/v1/tables", headers={"Origin": ORIGIN, "Access-Control-Request-Method": "POST"})
    yield http.get("/healthz")
    yield http.get("/readyz")
    yield http.get("/openapi.json")
    yield http.get("/v1/nothing")  # 404
    yield http.request("PROPFIND", "/v1/games")  # 405


def test_every_api_answer_has_the_security_headers_and_is_not_stored(gateway: Gateway) -> None:
    statuses = set()
    for resp in api_answers(gateway):
        statuses.add(resp.status_code)
        policy = check_common(resp)
        assert policy == "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        assert resp.headers.get("cache-control") == "no-store", resp.request.url
    assert {200, 400, 404, 405, 415} <= statuses


def test_the_docs_allow_their_one_inline_script_by_its_hash(gateway: Gateway) -> None:
    """Swagger UI's page starts with an inline script: allowed by its SHA-256, never by 'unsafe-inline'."""
    resp = gateway.http.get("/docs")
    policy = check_common(resp, page=True)
    scripts = re.findall(rb"<script>(.*?)</script>", resp.content, re.DOTALL)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0]).digest()).decode()
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == f"'self' 'sha256-{digest}'"
    assert directives["default-src"] == "'self'" and directives["img-src"] == "'self' data:"
    assert resp.headers["cache-control"] == "no-store"
    css = gateway.http.get("/static/swagger-ui/swagger-ui.css")  # a static file: it may be cached
    assert css.status_code == 200 and "cache-control" not in css.headers
    check_common(css)


class _FailingBackend:
    """Every call fails with a bug of the gateway's own."""

    async def call(self, *args: Any) -> Any:
        raise RuntimeError("a bug")

    async def ready(self) -> bool:
        return True

    async def close(self) -> None:
        return None


def get(config: Config, *paths: str) -> list[httpx.Response]:
    async def run() -> list[httpx.Response]:
        app = create_app(cast(Backend, _FailingBackend()), config)
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://gw") as client:
            return [await client.get(path) for path in paths]

    return asyncio.run(run())


def test_an_internal_error_has_the_headers_too() -> None:
    [resp] = get(BASE, "/v1/games")
    assert resp.status_code == 500 and resp.json()["error"]["status"] == "INTERNAL"
    check_common(resp)
    assert resp.headers["cache-control"] == "no-store"


@pytest.fixture
def web_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A built web table of three files, served at /play by the apps made while the test runs."""
    (tmp_path / "index.html").write_text('<!doctype html><div id="app"></div><script src="app.js" defer></script>')
    (tmp_path / "app.js").write_text("console.log(1);\n")
    (tmp_path / "app.js.map").write_text('{"version": 3, "sources": ["src/main.ts"]}')
    monkeypatch.setattr(gateway_web, "WEB_DIST", tmp_path)
    return tmp_path


def test_the_web_table_has_a_strict_policy_and_no_source_map_unless_asked(web_dist: Path) -> None:
    page, script, source_map, redirect = get(BASE, "/play/", "/play/app.js", "/play/app.js.map", "/play")
    assert page.status_code == 200 and '<div id="app">' in page.text
    for resp in (page, script, source_map, redirect):
        policy = check_common(resp, page=True)
        assert policy == "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; " + (
            "frame-ancestors 'none'"
        )
    assert "cache-control" not in page.headers and "cache-control" not in script.headers  # static files
    assert redirect.status_code == 307 and redirect.headers["cache-control"] == "no-store"
    assert source_map.status_code == 404 and "sources" not in source_map.text
    assert "sourcemap" not in script.headers

    config = Config.from_env({"MAZZIERE_WEB_SOURCE_MAPS": "1"})
    assert config.web_source_maps
    script, source_map = get(replace(BASE, web_source_maps=config.web_source_maps), "/play/app.js", "/play/app.js.map")
    assert script.headers["sourcemap"] == "app.js.map"
    assert source_map.status_code == 200 and source_map.json()["sources"] == ["src/main.ts"]


def test_the_headers_go_on_the_start_of_a_stream_and_its_body_passes_as_it_comes() -> None:
    """The middleware buffers nothing: the second chunk is only made once the first has reached the caller."""
    got_first = asyncio.Event()
    sent: list[dict[str, Any]] = []

    async def streaming_app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"first", "more_body": True})
        await asyncio.wait_for(got_first.wait(), 5)
        await send({"type": "http.response.body", "body": b"second"})

    async def caller(message: dict[str, Any]) -> None:
        sent.append(message)
        if message.get("body") == b"first":
            got_first.set()

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    middleware = SecurityHeaders(streaming_app, web="/play", static=("/play/",))
    asyncio.run(middleware({"type": "http", "path": "/v1/tables:streamReplay"}, receive, caller))
    assert [m.get("body") for m in sent] == [None, b"first", b"second"]
    headers = dict(sent[0]["headers"])
    assert headers[b"cache-control"] == b"no-store" and headers[b"x-content-type-options"] == b"nosniff"
    assert headers[b"content-type"] == b"text/plain"


def preflight(gw: Gateway, path: str, method: str) -> httpx.Response:
    return gw.http.options(path, headers={"Origin": ORIGIN, "Access-Control-Request-Method": method})


def allowed_methods(resp: httpx.Response) -> list[str]:
    return [m.strip() for m in resp.headers.get("access-control-allow-methods", "").split(",") if m.strip()]


def test_a_preflight_names_only_the_methods_served_at_its_path(gateway: Gateway, web_dist: Path) -> None:
    """Each path's own methods (GET was listed everywhere, served by no Connect route and no ``:act``); a method a
    path does not serve, or a path nothing serves, is refused (400, so the browser makes no call)."""
    served = {
        "/v1/games": ["GET"],
        "/v1/tables": ["POST"],
        "/v1/tables:act": ["POST"],
        "/mazziere.v1.TableService/Act": ["POST"],  # its GET, HEAD, PUT... routes only answer 405
        "/mazziere.v1.TableService/StreamReplay": ["POST"],
        "/healthz": ["GET"],
        "/openapi.json": ["GET", "HEAD"],
        "/static/swagger-ui/swagger-ui.css": ["GET", "HEAD"],
    }
    for path, methods in served.items():
        for method in methods:
            answer = preflight(gateway, path, method)
            assert answer.status_code == 200, (path, method)
            assert sorted(allowed_methods(answer)) == sorted(methods), (path, allowed_methods(answer))
            assert answer.headers["access-control-allow-origin"] == ORIGIN
        for method in {"GET", "POST", "PUT", "DELETE"} - set(methods):
            refused = preflight(gateway, path, method)
            assert refused.status_code == 400, (path, method)
            assert method not in allowed_methods(refused), (path, method)
            check_common(refused)
    nowhere = preflight(gateway, "/v1/nothing", "GET")
    assert nowhere.status_code == 400 and allowed_methods(nowhere) == []


def test_the_web_tables_preflight_names_its_files_methods(web_dist: Path) -> None:
    config = replace(BASE, cors_origins=ORIGIN)

    async def run() -> list[httpx.Response]:
        app = create_app(cast(Backend, _FailingBackend()), config)
        transport = httpx.ASGITransport(app=app)
        headers = {"Origin": ORIGIN, "Access-Control-Request-Method": "GET"}
        async with httpx.AsyncClient(transport=transport, base_url="http://gw") as client:
            return [await client.options(path, headers=headers) for path in ("/play/app.js", "/play")]

    for answer in asyncio.run(run()):
        assert answer.status_code == 200 and set(allowed_methods(answer)) <= {"GET", "HEAD"}
        assert "GET" in allowed_methods(answer)
