"""The web table at ``/play``: the built page (clients/web/dist) as static files."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

WEB_PATH = "/play"
WEB_DIST = Path(__file__).resolve().parents[2] / "clients" / "web" / "dist"
"""The built web table (clients/web, ``make run`` builds it): served at /play when it exists."""
WEB_SOURCE_MAP = "app.js.map"


class WebFiles(StaticFiles):
    """The built web table; its source map (``app.js.map``) only with ``MAZZIERE_WEB_SOURCE_MAPS``, and then
    linked from ``app.js`` by a ``SourceMap`` header (the bundle itself names no map)."""

    def __init__(self, directory: Path, *, source_maps: bool) -> None:
        super().__init__(directory=directory, html=True)
        self.source_maps = source_maps

    async def get_response(self, path: str, scope: Scope) -> Response:
        if path.endswith(".map") and not self.source_maps:
            raise StarletteHTTPException(404)
        response = await super().get_response(path, scope)
        if self.source_maps and path == "app.js":
            response.headers["SourceMap"] = WEB_SOURCE_MAP
        return response


def add_web_table(app: FastAPI, *, source_maps: bool) -> None:
    """The web table at ``/play`` when it is built."""
    if not (WEB_DIST / "index.html").is_file():
        return
    app.mount(WEB_PATH + "/", WebFiles(WEB_DIST, source_maps=source_maps), name="play")

    @app.get(WEB_PATH, include_in_schema=False)
    async def play() -> RedirectResponse:
        return RedirectResponse(WEB_PATH + "/")
